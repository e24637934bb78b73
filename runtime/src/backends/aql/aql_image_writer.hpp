// write_image: Options::replay's way of submitting on an AQL queue, the sibling of
// AqlBatchWriter: the batch's packet image (AqlImageCache) copied into the ring, with the
// per-submission fields patched, its async copies handed to the driver between the ring packets.
#pragma once

#include <memory>

#include "backends/aql/aql_queue.hpp"

namespace hsad::detail {

// Writes the batch's replay `image` into `queue`'s ring for `sub` (Options::replay).
void write_image(AqlQueue& q, const Batch& batch, const ResolvedWaits& waits, const Options& o,
                 Clock::time_point deadline, AqlSubmission& sub, std::shared_ptr<const AqlPacketImage> image);

// Whether write_plain_image may write `image` under `o`: ring packets only (AqlPacketImage::plain),
// not profiled, no more than the ring holds.
inline bool plain_image_fits(const AqlQueue& q, const AqlPacketImage& image, const Options& o) {
  return image.plain() && !o.profile && image.packets().size() <= q.ring_size();
}
// The common replay, kept small: one reservation, each body copied and its header stored, the
// submission's completion patched into the last packet, one doorbell.
void write_plain_image(AqlQueue& q, const Batch& batch, const Deadline& deadline, AqlSubmission& sub,
                       std::shared_ptr<const AqlPacketImage> image);

}  // namespace hsad::detail
