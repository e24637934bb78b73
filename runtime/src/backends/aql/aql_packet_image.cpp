// Encoding a batch once for replay: the same packets AqlBatchWriter writes under nosync (barrier
// bit on each, the fence policy's scopes, completion on the last), into plain memory instead of
// the ring. Waits acquire at system scope (the other submission may be another device's, which
// is only known when each submit resolves the wait), and so does the packet after a copy.
#include "backends/aql/aql_packet_image.hpp"

#include <cstring>

#include "aql_packets/fence_policy.hpp"
#include "aql_packets/hidden_args.hpp"
#include "backends/backend.hpp"

namespace hsad::detail {
namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

bool AqlPacketImage::replayable(const Batch& batch, const Options& o, const AqlAgent& agent) {
  (void)agent;
  // A device-run loop's packets are written by the device, from a program each submission
  // gets (AqlBatchWriter::write_loop): such a batch is lowered on every submit.
  return o.replay && o.nosync && !batch.empty() && batch.loops().empty();
}

namespace {
// The dispatch's kernarg block: its recorded (or set_args) explicit arguments, its hidden ones.
void write_block(void* kernarg, const Batch& batch, std::size_t dispatch, AqlAgent& agent, std::uint64_t queue) {
  const Dispatch& d = batch.dispatches()[dispatch];
  const KernelImpl& k = d.kernel.impl();
  if (const std::size_t bytes = k.info.kernarg_segment_size) std::memcpy(kernarg, batch.kernarg_image(dispatch), bytes);
  if (!k.hidden_args.empty()) {
    aql::fill_hidden_args(k.hidden_args, kernarg, d.grid, d.group, hidden_context(d, agent, queue));
  }
}
}  // namespace

AqlPacketImage::AqlPacketImage(AqlAgent& agent, std::uint64_t queue, const Batch& batch, const Options& o)
    : agent_(agent), queue_(queue), version_(batch.version()), args_version_(batch.args_version()),
      code_(batch.code()), labels_(batch.labels()) {
  for (const Dispatch& d : batch.dispatches()) kernarg_bytes_ += round_up64(d.kernel.info().kernarg_segment_size);
  // A cooperative dispatch follows a packet of hsad_gws_init for its grid (its block is here too).
  const std::shared_ptr<const KernelImpl> gws_init = batch.cooperative_dispatch_count() ? agent_.gws_init_kernel() : nullptr;
  if (gws_init) kernarg_bytes_ += batch.cooperative_dispatch_count() * round_up64(gws_init->info.kernarg_segment_size);
  if (kernarg_bytes_) kernarg_ = agent_.alloc_kernarg(kernarg_bytes_);
  std::size_t kernarg_offset = 0;

  const auto& commands = batch.commands();
  packets_.reserve(commands.size() + 2 * batch.copies().size());
  const bool async = !agent_.copies_in_ring();
  bool system_before = true;  // the first packet follows the host
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    const bool last = i + 1 == commands.size();
    const bool before_copy = !last && commands[i + 1].kind == CommandKind::copy;
    if (async && c.kind == CommandKind::copy) {
      // The driver's copy engine: the ring packet before signals an edge, the copy's own signal
      // holds a barrier-AND before the next ring packet (none between two copies: they chain).
      if (!packets_.empty() && packets_.back().copy < 0) packets_.back().edge = true;
      Packet cp;
      cp.command = static_cast<std::uint32_t>(i);
      cp.copy = static_cast<std::int32_t>(c.index);
      packets_.push_back(cp);
      ++async_copies_;
      if (!last && commands[i + 1].kind != CommandKind::copy) {
        Packet after;
        after.command = static_cast<std::uint32_t>(i);
        aql::write_barrier_body(reinterpret_cast<hsa_barrier_and_packet_t*>(&after.bytes), nullptr, 0, {0});
        const aql::Fences f = aql::fences_between(true, false, o.fence);
        const aql::Header header{HSA_PACKET_TYPE_BARRIER_AND, true, f.acquire, f.release};
        after.header = aql::encode(header);
        after.wait = kAfterCopy;
        system_fences_ += (header.acquire == aql::Scope::system) + (header.release == aql::Scope::system);
        packets_.push_back(after);
        ++ring_packets_;
      }
      system_before = false;  // the barrier-AND behind the copy acquired at system scope
      continue;
    }
    Packet p;
    p.command = static_cast<std::uint32_t>(i);
    void* slot = &p.bytes;
    aql::Header header;
    switch (c.kind) {
      case CommandKind::exec: {
        const Dispatch& d = batch.dispatches()[c.index];
        const KernelImpl& k = d.kernel.impl();
        if (d.config.cooperative && gws_init) {
          Packet init;
          init.command = p.command;
          void* block = static_cast<unsigned char*>(kernarg_) + kernarg_offset;
          aql::write_gws_init(block, *gws_init, d, agent_.grid_sync_block());
          gws_blocks_.push_back({packets_.size(), kernarg_offset, 0});
          kernarg_offset += round_up64(gws_init->info.kernarg_segment_size);
          aql::write_dispatch_body(reinterpret_cast<hsa_kernel_dispatch_packet_t*>(&init.bytes),
                                   {Dim3{1}, Dim3{1}, gws_init->info.private_segment_size,
                                    gws_init->info.group_segment_size, gws_init->kernel_object, block, {0}});
          const aql::Fences f = aql::fences_between(system_before, false, o.fence);
          const aql::Header h{HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release};
          init.header = aql::encode(h);
          init.setup = aql::dispatch_setup(Dim3{1}, Dim3{1});
          system_fences_ += (h.acquire == aql::Scope::system) + (h.release == aql::Scope::system);
          packets_.push_back(init);
          ++ring_packets_;
          system_before = false;
        }
        const std::size_t bytes = k.info.kernarg_segment_size;
        void* kernarg = static_cast<unsigned char*>(kernarg_) + kernarg_offset;
        blocks_.push_back({packets_.size(), kernarg_offset, batch.args_version(c.index)});
        kernarg_offset += round_up64(bytes);
        write_block(kernarg, batch, c.index, agent_, queue_);
        aql::write_dispatch_body(static_cast<hsa_kernel_dispatch_packet_t*>(slot),
                                 {d.grid, d.group, k.info.private_segment_size, d.group_memory(),
                                  k.kernel_object, bytes ? kernarg : nullptr, {0},
                                  d.config.cooperative && agent_.marks_cooperative() ? aql::kCooperativeMark : 0});
        const aql::Fences f = aql::fences_between(system_before, last || before_copy, o.fence);
        header = {HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release};
        p.setup = aql::dispatch_setup(d.grid, d.group);
        p.timed = true;
        system_before = false;
        ++dispatches_;
        break;
      }
      case CommandKind::copy: {
        const Copy& cp = batch.copies()[c.index];
        aql::write_copy_body(static_cast<hsa_agent_dispatch_packet_t*>(slot), cp.dst, cp.src, cp.bytes,
                             cp.host_pinned ? 0 : aql::kCopyStaged, {0});
        header = {HSA_PACKET_TYPE_AGENT_DISPATCH, true, aql::Scope::system, aql::Scope::system};
        p.setup = aql::kAgentCopy;
        p.timed = true;
        system_before = true;
        break;
      }
      case CommandKind::wait: {
        aql::write_barrier_body(static_cast<hsa_barrier_and_packet_t*>(slot), nullptr, 0, {0});
        // Before an async copy its signal is the copy's edge: what the ring wrote must be visible
        // to the copy engine, as for a dispatch before one.
        const aql::Fences f = aql::fences_between(true, last || (async && before_copy), o.fence);
        header = {HSA_PACKET_TYPE_BARRIER_AND, true, f.acquire, f.release};
        p.wait = static_cast<std::int32_t>(c.index);
        system_before = false;
        break;
      }
    }
    p.header = aql::encode(header);
    system_fences_ += (header.acquire == aql::Scope::system) + (header.release == aql::Scope::system);
    packets_.push_back(p);
    ++ring_packets_;
  }
  copies_ = batch.copies().size();
  find_plain();
}

std::size_t AqlPacketImage::update_args(const Batch& batch) {
  std::size_t written = 0;
  const auto rewrite = [&](std::size_t i) {
    if (blocks_[i].args_version == batch.args_version(i)) return;  // already written (a dispatch changed twice)
    write_block(static_cast<unsigned char*>(kernarg_) + blocks_[i].offset, batch, i, agent_, queue_);
    // set_launch_config counts as an argument change: the packet's group segment follows it.
    packets_[blocks_[i].packet].bytes.group_segment_size = batch.dispatches()[i].group_memory();
    blocks_[i].args_version = batch.args_version(i);
    ++written;
  };
  if (args_version_ >= batch.args_changes_from()) {
    // The batch still lists every call since this image was written: just those dispatches.
    const auto& changes = batch.args_changes();
    for (std::size_t j = std::size_t(args_version_ - batch.args_changes_from()); j < changes.size(); ++j) rewrite(changes[j]);
  } else {
    for (std::size_t i = 0; i < blocks_.size(); ++i) rewrite(i);
  }
  args_version_ = batch.args_version();
  return written;
}

void AqlPacketImage::find_plain() {
  plain_ = async_copies_ == 0;
  for (const Packet& p : packets_) {
    if (p.copy >= 0 || p.wait != -1 || p.edge) plain_ = false;
  }
}

std::shared_ptr<AqlPacketImage> AqlPacketImage::clone() const {
  auto c = std::make_shared<AqlPacketImage>(agent_, queue_, version_);
  c->packets_ = packets_;
  c->system_fences_ = system_fences_;
  c->dispatches_ = dispatches_;
  c->ring_packets_ = ring_packets_;
  c->plain_ = plain_;
  c->copies_ = copies_;
  c->code_ = code_;
  c->labels_ = labels_;
  c->async_copies_ = async_copies_;
  c->kernarg_bytes_ = kernarg_bytes_;
  c->args_version_ = args_version_;
  c->blocks_ = blocks_;
  c->gws_blocks_ = gws_blocks_;
  if (kernarg_bytes_) {
    c->kernarg_ = agent_.alloc_kernarg(kernarg_bytes_);
    std::memcpy(c->kernarg_, kernarg_, kernarg_bytes_);
    for (const Block& b : c->blocks_) {
      c->packets_[b.packet].bytes.kernarg_address = static_cast<unsigned char*>(c->kernarg_) + b.offset;
    }
    for (const Block& b : c->gws_blocks_) {
      c->packets_[b.packet].bytes.kernarg_address = static_cast<unsigned char*>(c->kernarg_) + b.offset;
    }
  }
  return c;
}

AqlPacketImage::~AqlPacketImage() {
  if (kernarg_) agent_.free_kernarg(kernarg_);
}

}  // namespace hsad::detail
