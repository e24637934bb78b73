// Lowering a batch onto an AQL ring. One pass over the commands, no allocation per dispatch:
// the state carried between commands is what the next packet must wait for (async copies, other
// submissions), whether it must acquire at system scope, and which signal the last packet holds.
#include "backends/aql/aql_batch_writer.hpp"

#include <cstring>

#include "aql_packets/fence_policy.hpp"
#include "aql_packets/hidden_args.hpp"
#include "hsad/error.hpp"
#include "loop_control.hpp"

namespace hsad::detail {

namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }

const char* copy_name(CopyKind k) {
  switch (k) {
    case CopyKind::to_device: return "copy_to_device";
    case CopyKind::to_host: return "copy_to_host";
    default: return "copy";
  }
}
}  // namespace

AqlBatchWriter::AqlBatchWriter(AqlQueue& queue, const Batch& batch, const ResolvedWaits& waits, const Options& options,
                               Clock::time_point deadline, AqlSubmission& sub)
    : q_(queue), agent_(queue.agent()), ring_(queue.ring()), counters_(queue.counters()), batch_(batch), waits_(waits),
      o_(options),
      deadline_(deadline), sub_(sub), copies_in_ring_(queue.agent().copies_in_ring()),
      behind_earlier_work_(!copies_in_ring_ && !batch.copies().empty() && queue.earlier_work_in_flight()) {}

std::size_t AqlBatchWriter::signals_needed() const {
  if (o_.profile) return batch_.size() + batch_.size() / kMaxDeps + 2;
  if (!o_.nosync || copies_in_ring_) return 0;
  return 2 * batch_.copies().size() + 1;
}

hsa_signal_t AqlBatchWriter::signal_for(bool last, bool edge) {
  // Profiling reads each step's times after the wait, so each step needs a signal of its own.
  const bool own = o_.profile || (o_.nosync && edge && !last);
  if (own) {
    const HeldSignal h = q_.take_signal(o_.signal, false, deadline_);
    sub_.extra.push_back(h);
    return h.signal;
  }
  if (!o_.nosync || last) return sub_.step.signal;
  return {0};
}

void AqlBatchWriter::publish(void* slot, const aql::Header& header, std::uint16_t setup, hsa_signal_t signal) {
  aql::publish(slot, aql::encode(header), setup);
  q_.count_packets(1);
  counters_.system_fences.fetch_add((header.acquire == aql::Scope::system) + (header.release == aql::Scope::system),
                                    std::memory_order_relaxed);
  sub_.has_published = true;
  sub_.doorbell_pending = true;
  system_acquire_next_ = false;
  ring_since_copy_ = true;
  tail_unsignalled_ = signal.handle == 0;
  behind_earlier_work_ = false;  // the ring's order now covers the earlier submissions
}

void AqlBatchWriter::after_step(hsa_signal_t signal, const char* what) {
  if (signal.handle) last_signal_ = signal;
  if (o_.nosync) return;
  // The baseline: ring, and wait on the host before the next command.
  if (sub_.doorbell_pending) {
    q_.ring_doorbell(sub_.last_published);
    sub_.doorbell_pending = false;
  }
  q_.wait_zero(signal, deadline_, what, &sub_);
  sub_.release_tickets();
}

void AqlBatchWriter::record_time(std::uint32_t command, const std::string& what, hsa_signal_t signal, bool async_copy) {
  if (o_.profile) sub_.timed.push_back({command, what, signal, async_copy});
}

void AqlBatchWriter::count_copy(const Copy& c) {
  counters_.copies.fetch_add(1, std::memory_order_relaxed);
  counters_.bytes_copied.fetch_add(c.bytes, std::memory_order_relaxed);
  if (!c.host_pinned) counters_.bytes_staged.fetch_add(c.bytes, std::memory_order_relaxed);
}

void AqlBatchWriter::flush_deps(hsa_signal_t completion, bool system_after) {
  if (dep_count_ == 0 && completion.handle == 0) return;
  const std::uint64_t mask = ring_.size() - 1;
  int done = 0;
  do {
    const int take = std::min(kMaxDeps, dep_count_ - done);
    const bool final_packet = done + take >= dep_count_;
    const hsa_signal_t signal = final_packet ? completion : hsa_signal_t{0};
    const aql::Fences f = aql::fences_between(system_acquire_next_ || deps_need_system_, final_packet && system_after, o_.fence);
    if (signal.handle) agent_.store_signal(signal, 1);
    const std::uint64_t index = q_.reserve_slot(deadline_, sub_);
    q_.note_slot(index, 0, 0);
    auto* slot = static_cast<hsa_barrier_and_packet_t*>(ring_.base()) + (index & mask);
    aql::write_barrier_body(slot, deps_ + done, take, signal);
    sub_.last_published = index;
    publish(slot, {HSA_PACKET_TYPE_BARRIER_AND, true, f.acquire, f.release}, 0, signal);
    done += take;
  } while (done < dep_count_);
  dep_count_ = 0;
  deps_need_system_ = false;
  foreign_deps_ = false;
}

// Before a cooperative dispatch: hsad_gws_init for its grid, its kernarg block from the pool; none
// where the agent has no such kernel (the software agent marks the packet instead).
void AqlBatchWriter::write_gws_init(std::uint32_t command, const Dispatch& d) {
  const std::shared_ptr<const KernelImpl> init = agent_.gws_init_kernel();
  if (!init) return;
  const std::size_t kbytes = init->info.kernarg_segment_size;
  const KernargPool::Block block = q_.acquire_block(kbytes, deadline_, sub_);
  sub_.tickets.push_back(block.ticket);
  aql::write_gws_init(block.ptr, *init, d, agent_.grid_sync_block());
  counters_.kernarg_writes.fetch_add(1, std::memory_order_relaxed);
  const aql::Fences f = aql::fences_between(system_acquire_next_, false, o_.fence);
  const std::uint64_t slot_index = q_.reserve_slot(deadline_, sub_);
  q_.note_slot(slot_index, sub_.serial, command);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(ring_.base()) + (slot_index & (ring_.size() - 1));
  aql::write_dispatch_body(slot, {Dim3{1}, Dim3{1}, init->info.private_segment_size, init->info.group_segment_size,
                                  init->kernel_object, block.ptr, {0}});
  sub_.last_published = slot_index;
  publish(slot, {HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release}, aql::dispatch_setup(Dim3{1}, Dim3{1}), {0});
}

void AqlBatchWriter::write_dispatch(std::uint32_t command, std::uint32_t index, bool last, bool before_copy) {
  flush_deps();
  const Dispatch& d = batch_.dispatches()[index];
  if (d.config.cooperative) write_gws_init(command, d);
  const KernelImpl& k = d.kernel.impl();
  const std::size_t kbytes = k.info.kernarg_segment_size;
  void* kernarg;
  if (o_.kernarg) {
    const KernargPool::Block block = q_.acquire_block(kbytes, deadline_, sub_);
    sub_.tickets.push_back(block.ticket);
    kernarg = block.ptr;
  } else {
    kernarg = static_cast<unsigned char*>(sub_.own_kernarg) + own_stride_;
    if (o_.nosync) own_stride_ += round_up64(kbytes);
  }
  if (kbytes != 0) std::memcpy(kernarg, batch_.kernarg_image(index), kbytes);  // no-argument kernels have no image
  counters_.kernarg_writes.fetch_add(1, std::memory_order_relaxed);
  if (!k.hidden_args.empty()) {
    aql::fill_hidden_args(k.hidden_args, kernarg, d.grid, d.group, hidden_context(d, agent_, ring_.native()));
  }

  // An async copy after this dispatch waits for its signal.
  const bool edge = before_copy && !copies_in_ring_;
  const hsa_signal_t signal = signal_for(last, edge);
  if (signal.handle) agent_.store_signal(signal, 1);
  const aql::Fences f = aql::fences_between(system_acquire_next_, last || before_copy, o_.fence);
  const std::uint64_t slot_index = q_.reserve_slot(deadline_, sub_);
  q_.note_slot(slot_index, sub_.serial, command);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(ring_.base()) + (slot_index & (ring_.size() - 1));
  aql::write_dispatch_body(slot, {d.grid, d.group, k.info.private_segment_size, d.group_memory(), k.kernel_object,
                                  kernarg, signal,
                                  d.config.cooperative && agent_.marks_cooperative() ? aql::kCooperativeMark : 0});
  sub_.last_published = slot_index;
  publish(slot, {HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release}, aql::dispatch_setup(d.grid, d.group),
          signal);
  last_ring_signal_ = edge ? signal : hsa_signal_t{0};
  record_time(command, k.info.name, signal, false);
  after_step(signal, "dispatch completion");
}

void AqlBatchWriter::write_ring_copy(std::uint32_t command, const Copy& c, bool last) {
  flush_deps();
  const hsa_signal_t signal = signal_for(last, false);
  if (signal.handle) agent_.store_signal(signal, 1);
  count_copy(c);
  const std::uint64_t index = q_.reserve_slot(deadline_, sub_);
  q_.note_slot(index, sub_.serial, command);
  auto* slot = static_cast<hsa_agent_dispatch_packet_t*>(ring_.base()) + (index & (ring_.size() - 1));
  aql::write_copy_body(slot, c.dst, c.src, c.bytes, c.host_pinned ? 0 : aql::kCopyStaged, signal);
  sub_.last_published = index;
  // The host's memory is on one side of it: system scope both ways, whatever the fence flag.
  publish(slot, {HSA_PACKET_TYPE_AGENT_DISPATCH, true, aql::Scope::system, aql::Scope::system}, aql::kAgentCopy, signal);
  system_acquire_next_ = true;
  record_time(command, copy_name(c.kind), signal, false);
  after_step(signal, "copy completion");
}

void AqlBatchWriter::write_async_copy(std::uint32_t command, const Copy& c, bool last) {
  if (behind_earlier_work_) {
    // Submissions on one queue run in order, as a stream's do: a barrier-AND (its barrier bit:
    // after every earlier packet of the ring) gives the copy a signal that says the ring is done.
    if (o_.nosync) {
      ring_since_copy_ = true;  // the edge below is that barrier
    } else {
      flush_deps(sub_.step.signal, true);
      after_step(sub_.step.signal, "the queue's earlier submissions");
    }
    behind_earlier_work_ = false;
  }
  hsa_signal_t deps[kMaxDeps + 1];
  std::uint32_t count = 0;
  if (o_.nosync) {
    // The copy must start after every earlier packet: the last one's signal says so. Where the
    // last packet carries none, or other submissions are waited for, a barrier-AND in this ring
    // gives one: the driver's copy engine, which every queue shares, then waits only for
    // signals of this submission, which it can release if the queue fails.
    if ((ring_since_copy_ && last_ring_signal_.handle == 0) || foreign_deps_) {
      const hsa_signal_t edge = signal_for(false, true);
      flush_deps(edge, true);
      last_ring_signal_ = edge;
    }
    for (int i = 0; i < dep_count_; ++i) deps[count++] = deps_[i];
    if (ring_since_copy_) {
      deps[count++] = last_ring_signal_;
      sub_.copy_edges.push_back(last_ring_signal_);
    }
  }
  dep_count_ = 0;
  deps_need_system_ = false;
  const hsa_signal_t done = signal_for(last, true);
  agent_.store_signal(done, 1);
  count_copy(c);
  sub_.has_published = true;
  agent_.async_copy(c, deps, count, done, sub_.locked);
  sub_.copy_done.push_back(done);
  if (o_.nosync) {
    deps_[0] = done;  // the next packet waits for the copy
    dep_count_ = 1;
    deps_need_system_ = true;
  }
  ring_since_copy_ = false;
  last_ring_signal_ = {0};
  system_acquire_next_ = true;
  tail_unsignalled_ = false;
  record_time(command, copy_name(c.kind), done, true);
  after_step(done, "copy completion");
}

void AqlBatchWriter::add_wait(const CompletionImpl* w) {
  if (!w) return;  // nothing left to wait for (a timeline wait for a released submission, or number 0)
  // Backends were matched before writing: an AQL queue waits only for AQL submissions.
  const auto& other = static_cast<const AqlCompletion&>(*w);
  const hsa_signal_t s = other.signal();
  if (s.handle == 0) return;  // it had completed before this batch was recorded or submitted
  counters_.device_waits.fetch_add(1, std::memory_order_relaxed);
  if (dep_count_ == kMaxDeps) flush_deps();
  deps_[dep_count_++] = s;
  // Another device's work, or the application's (its producer may be the host or any agent):
  // what it wrote becomes visible only at system scope.
  if (other.external() || !q_.device().same_device(&other.device())) deps_need_system_ = true;
  foreign_deps_ = true;
  if (!o_.nosync) {
    const hsa_signal_t signal = signal_for(false, false);
    flush_deps(signal, false);
    after_step(signal, "a submission this batch waits for");
  }
}

void AqlBatchWriter::write_loop(std::size_t index) {
  const Loop& l = batch_.loops()[index];
  flush_deps();
  const std::shared_ptr<const KernelImpl> control = agent_.loop_control_kernel();
  AqlRing& lr = q_.loop_ring();
  const std::uint32_t body = l.end_dispatch - l.first_dispatch;
  // One block: the program, the body's packets, the control and done packets, the control
  // kernel's two kernarg segments (the launch's and the loop ring's).
  const std::size_t program_bytes = round_up64(sizeof(loop::Program));
  const std::size_t control_args = round_up64(std::max<std::size_t>(control->info.kernarg_segment_size, sizeof(loop::ControlArgs)));
  const std::size_t bytes = program_bytes + (std::size_t(body) + 2) * aql::kPacketBytes + 2 * control_args;
  const KernargPool::Block block = q_.acquire_block(bytes, deadline_, sub_);
  sub_.tickets.push_back(block.ticket);
  auto* base = static_cast<unsigned char*>(block.ptr);
  auto* program = new (base) loop::Program;
  auto* packets = reinterpret_cast<hsa_kernel_dispatch_packet_t*>(base + program_bytes);
  auto* args = base + program_bytes + (std::size_t(body) + 2) * aql::kPacketBytes;
  const auto header_word = [](const aql::Header& h, std::uint16_t setup) {
    return std::uint32_t(aql::encode(h)) | (std::uint32_t(setup) << 16);
  };
  // The body: each dispatch's packet as the loop ring takes it, over a kernarg block of its own
  // that every iteration reads (its hidden arguments name the loop ring).
  const aql::Header in_loop{HSA_PACKET_TYPE_KERNEL_DISPATCH, true, aql::Scope::agent, aql::Scope::agent};
  for (std::uint32_t i = 0; i < body; ++i) {
    const Dispatch& d = batch_.dispatches()[l.first_dispatch + i];
    const KernelImpl& k = d.kernel.impl();
    const std::size_t kbytes = k.info.kernarg_segment_size;
    const KernargPool::Block kb = q_.acquire_block(std::max<std::size_t>(kbytes, 1), deadline_, sub_);
    sub_.tickets.push_back(kb.ticket);
    if (kbytes != 0) std::memcpy(kb.ptr, batch_.kernarg_image(l.first_dispatch + i), kbytes);
    if (!k.hidden_args.empty()) {
      aql::fill_hidden_args(k.hidden_args, kb.ptr, d.grid, d.group, hidden_context(d, agent_, lr.native()));
    }
    counters_.kernarg_writes.fetch_add(1, std::memory_order_relaxed);
    aql::write_dispatch_body(&packets[i], {d.grid, d.group, k.info.private_segment_size, d.group_memory(),
                                           k.kernel_object, kb.ptr, {0}});
    *reinterpret_cast<std::uint32_t*>(&packets[i]) = header_word(in_loop, aql::dispatch_setup(d.grid, d.group));
  }
  // The control kernel: one work-item, after the body (barrier bit), seeing what it wrote.
  auto* loop_args = reinterpret_cast<loop::ControlArgs*>(args);
  auto* launch_args = reinterpret_cast<loop::ControlArgs*>(args + control_args);
  // The loop ring's launches read the working copy the first launch takes, where the queue has
  // a working area; the launch from the queue's ring reads the host's program.
  const AqlQueue::LoopWorking* working = q_.loop_working();
  *loop_args = {working ? reinterpret_cast<std::uint64_t>(working->ptr) : reinterpret_cast<std::uint64_t>(program), 0, 0};
  *launch_args = {reinterpret_cast<std::uint64_t>(program), 1, 0};
  aql::write_dispatch_body(&packets[body], {Dim3{1}, Dim3{1}, control->info.private_segment_size,
                                            control->info.group_segment_size, control->kernel_object, loop_args, {0}});
  *reinterpret_cast<std::uint32_t*>(&packets[body]) = header_word(in_loop, aql::dispatch_setup(Dim3{1}, Dim3{1}));
  // The end: a barrier-AND that decrements the done signal, releasing everything the loop wrote
  // (and the program's count) to the host and the queue's ring.
  const HeldSignal done = q_.take_signal(o_.signal, false, deadline_);
  sub_.extra.push_back(done);
  agent_.store_signal(done.signal, 1);
  auto* done_packet = reinterpret_cast<hsa_barrier_and_packet_t*>(&packets[body + 1]);
  aql::write_barrier_body(done_packet, nullptr, 0, done.signal);
  *reinterpret_cast<std::uint32_t*>(done_packet) =
      header_word({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::agent, aql::Scope::system}, 0);

  const AqlRing::DeviceView view = lr.device_view();
  program->ring_base = view.base;
  program->ring_mask = view.mask;
  program->write_index = view.write_index;
  program->read_index = view.read_index;
  program->doorbell = view.doorbell;
  program->condition = reinterpret_cast<std::uint64_t>(l.condition);
  program->body = reinterpret_cast<std::uint64_t>(packets);
  program->control_packet = reinterpret_cast<std::uint64_t>(&packets[body]);
  program->done_packet = reinterpret_cast<std::uint64_t>(done_packet);
  program->body_packets = body;
  program->chunk = static_cast<std::uint32_t>(view.mask + 1 - 2);
  program->max_iterations = static_cast<std::uint32_t>(l.max_iterations);
  program->check_every = l.check_every;
  if (working) {
    program->working = reinterpret_cast<std::uint64_t>(working->ptr);
    program->working_packets = body + 2 <= working->packets ? body + 2 : 0;
  }
  sub_.loop_programs.push_back(program);

  // In the queue's ring: the launch, then the wait for the loop's end.
  const aql::Fences f = aql::fences_between(system_acquire_next_, false, o_.fence);
  const std::uint64_t slot_index = q_.reserve_slot(deadline_, sub_);
  q_.note_slot(slot_index, sub_.serial, l.first_command);
  auto* slot = static_cast<hsa_kernel_dispatch_packet_t*>(ring_.base()) + (slot_index & (ring_.size() - 1));
  aql::write_dispatch_body(slot, {Dim3{1}, Dim3{1}, control->info.private_segment_size, control->info.group_segment_size,
                                  control->kernel_object, launch_args, {0}});
  sub_.last_published = slot_index;
  publish(slot, {HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, aql::Scope::agent}, aql::dispatch_setup(Dim3{1}, Dim3{1}),
          {0});
  counters_.device_loops.fetch_add(1, std::memory_order_relaxed);
  deps_[dep_count_++] = done.signal;  // what the next packet waits for (flush_deps left none)
  if (!o_.nosync) {
    // The baseline waits for the loop on the host, as for every command.
    const hsa_signal_t signal = signal_for(false, false);
    flush_deps(signal, true);
    after_step(signal, "a device-run loop");
  }
}

void AqlBatchWriter::write() {
  const auto& commands = batch_.commands();
  const std::size_t n = commands.size();
  if (o_.kernarg) sub_.tickets.reserve(batch_.dispatches().size());  // no allocation per dispatch
  if (o_.profile) sub_.timed.reserve(n);
  std::size_t next_loop = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (next_loop < batch_.loops().size() && batch_.loops()[next_loop].first_command == i) {
      // The loop's body goes to the loop ring; the batch goes on after it.
      const std::size_t end = batch_.loops()[next_loop].end_command;
      write_loop(next_loop++);
      i = end - 1;
      continue;
    }
    const Command& c = commands[i];
    const bool last = i + 1 == n;
    const bool before_copy = !last && commands[i + 1].kind == CommandKind::copy;
    const auto command = static_cast<std::uint32_t>(i);
    switch (c.kind) {
      case CommandKind::exec:
        write_dispatch(command, c.index, last, before_copy);
        break;
      case CommandKind::copy:
        if (copies_in_ring_) write_ring_copy(command, batch_.copies()[c.index], last);
        else write_async_copy(command, batch_.copies()[c.index], last);
        break;
      case CommandKind::wait:
        add_wait(waits_[c.index].get());
        break;
    }
  }
  if (!o_.nosync) return;  // every command was waited for on the host
  // The submission completes with the last signal, unless packets or dependencies come after it.
  hsa_signal_t final = last_signal_;
  const bool only_the_last_copy = dep_count_ == 1 && deps_[0].handle == last_signal_.handle;
  if (tail_unsignalled_ || (dep_count_ > 0 && !only_the_last_copy)) {
    final = signal_for(true, false);
    flush_deps(final, true);
  }
  if (sub_.doorbell_pending) {
    q_.ring_doorbell(sub_.last_published);
    sub_.doorbell_pending = false;
  }
  sub_.final_signal = final;
}

}  // namespace hsad::detail
