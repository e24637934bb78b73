// What kind of code a module's bytes hold, told from their first bytes alone, and the targets a
// CUDA image carries (for messages). Pure: no driver.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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

// One image of a CUDA fatbin: SASS (a cubin) or PTX for one SM, its payload compressed (by
// fatbinary: zstd, or LZ4 before CUDA 12.8) or as is.
struct FatbinImage {
  enum class Kind { ptx, cubin, other } kind = Kind::other;
  unsigned sm = 0;
  bool compressed = false;
  std::string_view payload;
};
// Throws hsad::Error for a truncated fatbin.
std::vector<FatbinImage> fatbin_images(std::string_view fatbin);

}  // namespace hsad::detail
