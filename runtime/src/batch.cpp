// Recording commands: a dispatch's arguments are checked against the kernel's layout and packed
// into its kernarg image once; a copy's ranges are checked and its host side classified (pinned
// or pageable) once; a wait takes a reference to the other submission's completion. A
// submission then only copies bytes and writes packets.
#include "hsad/batch.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <tuple>
#include <utility>

#include "backends/backend.hpp"
#include "batch_data.hpp"
#include "dispatch_shape.hpp"
#include "hot_path.hpp"
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
    : data_(o.data_ ? std::make_unique<detail::BatchData>(*o.data_) : nullptr), version_(o.version_),
      args_version_(o.args_version_), id_(next_id()) {}

Batch& Batch::operator=(const Batch& o) {
  if (this != &o) *this = Batch(o);  // the copy's new identity, moved in
  return *this;
}

Batch::Batch(Batch&& o) noexcept
    : data_(std::move(o.data_)), version_(o.version_), args_version_(o.args_version_),
      id_(std::exchange(o.id_, next_id())) {
  ++o.version_;  // the moved-from batch is empty now: a change, as clear() is
}

Batch& Batch::operator=(Batch&& o) noexcept {
  if (this == &o) return *this;
  data_ = std::move(o.data_);
  version_ = o.version_;
  args_version_ = o.args_version_;
  id_ = std::exchange(o.id_, next_id());
  ++o.version_;
  return *this;
}

Batch::Batch() = default;
Batch::~Batch() = default;

namespace {
const detail::BatchData& empty_data() {
  static const detail::BatchData empty;
  return empty;
}
}  // namespace

const detail::BatchData& Batch::data() const { return data_ ? *data_ : empty_data(); }

detail::BatchData& Batch::mutable_data() {
  if (!data_) data_ = std::make_unique<detail::BatchData>();
  return *data_;
}

std::size_t Batch::size() const { return data_ ? data_->commands.size() : 0; }
std::size_t Batch::dispatch_count() const { return data_ ? data_->dispatches.size() : 0; }
const std::vector<detail::Command>& Batch::commands() const { return data().commands; }
const std::vector<detail::Dispatch>& Batch::dispatches() const { return data().dispatches; }
const std::vector<detail::Copy>& Batch::copies() const { return data().copies; }
HSAD_HOT const std::vector<detail::Wait>& Batch::waits() const { return data().waits; }
const std::vector<detail::Loop>& Batch::loops() const { return data().loops; }
HSAD_HOT std::size_t Batch::loop_count() const { return data_ ? data_->loops.size() : 0; }
HSAD_HOT bool Batch::loop_open() const { return data_ && data_->open_loop >= 0; }
const unsigned char* Batch::kernarg_image(std::size_t i) const {
  return data_->arena.data() + data_->dispatches[i].args_offset;
}
const detail::DeviceImpl* Batch::device() const { return data().device; }
const std::shared_ptr<const void>& Batch::code() const { return data().code; }
std::shared_ptr<const std::vector<std::string>> Batch::labels() const { return data().labels; }
std::uint64_t Batch::args_version(std::size_t dispatch) const { return data_->dispatches[dispatch].args_version; }
const std::vector<std::uint32_t>& Batch::args_changes() const { return data().args_changes; }
std::uint64_t Batch::args_changes_from() const { return args_version_ - data().args_changes.size(); }

std::size_t Batch::cooperative_dispatch_count() const { return data_ ? data_->cooperative_dispatches : 0; }

void Batch::clear() {
  data_.reset();  // its dispatch numbers, code and labels go with it
  ++version_;
}

void Batch::push(int kind_value, std::size_t index) {
  const auto kind = static_cast<detail::CommandKind>(kind_value);
  detail::BatchData& d = mutable_data();
  if (d.open_loop >= 0 && kind != detail::CommandKind::exec) {
    // The loop ring runs dispatch packets the device writes; a copy or a wait there would need
    // the host (staging, a signal of another queue) inside the loop.
    if (kind == detail::CommandKind::copy) d.copies.pop_back();
    else d.waits.pop_back();
    throw Error(Errc::invalid_argument, "batch", kind == detail::CommandKind::copy ? "copy" : "wait",
                "a " + std::string(kind == detail::CommandKind::copy ? "copy" : "wait") +
                    " inside the loop begun at command " + std::to_string(d.open_loop) +
                    ": a device-run loop's body holds dispatches only",
                "record it before loop_begin() or after loop_while(), or copy with a kernel");
  }
  d.commands.push_back({kind, static_cast<std::uint32_t>(index)});
  if (!d.labels) d.labels = std::make_shared<std::vector<std::string>>();
  else if (d.labels.use_count() > 1) d.labels = std::make_shared<std::vector<std::string>>(*d.labels);
  switch (kind) {
    case detail::CommandKind::exec: d.labels->push_back(d.dispatches[index].kernel.name()); break;
    case detail::CommandKind::wait: d.labels->push_back("wait"); break;
    case detail::CommandKind::copy:
      d.labels->push_back(d.copies[index].kind == detail::CopyKind::to_device ? "copy_to_device"
                          : d.copies[index].kind == detail::CopyKind::to_host ? "copy_to_host" : "copy");
      break;
  }
  ++version_;
}

// A batch runs on one device: its kernels and the buffers it copies to or from belong to it (a
// device-to-device copy may name a peer of the same backend).
void Batch::adopt_device(detail::DeviceImpl* device, const char* call) {
  if (!mutable_data().device) {
    mutable_data().device = device;
    return;
  }
  if (mutable_data().device->same_device(device)) return;
  throw Error("batch", call,
              "the batch already names device " + mutable_data().device->describe() + "; this names " + device->describe(),
              "record one batch per device; between devices, copy and wait");
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args) {
  return exec(kernel, grid, group, args.begin(), args.size(), false, LaunchConfig{});
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) {
  return exec(kernel, grid, group, args.data(), args.size(), false, LaunchConfig{});
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args,
                   const LaunchConfig& config) {
  return exec(kernel, grid, group, args.begin(), args.size(), false, config);
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args, const LaunchConfig& config) {
  return exec(kernel, grid, group, args.data(), args.size(), false, config);
}

Batch& Batch::exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, std::initializer_list<Arg> args) {
  return exec(kernel, grid, group, args.begin(), args.size(), true, LaunchConfig{});
}

Batch& Batch::exec_partial_groups(const Kernel& kernel, Dim3 grid, Dim3 group, const std::vector<Arg>& args) {
  return exec(kernel, grid, group, args.data(), args.size(), true, LaunchConfig{});
}

void Batch::check_launch_config(const Kernel& kernel, const LaunchConfig& config, const char* call) {
  const KernelInfo& info = kernel.info();
  const detail::DeviceImpl* device = kernel.impl().device;
  const std::uint64_t total = std::uint64_t(info.group_segment_size) + config.dynamic_shared_bytes;
  const std::uint64_t limit = device ? device->info().limits.max_group_memory_bytes : DispatchLimits{}.max_group_memory_bytes;
  if (total > limit) {
    throw Error(Errc::invalid_argument, "batch", std::string(call) + " " + info.name,
                "kernel '" + info.name + "' asks " + std::to_string(total) + " bytes of group memory (" +
                    std::to_string(info.group_segment_size) + " static + " + std::to_string(config.dynamic_shared_bytes) +
                    " dynamic); device '" + (device ? device->info().name : std::string("?")) + "' gives a work-group at most " +
                    std::to_string(limit),
                "ask less dynamic shared memory (LaunchConfig::dynamic_shared_bytes), or use smaller work-groups");
  }
  if (config.dynamic_shared_bytes && device) device->allow_dynamic_group_memory(kernel.impl(), config.dynamic_shared_bytes);
}

void Batch::check_cooperative(const Kernel& kernel, Dim3 grid, Dim3 group, const LaunchConfig& config, const char* call) {
  if (!config.cooperative) return;
  const KernelInfo& info = kernel.info();
  const detail::DeviceImpl* device = kernel.impl().device;
  const std::string where = std::string(call) + " " + info.name;
  const std::uint64_t groups = aql::group_count(grid, group);
  if (!device || device->info().backend == "cpu") {
    // The cpu agent gives a cooperative dispatch a thread per work-group.
    if (groups > kCpuCooperativeGroups) {
      throw Error(Errc::invalid_argument, "batch", where,
                  "a cooperative dispatch of " + std::to_string(groups) + " work-groups of kernel '" + info.name +
                      "'; the cpu agent runs at most " + std::to_string(kCpuCooperativeGroups) +
                      " at once (a thread each): its grid barrier could never complete",
                  "use at most that many work-groups (a grid-stride loop covers the rest)");
    }
    return;
  }
  std::uint32_t per_cu = 0;
  try {
    per_cu = kernel.max_active_groups_per_cu(std::uint32_t(group.volume()), config.dynamic_shared_bytes);
  } catch (const Error& e) {
    if (e.code() != Errc::unsupported) throw;
    return;  // a target the occupancy model does not cover: the device refuses a grid it cannot hold
  }
  const std::uint64_t resident = std::uint64_t(per_cu) * device->info().compute_units;
  if (groups > resident) {
    throw Error(Errc::invalid_argument, "batch", where,
                "a cooperative dispatch of " + std::to_string(groups) + " work-groups of " + std::to_string(group.volume()) +
                    " work-items; device '" + device->info().name + "' holds at most " + std::to_string(resident) +
                    " of kernel '" + info.name + "' at once (" + std::to_string(per_cu) + " per compute unit x " +
                    std::to_string(device->info().compute_units) + "): its grid barrier could never complete",
                "use at most that many work-groups (a grid-stride loop covers the rest)");
  }
}

void Batch::note_args_change(std::size_t dispatch) {
  mutable_data().dispatches[dispatch].args_version = ++args_version_;
  auto& changes = mutable_data().args_changes;
  if (changes.size() == detail::BatchData::kArgsChanges) {
    changes.erase(changes.begin(), changes.begin() + detail::BatchData::kArgsChanges / 2);
  }
  changes.push_back(static_cast<std::uint32_t>(dispatch));
}

void Batch::check_dispatch_index(std::size_t dispatch, const char* call) const {
  if (dispatch < dispatch_count()) return;
  throw Error(Errc::invalid_argument, "batch", call,
              "dispatch " + std::to_string(dispatch) + " of a batch of " + std::to_string(dispatch_count()) + " dispatches",
              "dispatches are numbered 0 to dispatch_count() - 1 in recording order");
}

Batch& Batch::set_launch_config(std::size_t dispatch, const LaunchConfig& config) {
  check_dispatch_index(dispatch, "set_launch_config");
  detail::Dispatch& d = mutable_data().dispatches[dispatch];
  check_launch_config(d.kernel, config, "set_launch_config");
  check_cooperative(d.kernel, d.grid, d.group, config, "set_launch_config");
  if (config.cooperative != d.config.cooperative) {
    throw Error(Errc::invalid_argument, "batch", "set_launch_config " + d.kernel.name(),
                "a dispatch cannot become cooperative, or stop being, without being recorded again (on rocr it "
                "takes a packet of its own)",
                "record the batch again");
  }
  d.config = config;
  note_args_change(dispatch);
  return *this;
}

const LaunchConfig& Batch::launch_config(std::size_t dispatch) const {
  check_dispatch_index(dispatch, "launch_config");
  return data_->dispatches[dispatch].config;
}

Batch& Batch::exec(const Kernel& kernel, Dim3 grid, Dim3 group, const Arg* first, std::size_t count,
                   bool partial_groups, const LaunchConfig& config) {
  if (!kernel) throw Error("batch", "exec", "empty Kernel handle", "get one from Device::kernel(name) or Module::kernel(name)");
  const KernelInfo& info = kernel.info();
  const detail::DeviceImpl* device = kernel.impl().device;
  if (partial_groups && device && device->info().backend == "cuda") {
    throw Error("batch", "exec_partial_groups " + info.name,
                "partial work-groups are HSA's (AQL backends: rocr, the cpu agent); CUDA launches whole blocks only",
                "use exec: the grid is rounded up to whole work-groups and the kernel checks its index");
  }
  if (partial_groups && info.uniform_work_group_size) {
    for (const auto& [g, w, axis] : {std::tuple{grid.x, group.x, "x"}, {grid.y, group.y, "y"}, {grid.z, group.z, "z"}}) {
      if (w != 0 && g % w != 0) {
        throw Error("batch", "exec_partial_groups " + info.name,
                    "kernel '" + info.name + "' was compiled for whole work-groups only (its code object's "
                    ".uniform_work_group_size), and a grid of " + std::to_string(g) + " in groups of " + std::to_string(w) +
                        " in " + axis + " leaves a partial one, whose blockDim and gridDim it would read wrong",
                    "use exec (whole work-groups; the kernel checks its index), or build the kernel with "
                    "-fno-offload-uniform-block");
      }
    }
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
  check_launch_config(kernel, config, "exec");
  check_cooperative(kernel, encoded, group, config, "exec");
  // Each dispatch's image starts 16-byte aligned in the arena, so copying it keeps alignment.
  const std::size_t offset = (mutable_data().arena.size() + 15) & ~std::size_t(15);
  mutable_data().arena.resize(offset + info.kernarg_segment_size, 0);
  try {
    pack_args(info, first, count, offset, "exec", device);
    if (kernel.impl().device) adopt_device(kernel.impl().device, "exec");
  } catch (...) {
    mutable_data().arena.resize(offset);
    throw;
  }
  // Copy-on-write: submissions in flight hold the previous set.
  if (const auto& keep = kernel.impl().keep_alive) {
    const auto* set = static_cast<const CodeSet*>(mutable_data().code.get());
    if (!set || std::find(set->begin(), set->end(), keep) == set->end()) {
      auto grown = std::make_shared<CodeSet>(set ? *set : CodeSet{});
      grown->push_back(keep);
      mutable_data().code = std::move(grown);
    }
  }
  if (config.cooperative && loop_open()) {
    mutable_data().arena.resize(offset);
    throw Error(Errc::invalid_argument, "batch", "exec " + info.name,
                "a cooperative dispatch inside the loop begun at command " + std::to_string(data_->open_loop) +
                    ": its GWS setup is not part of a device-run loop",
                "record it outside the loop");
  }
  mutable_data().dispatches.push_back({kernel, encoded, group, partial_groups, static_cast<std::uint32_t>(offset), 0, config});
  mutable_data().cooperative_dispatches += config.cooperative;
  push(int(detail::CommandKind::exec), mutable_data().dispatches.size() - 1);
  return *this;
}

void Arg::hold(const void* bytes) {
  auto* copy = new unsigned char[size_];
  std::memcpy(copy, bytes, size_);
  heap_ = copy;
}

void Arg::release() noexcept { delete[] heap_; }

Arg Arg::bytes(const void* data, std::size_t size) {
  if (size == 0 || size > 0xffffffffu) {
    throw Error(Errc::invalid_argument, "batch", "Arg::bytes", "a by-value argument of " + std::to_string(size) + " bytes",
                "pass the parameter's bytes: at least 1");
  }
  if (!data) throw Error(Errc::invalid_argument, "batch", "Arg::bytes", "null data for " + std::to_string(size) + " bytes");
  Arg a;
  a.size_ = static_cast<std::uint32_t>(size);
  if (size <= kInline) std::memcpy(a.inline_, data, size);
  else a.hold(data);
  return a;
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
    if (slot.offset % a->alignment() != 0) {
      refuse("is at offset " + std::to_string(slot.offset) + " of the kernarg segment; got a value aligned to " +
                 std::to_string(a->alignment()) + " bytes, which the kernel cannot have declared there",
             "pass a value of the parameter's exact type (alignas included), or Arg::bytes for raw bytes");
    }
    if (slot.kind == ArgKind::global_buffer) check_global_buffer(*a, device, refuse);
    ++a;
    ++index;
  }
  a = first;
  for (const ArgInfo& slot : info.args) {
    if (slot.kind == ArgKind::hidden) continue;
    std::memcpy(mutable_data().arena.data() + offset + slot.offset, a->data(), a->size());
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
  check_dispatch_index(dispatch, "set_args");
  detail::Dispatch& d = mutable_data().dispatches[dispatch];
  pack_args(d.kernel.info(), first, count, d.args_offset, "set_args", d.kernel.impl().device);
  note_args_change(dispatch);
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
  mutable_data().copies.push_back(c);
  push(int(detail::CommandKind::copy), mutable_data().copies.size() - 1);
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
  mutable_data().copies.push_back(c);
  push(int(detail::CommandKind::copy), mutable_data().copies.size() - 1);
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
  detail::Copy c;
  c.kind = detail::CopyKind::device_to_device;
  c.dst = static_cast<unsigned char*>(dst.device_ptr()) + dst_offset;
  c.src = static_cast<const unsigned char*>(src.device_ptr()) + src_offset;
  // No backend's copy is a memmove (hsa_amd_memory_async_copy, cuMemcpyAsync, the cpu agent's
  // pieces in parallel): overlapping ranges would copy what another piece already overwrote.
  // Refused before the batch takes the device: a refused call changes nothing.
  const auto d0 = reinterpret_cast<std::uintptr_t>(c.dst), s0 = reinterpret_cast<std::uintptr_t>(c.src);
  if (d0 < s0 + bytes && s0 < d0 + bytes) {
    throw Error("batch", "copy",
                "the source and destination overlap (" + std::to_string(bytes) + " bytes from offset " +
                    std::to_string(src_offset) + " to offset " + std::to_string(dst_offset) +
                    (dst.device_ptr() == src.device_ptr() ? " of one buffer)" : ")"),
                "copy through a second buffer");
  }
  // A copy between two devices of one backend may go on a queue of either: it names neither.
  if (dst.device()->same_device(src.device())) adopt_device(dst.device(), "copy");
  c.bytes = bytes;
  c.dst_device = dst.device();
  c.src_device = src.device();
  c.host_pinned = true;  // no host side
  mutable_data().copies.push_back(c);
  push(int(detail::CommandKind::copy), mutable_data().copies.size() - 1);
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
  check_same_backend(mutable_data().device, completion->device(), "submission ran");
  mutable_data().waits.push_back({std::move(completion), nullptr, 0});
  push(int(detail::CommandKind::wait), mutable_data().waits.size() - 1);
  return *this;
}

Batch& Batch::wait(const Queue& other, std::int64_t offset) {
  if (!other) throw Error("batch", "wait", "the Queue is empty (default-constructed)");
  check_same_backend(mutable_data().device, other.impl().owner(), "queue runs");
  mutable_data().waits.push_back({nullptr, other.shared_impl(), offset});
  push(int(detail::CommandKind::wait), mutable_data().waits.size() - 1);
  return *this;
}

Batch& Batch::loop_begin() {
  detail::BatchData& d = mutable_data();
  if (d.open_loop >= 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_begin",
                "a loop_begin inside the loop begun at command " + std::to_string(d.open_loop) +
                    ": device-run loops do not nest",
                "close the loop with loop_while first");
  }
  d.open_loop = static_cast<std::int64_t>(d.commands.size());
  ++version_;
  return *this;
}

Batch& Batch::loop_while(const Buffer& condition, std::uint64_t max_iterations, std::size_t offset,
                         std::uint32_t check_every) {
  if (!data_ || data_->open_loop < 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_while", "a loop_while without a loop_begin",
                "record loop_begin() before the loop's commands");
  }
  detail::BatchData& d = *data_;
  const auto first = static_cast<std::uint32_t>(d.open_loop);
  const std::string which = "the loop begun at command " + std::to_string(first);
  if (d.commands.size() == first) {
    throw Error(Errc::invalid_argument, "batch", "loop_while", which + " has no commands",
                "record its dispatches between loop_begin() and loop_while()");
  }
  if (max_iterations == 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_while", which + ": max_iterations is 0",
                "give the most iterations the loop may take (its guard), at least 1");
  }
  if (max_iterations > 0xffffffffu) {
    throw Error(Errc::invalid_argument, "batch", "loop_while",
                which + ": max_iterations " + std::to_string(max_iterations) + " exceeds 2^32 - 1",
                "the device counts iterations in 32 bits");
  }
  if (check_every == 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_while", which + ": check_every is 0",
                "read the condition after every iteration (1) or every k-th (k > 1)");
  }
  if (max_iterations % check_every != 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_while",
                which + ": max_iterations " + std::to_string(max_iterations) + " is not a multiple of check_every " +
                    std::to_string(check_every),
                "the guard is read where the condition is, after whole rounds of check_every iterations");
  }
  const std::uint64_t round = std::uint64_t(d.dispatches.size() - d.commands[first].index) * check_every;
  if (round > 0x7fffffffu) {
    throw Error(Errc::invalid_argument, "batch", "loop_while",
                which + ": a round of check_every " + std::to_string(check_every) + " bodies is " + std::to_string(round) +
                    " dispatches",
                "at most 2^31 - 1: check less rarely, or make the body smaller");
  }
  check_buffer(condition, 4, offset, "loop_while", "condition");
  if (offset % 4 != 0) {
    throw Error(Errc::invalid_argument, "batch", "loop_while",
                which + ": the condition at offset " + std::to_string(offset) + " is not 4-byte aligned",
                "the condition is a 32-bit unsigned value");
  }
  adopt_device(condition.device(), "loop_while");
  detail::Loop loop;
  loop.first_command = first;
  loop.end_command = static_cast<std::uint32_t>(d.commands.size());
  loop.first_dispatch = d.commands[first].index;
  loop.end_dispatch = static_cast<std::uint32_t>(d.dispatches.size());
  loop.condition = reinterpret_cast<std::uint32_t*>(static_cast<unsigned char*>(condition.device_ptr()) + offset);
  loop.max_iterations = max_iterations;
  loop.check_every = check_every;
  d.loops.push_back(loop);
  d.open_loop = -1;
  ++version_;
  return *this;
}

}  // namespace hsad
