// write_image: a replayed batch's packet image into the ring. Every field but a few is the
// image's: the completion on the last packet, each wait's signal in its barrier-AND packet, where
// copies go to the driver's engine the edge and copy signals of this submit, and under profile
// each dispatch's own signal. Slots are reserved a ring at a time with one write-index add, the
// bodies copied, each header stored last with release.
#include "backends/aql/aql_image_writer.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace hsad::detail {

namespace {
// The batch's copies, async or in the ring, in the device's counters.
void count_copies(AqlQueue& q, const Batch& batch) {
  for (const Copy& c : batch.copies()) {
    q.counters().copies.fetch_add(1, std::memory_order_relaxed);
    q.counters().bytes_copied.fetch_add(c.bytes, std::memory_order_relaxed);
    if (!c.host_pinned) q.counters().bytes_staged.fetch_add(c.bytes, std::memory_order_relaxed);
  }
}
}  // namespace

void write_plain_image(AqlQueue& q, const Batch& batch, const Deadline& deadline, AqlSubmission& sub,
                       std::shared_ptr<const AqlPacketImage> taken) {
  constexpr std::size_t kCompletionOffset = offsetof(hsa_kernel_dispatch_packet_t, completion_signal);
  sub.image = std::move(taken);  // held until the submission completed (its kernarg blocks, code, labels)
  const AqlPacketImage& image = *sub.image;
  const hsa_signal_t done = sub.step.signal;
  q.agent().store_signal(done, 1);
  const auto& packets = image.packets();
  const std::size_t n = packets.size();
  const std::uint64_t mask = q.ring_mask();
  unsigned char* const base = q.ring_base();
  const std::uint64_t first = q.reserve_slots(n, deadline, sub);
  for (std::size_t k = 0; k < n; ++k) {
    const AqlPacketImage::Packet& p = packets[k];
    unsigned char* slot = base + ((first + k) & mask) * aql::kPacketBytes;
    std::memcpy(slot + 4, reinterpret_cast<const unsigned char*>(&p.bytes) + 4, aql::kPacketBytes - 4);
    if (k + 1 == n) std::memcpy(slot + kCompletionOffset, &done, sizeof done);
    q.note_slot(first + k, sub.serial, p.command);
    aql::publish(slot, p.header, p.setup);
    sub.has_published = true;
    if ((k + 1) % AqlPacketImage::kDoorbellEvery == 0 && k + 1 != n) q.ring_doorbell(first + k);
  }
  sub.last_published = first + n - 1;
  q.ring_doorbell(sub.last_published);
  sub.doorbell_pending = false;
  q.count_packets(n);
  if (image.system_fences()) q.counters().system_fences.fetch_add(image.system_fences(), std::memory_order_relaxed);
  if (image.copies()) count_copies(q, batch);
  sub.final_signal = done;
}

void write_image(AqlQueue& q, const Batch& batch, const ResolvedWaits& waits, const Options& o,
                 Clock::time_point deadline, AqlSubmission& sub, std::shared_ptr<const AqlPacketImage> taken) {
  // Every field but these is the image's: the submission's completion on the last packet, each
  // wait's signal, resolved for this submit, in its barrier-AND packet, and where copies go to the
  // driver's engine, the edge and copy signals taken for this submit; under profile, each
  // dispatch's own signal.
  constexpr std::size_t kCompletionOffset = offsetof(hsa_kernel_dispatch_packet_t, completion_signal);
  constexpr std::size_t kFirstDependency = offsetof(hsa_barrier_and_packet_t, dep_signal);
  static_assert(offsetof(hsa_barrier_and_packet_t, completion_signal) == kCompletionOffset);
  static_assert(offsetof(hsa_agent_dispatch_packet_t, completion_signal) == kCompletionOffset);
  sub.image = std::move(taken);  // held until the submission completed (its kernarg blocks, code, labels)
  const std::shared_ptr<const AqlPacketImage>& image = sub.image;
  const hsa_signal_t done = sub.step.signal;
  q.agent().store_signal(done, 1);
  const auto& packets = image->packets();
  const std::size_t n = packets.size();
  // Signals this submit takes beyond its completion: one per command under profile, else an edge
  // and a done signal per async copy (and one edge behind earlier work).
  if (o.signal && (image->async_copies() || o.profile)) q.reserve_signals(o.profile ? n + 2 : 2 * image->async_copies() + 2);
  // A signal of this submission's own (edges, copies, profiling), given back with it.
  const auto own_signal = [&] {
    const HeldSignal h = q.take_signal(o.signal, false, deadline);
    sub.extra.push_back(h);
    q.agent().store_signal(h.signal, 1);
    return h.signal;
  };
  const std::uint64_t mask = q.ring_mask();
  auto* const base = q.ring_base();
  hsa_signal_t copy_done{0};  // the last async copy's signal: what the next barrier-AND or copy waits for
  hsa_signal_t edge{0};       // the last ring packet's edge signal, for the copy after it
  if (n && packets[0].copy >= 0 && q.earlier_work_in_flight()) {
    // Submissions on one queue run in order: a barrier-AND behind the earlier ones gives the copy
    // engine a signal for them (AqlBatchWriter does the same).
    edge = own_signal();
    sub.copy_edges.push_back(edge);
    const std::uint64_t index = q.reserve_slot(deadline, sub);
    q.note_slot(index, 0, 0);
    auto* slot = reinterpret_cast<hsa_barrier_and_packet_t*>(base) + (index & mask);
    aql::write_barrier_body(slot, nullptr, 0, edge);
    aql::publish(slot, aql::encode({HSA_PACKET_TYPE_BARRIER_AND, true, aql::Scope::none, aql::Scope::system}), 0);
    q.count_packets(1);
    q.counters().system_fences.fetch_add(1, std::memory_order_relaxed);
    sub.last_published = index;
    sub.has_published = true;
    q.ring_doorbell(index);
  }
  std::size_t i = 0;
  while (i < n) {
    if (packets[i].copy >= 0) {
      const AqlPacketImage::Packet& p = packets[i];
      const Copy& c = batch.copies()[std::size_t(p.copy)];
      hsa_signal_t deps[2];
      std::uint32_t count = 0;
      if (edge.handle) deps[count++] = edge;
      else if (copy_done.handle) deps[count++] = copy_done;  // two copies in a row: in order
      const hsa_signal_t signal = i + 1 == n ? done : own_signal();
      sub.has_published = true;
      q.agent().async_copy(c, deps, count, signal, sub.locked);
      sub.copy_done.push_back(signal);
      if (o.profile) sub.timed.push_back({p.command, batch.labels()->at(p.command), signal, true});
      copy_done = signal;
      edge = {0};
      ++i;
      continue;
    }
    // The ring packets up to the next copy (or the end): an image larger than the ring goes out a
    // ring at a time, each waiting for room.
    std::size_t end = i;
    while (end < n && packets[end].copy < 0) ++end;
    while (i < end) {
      const std::size_t chunk = std::min<std::size_t>(end - i, q.ring_size());
      const std::uint64_t first = q.reserve_slots(chunk, deadline, sub);
      for (std::size_t k = 0; k < chunk; ++k, ++i) {
        const AqlPacketImage::Packet& p = packets[i];
        unsigned char* slot = base + ((first + k) & mask) * aql::kPacketBytes;
        std::memcpy(slot + 4, reinterpret_cast<const unsigned char*>(&p.bytes) + 4, aql::kPacketBytes - 4);
        hsa_signal_t completion{0};
        if (i + 1 == n) completion = done;
        else if (p.edge) completion = edge = own_signal();
        else if (o.profile && p.timed) completion = own_signal();
        if (p.edge) sub.copy_edges.push_back(completion);
        if (completion.handle) std::memcpy(slot + kCompletionOffset, &completion, sizeof completion);
        if (o.profile && p.timed) sub.timed.push_back({p.command, batch.labels()->at(p.command), completion, false});
        if (p.wait >= 0) {
          const CompletionImpl* w = waits[std::size_t(p.wait)].get();
          const hsa_signal_t s = w ? static_cast<const AqlCompletion&>(*w).signal() : hsa_signal_t{0};
          if (s.handle) q.counters().device_waits.fetch_add(1, std::memory_order_relaxed);
          std::memcpy(slot + kFirstDependency, &s, sizeof s);
        } else if (p.wait == AqlPacketImage::kAfterCopy) {
          std::memcpy(slot + kFirstDependency, &copy_done, sizeof copy_done);
        }
        q.note_slot(first + k, sub.serial, p.command);
        aql::publish(slot, p.header, p.setup);
        sub.last_published = first + k;
        sub.has_published = true;
        sub.doorbell_pending = true;
        if ((k + 1) % AqlPacketImage::kDoorbellEvery == 0) {
          q.ring_doorbell(first + k);
          sub.doorbell_pending = false;
        }
      }
      if (sub.doorbell_pending) {
        q.ring_doorbell(sub.last_published);
        sub.doorbell_pending = false;
      }
    }
  }
  q.count_packets(image->ring_packets());
  // A locked add costs as much as a cache miss: none for a count that does not change.
  if (image->system_fences()) q.counters().system_fences.fetch_add(image->system_fences(), std::memory_order_relaxed);
  count_copies(q, batch);
  sub.final_signal = done;
}

}  // namespace hsad::detail
