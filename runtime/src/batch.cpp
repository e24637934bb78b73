// Recording a dispatch: the arguments are checked against the kernel's layout and packed
// into its kernarg image once, so a submission only copies bytes.
#include "hsad/batch.hpp"

#include <atomic>

#include "hsad/error.hpp"

namespace hsad {

std::size_t KernelInfo::explicit_arg_count() const {
  std::size_t n = 0;
  for (auto& a : args) n += a.kind != ArgKind::hidden;
  return n;
}

std::uint64_t Batch::next_id() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

void Batch::clear() {
  dispatches_.clear();
  arena_.clear();
  ++version_;
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args) {
  if (!kernel) throw Error("batch", "exec", "empty Kernel handle", "get one from Device::kernel(name)");
  const KernelInfo& info = kernel.info();
  if (grid.volume() == 0 || group.volume() == 0) {
    throw Error("batch", "exec " + info.name, "grid and work-group sizes must be at least 1 in every dimension");
  }
  if (info.max_workgroup_size && group.volume() > info.max_workgroup_size) {
    throw Error("batch", "exec " + info.name,
                "a work-group of " + std::to_string(group.volume()) + " work-items exceeds kernel '" + info.name +
                    "''s limit of " + std::to_string(info.max_workgroup_size),
                "use a smaller work-group (the kernel's launch bounds)");
  }
  const std::size_t expected = info.explicit_arg_count();
  if (args.size() != expected) {
    throw Error("batch", "exec " + info.name,
                "wrong argument count: got " + std::to_string(args.size()) + ", kernel '" + info.name +
                    "' takes " + std::to_string(expected),
                "check the kernel's signature (hsad-info lists it)");
  }
  // Each dispatch's image starts 16-byte aligned in the arena, so copying it keeps alignment.
  const std::size_t offset = (arena_.size() + 15) & ~std::size_t(15);
  arena_.resize(offset + info.kernarg_segment_size, 0);
  auto a = args.begin();
  std::size_t index = 0;
  for (const ArgInfo& slot : info.args) {
    if (slot.kind == ArgKind::hidden) continue;
    if (a->size() != slot.size) {
      arena_.resize(offset);
      throw Error("batch", "exec " + info.name,
                  "argument " + std::to_string(index) + " ('" + slot.name + "') of kernel '" + info.name +
                      "' is " + std::to_string(slot.size) + " bytes, got " + std::to_string(a->size()),
                  "pass a value of the parameter's exact type");
    }
    std::memcpy(arena_.data() + offset + slot.offset, a->data(), a->size());
    ++a;
    ++index;
  }
  dispatches_.push_back({kernel, grid, group, static_cast<std::uint32_t>(offset)});
  ++version_;
  return *this;
}

}  // namespace hsad
