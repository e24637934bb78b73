// The graveyard is itself never destroyed: static destructors at exit must not free what a
// stuck thread may still be using.
#include "graveyard.hpp"

#include <mutex>
#include <vector>

namespace hsad::detail {

void keep_forever(std::shared_ptr<const void> what) {
  static auto* mutex = new std::mutex;
  static auto* kept = new std::vector<std::shared_ptr<const void>>;
  std::lock_guard<std::mutex> lock(*mutex);
  kept->push_back(std::move(what));
}

}  // namespace hsad::detail
