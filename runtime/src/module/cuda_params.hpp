// How many parameters a CUDA kernel takes, read from the module's own image, so that the driver is
// asked (cuFuncGetParamInfo) only for parameters that exist. The driver has no call that counts
// them, and asking past the last one fails: sanitizers and API traces report every such call.
// Pure: no driver.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace hsad::detail {

// From a cubin (its ".nv.info.<kernel>" attributes, one EIATTR_KPARAM_INFO per parameter), a PTX
// file (the ".entry"'s parameter list), or a fatbin (an uncompressed cubin image, else an
// uncompressed PTX image: the parameters are those of the source, the same for every SM).
// nullopt where the image cannot tell: no such kernel, or every image of a fatbin compressed.
// Throws hsad::Error for a malformed cubin.
std::optional<std::size_t> cuda_param_count(std::string_view image, std::string_view kernel);

}  // namespace hsad::detail
