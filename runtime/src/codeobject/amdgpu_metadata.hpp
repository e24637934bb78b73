// The NT_AMDGPU_METADATA note (code object v3+): a msgpack map with "amdhsa.target" and
// "amdhsa.kernels". Parsed with msgpack-c, bounded by the note's own size.
#pragma once

#include <string_view>

#include "hsad/code_object.hpp"

namespace hsad::codeobject {

// Fills `out.target` and `out.kernels` (symbols and descriptor offsets are the ELF's business).
void parse_amdgpu_metadata(std::string_view note, CodeObject& out);

}  // namespace hsad::codeobject
