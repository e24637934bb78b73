// AqlImageCache: the replay images one AQL queue keeps (Options::replay), keyed on the batch's
// identity and version, at most kMaxImages, the least recently used evicted first. An evicted
// image lives on with the submissions still reading it (each holds it).
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

#include "backends/aql/aql_packet_image.hpp"

namespace hsad::detail {

class AqlImageCache {
 public:
  static constexpr std::size_t kMaxImages = 32;
  // The batch's image: built on its first replayed submit per version (counted as images_built),
  // its changed kernarg blocks rewritten after set_args (kernarg_writes). Called under the
  // queue's submit mutex.
  std::shared_ptr<const AqlPacketImage> image_for(const Batch& batch, const Options& o, AqlAgent& agent, std::uint64_t queue,
                                                  Counters& counters);

 private:
  std::vector<std::pair<std::uint64_t, std::shared_ptr<AqlPacketImage>>> images_;  // least recent first
};

}  // namespace hsad::detail
