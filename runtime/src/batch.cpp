// Recording commands: a dispatch's arguments are checked against the kernel's layout and packed
// into its kernarg image once; a copy's ranges are checked and its host side classified (pinned
// or pageable) once; a wait takes a reference to the other submission's completion. A
// submission then only copies bytes and writes packets.
#include "hsad/batch.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <utility>

#include "backends/backend.hpp"
#include "dispatch_shape.hpp"
#include "hsad/error.hpp"
#include "hsad/queue.hpp"

namespace hsad {
namespace {
// The distinct code objects a batch's kernels live in: what a submission keeps alive.
using CodeSet = std::vector<std::shared_ptr<const void>>;

void check_buffer(const Buffer& b, std::size_t bytes, std::size_t offset, const char* call, const char* which) {
  if (!b.device_ptr()) throw Error("batch", call, std::string("the ") + which + " Buffer is empty");
  if (offset > b.size() || bytes > b.size() - offset) {
    throw Error("batch", call,
                std::to_string(bytes) + " bytes at offset " + std::to_string(offset) + " overrun the " + which +
                    " buffer of " + std::to_string(b.size()) + " bytes",
                "copy at most size() - offset bytes");
  }
}

void check_bytes(std::size_t bytes, const void* host, const char* call) {
  if (bytes == 0) throw Error("batch", call, "a copy of 0 bytes", "record only copies that move data");
  if (!host) throw Error("batch", call, "the host pointer is null");
}
}  // namespace

std::size_t KernelInfo::explicit_arg_count() const {
  std::size_t n = 0;
  for (auto& a : args) n += a.kind != ArgKind::hidden;
  return n;
}

std::uint64_t Batch::next_id() {
  static std::atomic<std::uint64_t> counter{1};
  return counter.fetch_add(1, std::memory_order_relaxed);
}

Batch::Batch(const Batch& o)
    : commands_(o.commands_), dispatches_(o.dispatches_), copies_(o.copies_), waits_(o.waits_), arena_(o.arena_),
      device_(o.device_), code_(o.code_), labels_(o.labels_), version_(o.version_), args_version_(o.args_version_),
      args_changes_(o.args_changes_), id_(next_id()) {}

Batch& Batch::operator=(const Batch& o) {
  if (this != &o) *this = Batch(o);  // the copy's new identity, moved in
  return *this;
}

Batch::Batch(Batch&& o) noexcept
    : commands_(std::move(o.commands_)), dispatches_(std::move(o.dispatches_)), copies_(std::move(o.copies_)),
      waits_(std::move(o.waits_)), arena_(std::move(o.arena_)), device_(std::exchange(o.device_, nullptr)),
      code_(std::move(o.code_)), labels_(std::move(o.labels_)), version_(o.version_),
      args_version_(o.args_version_), args_changes_(std::move(o.args_changes_)), id_(std::exchange(o.id_, next_id())) {
  o.clear();
}

Batch& Batch::operator=(Batch&& o) noexcept {
  if (this == &o) return *this;
  commands_ = std::move(o.commands_);
  dispatches_ = std::move(o.dispatches_);
  copies_ = std::move(o.copies_);
  waits_ = std::move(o.waits_);
  arena_ = std::move(o.arena_);
  device_ = std::exchange(o.device_, nullptr);
  code_ = std::move(o.code_);
  labels_ = std::move(o.labels_);
  version_ = o.version_;
  args_version_ = o.args_version_;
  args_changes_ = std::move(o.args_changes_);
  id_ = std::exchange(o.id_, next_id());
  o.clear();
  return *this;
}

void Batch::clear() {
  commands_.clear();
  dispatches_.clear();
  copies_.clear();
  waits_.clear();
  arena_.clear();
  device_ = nullptr;
  code_.reset();
  labels_.reset();
  args_changes_.clear();  // its dispatch numbers name dispatches that are gone
  ++version_;
}

void Batch::push(detail::CommandKind kind, std::size_t index) {
  commands_.push_back({kind, static_cast<std::uint32_t>(index)});
  if (!labels_) labels_ = std::make_shared<std::vector<std::string>>();
  else if (labels_.use_count() > 1) labels_ = std::make_shared<std::vector<std::string>>(*labels_);
  switch (kind) {
    case detail::CommandKind::exec: labels_->push_back(dispatches_[index].kernel.name()); break;
    case detail::CommandKind::wait: labels_->push_back("wait"); break;
    case detail::CommandKind::copy:
      labels_->push_back(copies_[index].kind == detail::CopyKind::to_device ? "copy_to_device"
                         : copies_[index].kind == detail::CopyKind::to_host ? "copy_to_host" : "copy");
      break;
  }
  ++version_;
}

// A batch runs on one device: its kernels and the buffers it copies to or from belong to it (a
// device-to-device copy may name a peer of the same backend).
void Batch::adopt_device(detail::DeviceImpl* device, const char* call) {
  if (!device_) {
    device_ = device;
    return;
  }
  if (device_->same_device(device)) return;
  throw Error("batch", call,
              "the batch already names device '" + device_->info().name + "' (" + device_->info().backend +
                  "); this names '" + device->info().name + "' (" + device->info().backend + ")",
              "record one batch per device; between devices, copy and wait");
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args) {
  return exec(kernel, grid, group, args.begin(), args.size(), false);
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) {
  return exec(kernel, grid, group, args.data(), args.size(), false);
}

Batch& Batch::exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args) {
  return exec(kernel, grid, group, args.begin(), args.size(), true);
}

Batch& Batch::exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) {
  return exec(kernel, grid, group, args.data(), args.size(), true);
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, const Arg* first, std::size_t count,
                   bool partial_groups) {
  if (!kernel) throw Error("batch", "exec", "empty Kernel handle", "get one from Device::kernel(name) or Module::kernel(name)");
  const KernelInfo& info = kernel.info();
  const detail::DeviceImpl* device = kernel.impl().device;
  if (partial_groups && device && device->info().backend == "cuda") {
    throw Error("batch", "exec_partial_groups " + info.name,
                "partial work-groups are HSA's (AQL backends: rocr, the cpu agent); CUDA launches whole blocks only",
                "use exec: the grid is rounded up to whole work-groups and the kernel checks its index");
  }
  const Dim3 encoded =
      detail::dispatch_grid(info.name, grid, group, partial_groups ? detail::GroupShape::partial : detail::GroupShape::whole,
                            device ? &device->info() : nullptr);
  if (info.max_workgroup_size && group.volume() > info.max_workgroup_size) {
    throw Error("batch", "exec " + info.name,
                "a work-group of " + std::to_string(group.volume()) + " work-items exceeds kernel '" + info.name +
                    "''s limit of " + std::to_string(info.max_workgroup_size),
                "use a smaller work-group (the kernel's launch bounds)");
  }
  // Each dispatch's image starts 16-byte aligned in the arena, so copying it keeps alignment.
  const std::size_t offset = (arena_.size() + 15) & ~std::size_t(15);
  arena_.resize(offset + info.kernarg_segment_size, 0);
  try {
    pack_args(info, first, count, offset, "exec", device);
    if (kernel.impl().device) adopt_device(kernel.impl().device, "exec");
  } catch (...) {
    arena_.resize(offset);
    throw;
  }
  // Copy-on-write: submissions in flight hold the previous set.
  if (const auto& keep = kernel.impl().keep_alive) {
    const auto* set = static_cast<const CodeSet*>(code_.get());
    if (!set || std::find(set->begin(), set->end(), keep) == set->end()) {
      auto grown = std::make_shared<CodeSet>(set ? *set : CodeSet{});
      grown->push_back(keep);
      code_ = std::move(grown);
    }
  }
  dispatches_.push_back({kernel, encoded, group, partial_groups, static_cast<std::uint32_t>(offset), 0});
  push(detail::CommandKind::exec, dispatches_.size() - 1);
  return *this;
}

namespace {
// A parameter the code object calls a global buffer takes an address the device can reach: a
// Buffer, a pointer into memory of the device (or the application's, that its driver maps for
// it), or null. A number of the right size is refused: it is a mistake far more often than not.
template <class Refuse>
void check_global_buffer(const Arg& a, const detail::DeviceImpl* device, const Refuse& refuse) {
  if (a.source() == Arg::Source::value) {
    refuse("is a global buffer (a pointer to device memory); got a value of " + std::to_string(a.size()) + " bytes",
           "pass a Buffer, or a pointer the device reaches");
  }
  if (a.source() == Arg::Source::buffer && a.address() == 0) {
    refuse("is an empty Buffer (moved from, or default-constructed)", "pass a Buffer that holds memory");
  }
  if (a.source() != Arg::Source::unchecked && a.address() != 0 && device &&
      !device->reaches(reinterpret_cast<const void*>(a.address()))) {
    char hex[32];
    std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(a.address()));
    refuse(std::string("is a global buffer; ") + hex + " is not memory device '" + device->info().name +
               "' reaches (pageable host memory, another device's, or freed)",
           "pass a Buffer of the device (Device::alloc), adopt the memory first (Device::adopt), or, for an address "
           "the driver does not know, Arg::unchecked");
  }
}
}  // namespace

void Batch::pack_args(const KernelInfo& info, const Arg* first, std::size_t count, std::size_t offset, const char* call,
                      const detail::DeviceImpl* device) {
  const std::size_t expected = info.explicit_arg_count();
  if (count != expected) {
    throw Error("batch", std::string(call) + " " + info.name,
                "wrong argument count: got " + std::to_string(count) + ", kernel '" + info.name + "' takes " +
                    std::to_string(expected),
                "check the kernel's signature (hsad-info lists it)");
  }
  // Checked whole before a byte is written: a refused set_args leaves the old arguments.
  std::size_t index = 0;
  const Arg* a = first;
  for (const ArgInfo& slot : info.args) {
    if (slot.kind == ArgKind::hidden) continue;
    const auto refuse = [&](const std::string& what, const char* hint) {
      throw Error("batch", std::string(call) + " " + info.name,
                  "argument " + std::to_string(index) + " ('" + slot.name + "') of kernel '" + info.name + "' " + what,
                  hint);
    };
    if (a->size() != slot.size) {
      refuse("is " + std::to_string(slot.size) + " bytes, got " + std::to_string(a->size()),
             "pass a value of the parameter's exact type");
    }
    if (slot.kind == ArgKind::global_buffer) check_global_buffer(*a, device, refuse);
    ++a;
    ++index;
  }
  a = first;
  for (const ArgInfo& slot : info.args) {
    if (slot.kind == ArgKind::hidden) continue;
    std::memcpy(arena_.data() + offset + slot.offset, a->data(), a->size());
    ++a;
  }
}

Batch& Batch::set_args(std::size_t dispatch, std::initializer_list<Arg> args) {
  return set_args(dispatch, args.begin(), args.size());
}

Batch& Batch::set_args(std::size_t dispatch, const std::vector<Arg>& args) {
  return set_args(dispatch, args.data(), args.size());
}

Batch& Batch::set_args(std::size_t dispatch, const Arg* first, std::size_t count) {
  if (dispatch >= dispatches_.size()) {
    throw Error("batch", "set_args",
                "dispatch " + std::to_string(dispatch) + " of a batch of " + std::to_string(dispatches_.size()) +
                    " dispatches",
                "dispatches are numbered 0 to dispatches().size() - 1 in recording order");
  }
  detail::Dispatch& d = dispatches_[dispatch];
  pack_args(d.kernel.info(), first, count, d.args_offset, "set_args", d.kernel.impl().device);
  d.args_version = ++args_version_;
  if (args_changes_.size() == kArgsChanges) args_changes_.erase(args_changes_.begin(), args_changes_.begin() + kArgsChanges / 2);
  args_changes_.push_back(static_cast<std::uint32_t>(dispatch));
  return *this;
}

Batch& Batch::copy_to_device(const Buffer& dst, const void* src, std::size_t bytes, std::size_t dst_offset) {
  check_bytes(bytes, src, "copy_to_device");
  check_buffer(dst, bytes, dst_offset, "copy_to_device", "destination");
  adopt_device(dst.device(), "copy_to_device");
  detail::Copy c;
  c.kind = detail::CopyKind::to_device;
  c.dst = static_cast<unsigned char*>(dst.device_ptr()) + dst_offset;
  c.src = src;
  c.bytes = bytes;
  c.dst_device = dst.device();
  c.host_pinned = dst.device()->is_pinned(src, bytes);
  copies_.push_back(c);
  push(detail::CommandKind::copy, copies_.size() - 1);
  return *this;
}

Batch& Batch::copy_to_host(void* dst, const Buffer& src, std::size_t bytes, std::size_t src_offset) {
  check_bytes(bytes, dst, "copy_to_host");
  check_buffer(src, bytes, src_offset, "copy_to_host", "source");
  adopt_device(src.device(), "copy_to_host");
  detail::Copy c;
  c.kind = detail::CopyKind::to_host;
  c.dst = dst;
  c.src = static_cast<const unsigned char*>(src.device_ptr()) + src_offset;
  c.bytes = bytes;
  c.src_device = src.device();
  c.host_pinned = src.device()->is_pinned(dst, bytes);
  copies_.push_back(c);
  push(detail::CommandKind::copy, copies_.size() - 1);
  return *this;
}

Batch& Batch::copy(const Buffer& dst, const Buffer& src, std::size_t bytes, std::size_t dst_offset,
                   std::size_t src_offset) {
  if (bytes == 0) throw Error("batch", "copy", "a copy of 0 bytes", "record only copies that move data");
  check_buffer(dst, bytes, dst_offset, "copy", "destination");
  check_buffer(src, bytes, src_offset, "copy", "source");
  if (dst.device()->info().backend != src.device()->info().backend) {
    throw Error("batch", "copy",
                "a copy between devices of different backends (" + src.device()->info().backend + " to " +
                    dst.device()->info().backend + ")",
                "copy to the host from one device, then from the host to the other");
  }
  // A copy between two devices of one backend may go on a queue of either: it names neither.
  if (dst.device()->same_device(src.device())) adopt_device(dst.device(), "copy");
  detail::Copy c;
  c.kind = detail::CopyKind::device_to_device;
  c.dst = static_cast<unsigned char*>(dst.device_ptr()) + dst_offset;
  c.src = static_cast<const unsigned char*>(src.device_ptr()) + src_offset;
  c.bytes = bytes;
  c.dst_device = dst.device();
  c.src_device = src.device();
  c.host_pinned = true;  // no host side
  copies_.push_back(c);
  push(detail::CommandKind::copy, copies_.size() - 1);
  return *this;
}

namespace {
void check_same_backend(const detail::DeviceImpl* mine, const detail::DeviceImpl& theirs, const char* what) {
  if (mine && theirs.info().backend != mine->info().backend) {
    throw Error("batch", "wait",
                "a dependency between devices of different backends (this batch runs on " + mine->info().backend +
                    ", the " + what + " on " + theirs.info().backend + ")",
                "wait for it on the host (Submission::wait), then submit");
  }
}
}  // namespace

Batch& Batch::wait(const Submission& other) {
  std::shared_ptr<detail::CompletionImpl> completion = other.completion();
  if (!completion) throw Error("batch", "wait", "the Submission is empty (moved from, or default-constructed)");
  check_same_backend(device_, completion->device(), "submission ran");
  waits_.push_back({std::move(completion), nullptr, 0});
  push(detail::CommandKind::wait, waits_.size() - 1);
  return *this;
}

Batch& Batch::wait(const Queue& other, std::int64_t offset) {
  if (!other) throw Error("batch", "wait", "the Queue is empty (default-constructed)");
  check_same_backend(device_, other.impl().owner(), "queue runs");
  waits_.push_back({nullptr, other.shared_impl(), offset});
  push(detail::CommandKind::wait, waits_.size() - 1);
  return *this;
}

}  // namespace hsad
