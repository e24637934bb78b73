// Encoding a batch once for replay: the same packets AqlBatchWriter writes under nosync (barrier
// bit on each, the fence policy's scopes, completion on the last), into plain memory instead of
// the ring. Waits acquire at system scope (the other submission may be another device's, which
// is only known when each submit resolves the wait), and so does the packet after a ring copy.
#include "backends/aql/aql_packet_image.hpp"

#include <cstring>

#include "aql/fence_policy.hpp"
#include "aql/hidden_args.hpp"
#include "backends/backend.hpp"

namespace hsad::detail {
namespace {
std::size_t round_up64(std::size_t n) { return (n + 63) & ~std::size_t(63); }
}  // namespace

bool AqlPacketImage::replayable(const Batch& batch, const Options& o, const AqlAgent& agent) {
  return o.replay && o.nosync && !o.profile && !batch.empty() && (batch.copies().empty() || agent.copies_in_ring());
}

AqlPacketImage::AqlPacketImage(AqlAgent& agent, const Batch& batch, const Options& o)
    : agent_(agent), version_(batch.version()) {
  std::size_t kernarg_bytes = 0;
  for (const Dispatch& d : batch.dispatches()) kernarg_bytes += round_up64(d.kernel.info().kernarg_segment_size);
  if (kernarg_bytes) kernarg_ = agent_.alloc_kernarg(kernarg_bytes);
  std::size_t kernarg_offset = 0;

  const auto& commands = batch.commands();
  packets_.reserve(commands.size());
  bool system_before = true;  // the first packet follows the host
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const Command& c = commands[i];
    const bool last = i + 1 == commands.size();
    const bool before_copy = !last && commands[i + 1].kind == CommandKind::copy;
    Packet p;
    p.command = static_cast<std::uint32_t>(i);
    void* slot = &p.bytes;
    aql::Header header;
    switch (c.kind) {
      case CommandKind::exec: {
        const Dispatch& d = batch.dispatches()[c.index];
        const KernelImpl& k = d.kernel.impl();
        const std::size_t bytes = k.info.kernarg_segment_size;
        void* kernarg = static_cast<unsigned char*>(kernarg_) + kernarg_offset;
        kernarg_offset += round_up64(bytes);
        if (bytes) std::memcpy(kernarg, batch.kernarg_image(c.index), bytes);
        if (!k.hidden_args.empty()) aql::fill_hidden_args(k.hidden_args, kernarg, d.grid, d.group);
        aql::write_dispatch_body(static_cast<hsa_kernel_dispatch_packet_t*>(slot),
                                 {d.grid, d.group, k.info.private_segment_size, k.info.group_segment_size,
                                  k.kernel_object, bytes ? kernarg : nullptr, {0}});
        const aql::Fences f = aql::fences_between(system_before, last || before_copy, o.fence);
        header = {HSA_PACKET_TYPE_KERNEL_DISPATCH, true, f.acquire, f.release};
        p.setup = aql::dispatch_setup(d.grid, d.group);
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
        system_before = true;
        break;
      }
      case CommandKind::wait: {
        aql::write_barrier_body(static_cast<hsa_barrier_and_packet_t*>(slot), nullptr, 0, {0});
        const aql::Fences f = aql::fences_between(true, last, o.fence);
        header = {HSA_PACKET_TYPE_BARRIER_AND, true, f.acquire, f.release};
        p.wait = static_cast<std::int32_t>(c.index);
        system_before = false;
        break;
      }
    }
    p.header = aql::encode(header);
    system_fences_ += (header.acquire == aql::Scope::system) + (header.release == aql::Scope::system);
    packets_.push_back(p);
  }
}

AqlPacketImage::~AqlPacketImage() {
  if (kernarg_) agent_.free_kernarg(kernarg_);
}

}  // namespace hsad::detail
