// The commands of a batch lowered one by one onto a CUDA stream under the five flags: launches
// (arguments from the kernarg pool or the baseline's own allocation; early launch where the
// kernel waits for its predecessor itself), cuMemcpy*Async, stream waits; the baseline records
// and waits on the host after every command.
#include "backends/cuda/cuda_queue.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "backends/cuda/cuda_lowering.hpp"
#include "backends/cuda/cuda_submission.hpp"

namespace hsad::cuda {
namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

void CudaQueue::write_commands(const Batch& batch, const Options& o, const detail::ResolvedWaits& waits,
                               detail::Clock::time_point deadline, CudaSubmission& sub) {
  const std::size_t count = batch.size();
  std::size_t own_stride = 0;
  if (!o.kernarg && !batch.dispatches().empty()) {
    std::size_t bytes = 0;
    for (auto& d : batch.dispatches()) {
      const std::size_t b = round_up64(d.kernel.info().kernarg_segment_size);
      bytes = o.nosync ? bytes + b : std::max(bytes, b);
    }
    sub.own_kernarg = std::aligned_alloc(64, std::max<std::size_t>(bytes, 64));
    counters_.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  }
  if (o.profile) sub.timed.reserve(count);
  bool previous_was_launch = false;
  for (std::size_t i = 0; i < count; ++i) {
    const detail::Command& c = batch.commands()[i];
    CUevent start = nullptr;
    if (o.profile && c.kind != detail::CommandKind::wait) {
      start = timing_event();
      check(counted(d_.cuEventRecord(start, stream_)), "cuEventRecord");
    }
    switch (c.kind) {
      case detail::CommandKind::exec: {
        const detail::Dispatch& d = batch.dispatches()[c.index];
        const std::size_t kbytes = d.kernel.info().kernarg_segment_size;
        void* args;
        std::optional<KernargPool::Block> block;
        if (o.kernarg) {
          while (!(block = kernarg_pool_.try_acquire(kbytes))) std::this_thread::yield();
          args = block->ptr;
        } else {
          args = static_cast<unsigned char*>(sub.own_kernarg) + own_stride;
          if (o.nosync) own_stride += round_up64(kbytes);
        }
        if (kbytes) std::memcpy(args, batch.kernarg_image(c.index), kbytes);
        // With nosync the host no longer separates the kernels: the barrier bit becomes an
        // in-kernel wait, so the next launch can overlap the end of the one before. Only for a
        // kernel that waits for it (the library's own: HSAD_BARRIER_WAIT; an application's that
        // says so, LaunchConfig::early_launch), right after a launch.
        const bool early = o.nosync && early_launch_ && previous_was_launch && !o.profile &&
                           (d.kernel.impl().early_launch_ok || d.config.early_launch);
        launch(d, args, kbytes, early);
        // cuLaunchKernel has copied the argument buffer: the block is free again at once.
        if (block) kernarg_pool_.release(block->ticket);
        previous_was_launch = true;
        if (o.profile) sub.timed.push_back({std::uint32_t(i), d.kernel.name(), start, nullptr, true});
        break;
      }
      case detail::CommandKind::copy:
        copy(batch.copies()[c.index]);
        previous_was_launch = false;
        if (o.profile) sub.timed.push_back({std::uint32_t(i), copy_name(batch.copies()[c.index].kind), start, nullptr, true});
        break;
      case detail::CommandKind::wait:
        wait_for(waits, c.index);
        previous_was_launch = false;
        break;
    }
    if (start) {
      sub.timed.back().end = timing_event();
      check(counted(d_.cuEventRecord(sub.timed.back().end, stream_)), "cuEventRecord");
    }
    if (!o.nosync) {
      record_signal(sub.signal);
      try {
        wait(sub.signal, deadline, &sub);
      } catch (const detail::TimeoutError& e) {
        // The baseline waits after each command: this one still runs; the queue keeps its signal.
        abandon(sub.signal, sub.pooled, sub.describe() + " timed out in " +
                                    detail::describe_commands(*sub.labels, i, i) + " and still runs");
        sub.signal = {};
        sub.pooled = 0;
        throw;
      } catch (const Error& e) {
        sub.failed_command = std::int64_t(i);
        throw Error(e.code(), e.backend(), e.call(), e.status() + " in " + detail::describe_commands(*sub.labels, i, i),
                    e.hint());
      }
    }
  }
  if (o.nosync) {
    record_signal(sub.signal);
    sub.set_pending();
  } else {
    sub.completed_on_the_host();
  }
}

}  // namespace hsad::cuda
