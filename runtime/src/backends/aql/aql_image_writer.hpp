// AqlImageWriter: Options::replay's way of submitting on an AQL queue, the sibling of
// AqlBatchWriter: the batch's packet image (AqlImageCache) copied into the ring, with the
// per-submission fields patched, its async copies handed to the driver between the ring packets.
#pragma once

#include <memory>

#include "backends/aql/aql_queue.hpp"

namespace hsad::detail {

class AqlImageWriter {
 public:
  AqlImageWriter(AqlQueue& queue, const Batch& batch, const ResolvedWaits& waits, const Options& options,
                 Clock::time_point deadline, AqlSubmission& sub, std::shared_ptr<const AqlPacketImage> image);
  void write();

 private:
  AqlQueue& q_;
  const Batch& batch_;
  const ResolvedWaits& waits_;
  const Options& o_;
  Clock::time_point deadline_;
  AqlSubmission& sub_;
  std::shared_ptr<const AqlPacketImage> image_;
};

}  // namespace hsad::detail
