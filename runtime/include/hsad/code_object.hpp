// AMD code objects read without a driver: clang offload bundles, the ELF, and the kernels'
// NT_AMDGPU_METADATA note. Malformed input is an hsad::Error, never a crash.
#pragma once

#include "hsad/export.hpp"

#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "hsad/kernel.hpp"

namespace hsad {

struct HSAD_API CodeObjectKernel {
  KernelInfo info;                        // name, kernarg layout (hidden args included), segments
  std::string symbol;                     // the kernel descriptor's symbol: "name.kd"
  std::uint64_t descriptor_offset = 0;    // the .kd symbol's value; 0 where the ELF has no symbol table
};

struct HSAD_API CodeObject {
  std::string target;                // "amdgcn-amd-amdhsa--gfx90a" (with feature suffixes, as written)
  std::string processor;             // "gfx90a": what an agent's ISA name is matched against
  std::uint32_t code_object_version = 0;  // 2..5, from the ELF's ABI version
  std::vector<CodeObjectKernel> kernels;
};

// One entry of a clang offload bundle ("__CLANG_OFFLOAD_BUNDLE__").
struct HSAD_API BundleEntry {
  std::string id;         // "hipv4-amdgcn-amd-amdhsa--gfx90a", "host-x86_64-unknown-linux"
  std::string_view bytes; // a view into the bundle
};

HSAD_API bool is_offload_bundle(std::string_view bytes);
// Every entry of a bundle; throws hsad::Error on a truncated or inconsistent one.
HSAD_API std::vector<BundleEntry> unbundle(std::string_view bundle);

// Reads one AMDGPU ELF code object.
HSAD_API CodeObject read_code_object(std::string_view elf);

// The device code objects in `bytes`: a bundle's amdgcn entries, or the one ELF it is.
HSAD_API std::vector<CodeObject> read_code_objects(std::string_view bytes);

// Work-groups of `kernel`, `group_size` work-items and `dynamic_lds` bytes of dynamic LDS each,
// that one compute unit of `processor` ("gfx90a", a target id) holds at once, by CLR's occupancy
// model (what Kernel::max_active_groups_per_cu answers on rocr); nullopt for a processor the
// model does not cover (RDNA).
HSAD_API std::optional<std::uint32_t> amdgpu_groups_per_cu(std::string_view processor, const KernelInfo& kernel,
                                                          std::uint32_t group_size, std::uint32_t dynamic_lds = 0);

// An AMD target ID as ROCr matches it: the processor and the two target features (sramecc,
// xnack), each on ("+"), off ("-") or unspecified (any). Parsed from a full ISA or target name
// ("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-", a bundle entry "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-")
// or a short one ("gfx90a:xnack-", "gfx90a").
struct HSAD_API TargetId {
  enum class Feature : std::uint8_t { any, on, off };
  std::string processor;
  Feature sramecc = Feature::any;
  Feature xnack = Feature::any;

  static TargetId parse(std::string_view text);
  std::string to_string() const;  // "gfx90a:sramecc+:xnack-", features only where set
};

// Code built for `code` runs on an agent of ISA `agent`: the processors are equal, and each
// feature the code fixes is the agent's setting (an agent's unspecified feature accepts either).
HSAD_API bool target_compatible(const TargetId& code, const TargetId& agent);

// The generic target whose code runs on `processor` ("gfx11-generic" for gfx1103; LLVM's
// AMDGPUUsage lists the families), or empty where its family has none (gfx908, gfx90a).
HSAD_API std::string amdgpu_generic_target(std::string_view processor);

// Which code object of a bundle (or the ELF itself) runs on an agent's ISA ("gfx90a", or with
// features, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"), and why. First the objects built for
// the agent's processor: of the compatible ones, the one that fixes the most features, as ROCr
// prefers; else the same among its family's generic objects (code object v6, ROCm 6.2 and later).
struct HSAD_API CodeObjectChoice {
  std::string_view bytes;  // empty where none is compatible
  std::string target;      // the chosen entry's target ID ("gfx11-generic"); empty with bytes
  std::string reason;      // "built for gfx90a", "no gfx1103 object; gfx11-generic covers gfx1103", or why none fits
};
HSAD_API CodeObjectChoice choose_code_object(std::string_view bytes, std::string_view agent_isa);
// choose_code_object's bytes alone.
HSAD_API std::string_view select_code_object(std::string_view bytes, std::string_view agent_isa);
// The targets a bundle (or ELF) holds, for messages: "gfx1030, gfx908, gfx90a:xnack-".
HSAD_API std::string code_object_targets(std::string_view bytes);

}  // namespace hsad
