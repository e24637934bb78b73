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

}  // namespace hsad::detail
