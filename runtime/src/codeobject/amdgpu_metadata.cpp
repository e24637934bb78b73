// Metadata keys are the AMDGPU backend's (llvm.org/docs/AMDGPUUsage.html, "Code Object V3
// Metadata"); anything not needed to dispatch is skipped, anything needed is required.
#define MSGPACK_NO_BOOST
#include "codeobject/amdgpu_metadata.hpp"

#include <msgpack.hpp>

#include <limits>

#include "codeobject/byte_reader.hpp"

namespace hsad::codeobject {
namespace {

constexpr std::size_t kMaxDepth = 16;  // the real layout is 4 deep

const msgpack::object* find(const msgpack::object& map, std::string_view key) {
  if (map.type != msgpack::type::MAP) return nullptr;
  for (std::uint32_t i = 0; i < map.via.map.size; ++i) {
    const msgpack::object_kv& kv = map.via.map.ptr[i];
    if (kv.key.type == msgpack::type::STR && std::string_view(kv.key.via.str.ptr, kv.key.via.str.size) == key) {
      return &kv.val;
    }
  }
  return nullptr;
}

struct Context {
  std::string where;  // "kernel 'bitonic_step'", for the error
};

std::string get_string(const msgpack::object& map, std::string_view key, const Context& c) {
  const msgpack::object* o = find(map, key);
  if (!o || o->type != msgpack::type::STR) malformed(c.where + ": '" + std::string(key) + "' missing or not a string");
  return std::string(o->via.str.ptr, o->via.str.size);
}

std::uint32_t get_u32(const msgpack::object& map, std::string_view key, const Context& c, bool required = true,
                      std::uint32_t fallback = 0) {
  const msgpack::object* o = find(map, key);
  if (!o) {
    if (required) malformed(c.where + ": '" + std::string(key) + "' missing");
    return fallback;
  }
  if (o->type != msgpack::type::POSITIVE_INTEGER || o->via.u64 > std::numeric_limits<std::uint32_t>::max()) {
    malformed(c.where + ": '" + std::string(key) + "' is not an unsigned 32-bit integer");
  }
  return std::uint32_t(o->via.u64);
}

ArgKind kind_of(std::string_view value_kind) {
  if (value_kind.substr(0, 7) == "hidden_") return ArgKind::hidden;
  if (value_kind == "global_buffer") return ArgKind::global_buffer;
  return ArgKind::by_value;  // by_value, and the pointer-sized handles (image, sampler, queue, ...)
}

ArgInfo parse_arg(const msgpack::object& a, std::size_t index, const KernelInfo& k, const Context& kc) {
  Context c{kc.where + " argument " + std::to_string(index)};
  if (a.type != msgpack::type::MAP) malformed(c.where + " is not a map");
  ArgInfo arg;
  if (const msgpack::object* n = find(a, ".name"); n && n->type == msgpack::type::STR) {
    arg.name.assign(n->via.str.ptr, n->via.str.size);
  } else {
    arg.name = "arg" + std::to_string(index);
  }
  arg.offset = get_u32(a, ".offset", c);
  arg.size = get_u32(a, ".size", c);
  arg.value_kind = get_string(a, ".value_kind", c);
  arg.kind = kind_of(arg.value_kind);
  if (std::uint64_t(arg.offset) + arg.size > k.kernarg_segment_size) {
    malformed(c.where + " (" + arg.value_kind + " at offset " + std::to_string(arg.offset) + ", " +
              std::to_string(arg.size) + " bytes) lies outside the kernarg segment of " +
              std::to_string(k.kernarg_segment_size) + " bytes");
  }
  return arg;
}

CodeObjectKernel parse_kernel(const msgpack::object& m, std::size_t index) {
  Context c{"kernel " + std::to_string(index)};
  if (m.type != msgpack::type::MAP) malformed(c.where + " is not a map");
  CodeObjectKernel out;
  KernelInfo& k = out.info;
  k.name = get_string(m, ".name", c);
  c.where = "kernel '" + k.name + "'";
  out.symbol = get_string(m, ".symbol", c);
  k.kernarg_segment_size = get_u32(m, ".kernarg_segment_size", c);
  k.kernarg_segment_align = get_u32(m, ".kernarg_segment_align", c);
  if (k.kernarg_segment_align == 0 || (k.kernarg_segment_align & (k.kernarg_segment_align - 1)) != 0) {
    malformed(c.where + ": kernarg_segment_align " + std::to_string(k.kernarg_segment_align) + " is not a power of two");
  }
  k.group_segment_size = get_u32(m, ".group_segment_fixed_size", c);
  k.private_segment_size = get_u32(m, ".private_segment_fixed_size", c);
  k.wavefront_size = get_u32(m, ".wavefront_size", c);
  k.max_workgroup_size = get_u32(m, ".max_flat_workgroup_size", c, false, 0);
  k.vector_registers = get_u32(m, ".vgpr_count", c, false, 0);
  k.accum_registers = get_u32(m, ".agpr_count", c, false, 0);
  k.scalar_registers = get_u32(m, ".sgpr_count", c, false, 0);
  k.vector_spills = get_u32(m, ".vgpr_spill_count", c, false, 0);
  k.scalar_spills = get_u32(m, ".sgpr_spill_count", c, false, 0);
  const std::uint32_t uniform = get_u32(m, ".uniform_work_group_size", c, false, 0);
  if (uniform > 1) malformed(c.where + ": '.uniform_work_group_size' is " + std::to_string(uniform) + ", not 0 or 1");
  k.uniform_work_group_size = uniform == 1;
  if (const msgpack::object* args = find(m, ".args")) {
    if (args->type != msgpack::type::ARRAY) malformed(c.where + ": '.args' is not an array");
    for (std::uint32_t i = 0; i < args->via.array.size; ++i) k.args.push_back(parse_arg(args->via.array.ptr[i], i, k, c));
  }
  return out;
}

}  // namespace

void parse_amdgpu_metadata(std::string_view note, CodeObject& out) {
  // No container can hold more entries than the note has bytes: a corrupt length fails here
  // instead of asking the allocator for gigabytes.
  const std::size_t n = note.size();
  msgpack::object_handle handle;
  try {
    handle = msgpack::unpack(note.data(), n, nullptr, nullptr, msgpack::unpack_limit(n, n, n, n, n, kMaxDepth));
  } catch (const std::exception& e) {
    malformed(std::string("NT_AMDGPU_METADATA is not valid msgpack (") + e.what() + ")");
  }
  const msgpack::object& root = handle.get();
  if (root.type != msgpack::type::MAP) malformed("NT_AMDGPU_METADATA is not a msgpack map");
  const Context c{"metadata"};
  if (find(root, "amdhsa.target")) out.target = get_string(root, "amdhsa.target", c);
  const msgpack::object* kernels = find(root, "amdhsa.kernels");
  if (!kernels || kernels->type != msgpack::type::ARRAY) malformed("metadata has no 'amdhsa.kernels' array");
  for (std::uint32_t i = 0; i < kernels->via.array.size; ++i) out.kernels.push_back(parse_kernel(kernels->via.array.ptr[i], i));
}

}  // namespace hsad::codeobject
