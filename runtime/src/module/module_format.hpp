// What kind of code a module's bytes hold, told from their first bytes alone, and the targets a
// CUDA image carries (for messages). Pure: no driver.
#pragma once

#include <string>
#include <string_view>

namespace hsad::detail {

enum class ModuleFormat { empty, amd_elf, amd_bundle, cuda_cubin, cuda_fatbin, ptx, unknown };

ModuleFormat detect_module_format(std::string_view bytes);
bool is_amd(ModuleFormat f);
bool is_cuda(ModuleFormat f);
// "an AMD code object", "a CUDA fatbin", ... for messages.
const char* describe(ModuleFormat f);

// The targets of a cubin ("sm_90"), of each fatbin entry ("sm_80, sm_90, compute_90 (PTX)"), of
// a PTX file (its .target, "compute_90 (PTX)"). Throws hsad::Error for a truncated fatbin.
std::string cuda_image_targets(std::string_view bytes);

}  // namespace hsad::detail
