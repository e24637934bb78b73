// AMD code objects read without a driver: clang offload bundles, the ELF, and the kernels'
// NT_AMDGPU_METADATA note. Malformed input is an hsad::Error, never a crash.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "hsad/kernel.hpp"

namespace hsad {

struct CodeObjectKernel {
  KernelInfo info;                        // name, kernarg layout (hidden args included), segments
  std::string symbol;                     // the kernel descriptor's symbol: "name.kd"
  std::uint64_t descriptor_offset = 0;    // the .kd symbol's value; 0 where the ELF has no symbol table
};

struct CodeObject {
  std::string target;                // "amdgcn-amd-amdhsa--gfx90a" (with feature suffixes, as written)
  std::string processor;             // "gfx90a": what an agent's ISA name is matched against
  std::uint32_t code_object_version = 0;  // 2..5, from the ELF's ABI version
  std::vector<CodeObjectKernel> kernels;
};

// One entry of a clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__").
struct BundleEntry {
  std::string id;         // "hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux"
  std::string_view bytes; // a view into the bundle
};

bool is_offload_bundle(std::string_view bytes);
// Every entry of a bundle; throws hsad::Error on a truncated or inconsistent one.
std::vector<BundleEntry> unbundle(std::string_view bundle);

// Reads one AMDGPU ELF code object.
CodeObject read_code_object(std::string_view elf);

// The device code objects in `bytes`: a bundle's amdgcn entries, or the one ELF it is.
std::vector<CodeObject> read_code_objects(std::string_view bytes);

// The code object entry of a bundle (or the ELF itself) for an agent's processor ("gfx90a");
// an empty view when there is none.
std::string_view select_code_object(std::string_view bytes, std::string_view processor);

}  // namespace hsad
