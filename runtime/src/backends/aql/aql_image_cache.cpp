// AqlImageCache: a queue's replay images, by batch identity and version, least recently used
// evicted first; set_args rewrites an image's blocks in place, or in a copy where a submission
// still reads them.
#include "backends/aql/aql_image_cache.hpp"

#include <algorithm>

namespace hsad::detail {

std::shared_ptr<const AqlPacketImage> AqlImageCache::image_for(const Batch& batch, const Options& o, AqlAgent& agent,
                                                               std::uint64_t queue,
                                                               Counters& counters) {
  for (auto it = images_.begin(); it != images_.end(); ++it) {
    if (it->first != batch.id()) continue;
    if (it->second->batch_version() == batch.version()) {
      std::shared_ptr<AqlPacketImage>& image = it->second;
      if (image->args_version() != batch.args_version()) {
        // set_args since: rewrite the changed blocks, in a copy where a submission in flight
        // still reads these (every holder but this cache is one).
        if (image.use_count() > 1) {
          image = image->clone();
          counters.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
          counters.kernarg_writes.fetch_add(image->dispatches(), std::memory_order_relaxed);
        }
        counters.kernarg_writes.fetch_add(image->update_args(batch), std::memory_order_relaxed);
      }
      // Most recently used last: eviction takes the front, the least recently used.
      if (std::next(it) != images_.end()) std::rotate(it, std::next(it), images_.end());
      return images_.back().second;
    }
    images_.erase(it);  // recorded again since: the old image stays with the submissions using it
    break;
  }
  auto image = std::make_shared<AqlPacketImage>(agent, queue, batch, o);
  counters.images_built.fetch_add(1, std::memory_order_relaxed);
  if (image->dispatches()) counters.kernarg_allocations.fetch_add(1, std::memory_order_relaxed);
  counters.kernarg_writes.fetch_add(image->dispatches(), std::memory_order_relaxed);
  if (images_.size() == kMaxImages) images_.erase(images_.begin());
  images_.emplace_back(batch.id(), image);
  return image;
}

}  // namespace hsad::detail
