// WorkerPool: chunked work-group execution with a users count per job, so a job is never
// re-armed while a thread that found it in the table still looks at it.
#include "agent/worker_pool.hpp"

#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "agent/futex.hpp"

namespace hsad::agent {
namespace {
const std::uint32_t* word(const std::atomic<std::uint32_t>& a) { return reinterpret_cast<const std::uint32_t*>(&a); }

// A cooperative dispatch's grid barrier: a generation count under a mutex, broken once any
// work-group failed or the dispatch was cancelled, so that none of the others waits for good.
class GridBarrier {
 public:
  GridBarrier(std::uint64_t parties, const std::atomic<bool>* cancel) : parties_(parties), cancel_(cancel) {}
  void arrive_and_wait() {
    std::unique_lock<std::mutex> lock(m_);
    if (broken_) throw std::runtime_error("grid_sync: another work-group of the grid failed or was cancelled");
    const std::uint64_t generation = generation_;
    if (++arrived_ == parties_) {
      arrived_ = 0;
      ++generation_;
      cv_.notify_all();
      return;
    }
    while (generation == generation_ && !broken_) {
      cv_.wait_for(lock, std::chrono::milliseconds(10));
      if (cancel_ && cancel_->load(std::memory_order_relaxed)) broken_ = true;
    }
    if (generation == generation_) {
      cv_.notify_all();
      throw std::runtime_error("grid_sync: another work-group of the grid failed or was cancelled");
    }
  }
  void break_it() {
    std::lock_guard<std::mutex> lock(m_);
    broken_ = true;
    cv_.notify_all();
  }

 private:
  std::mutex m_;
  std::condition_variable cv_;
  const std::uint64_t parties_;
  const std::atomic<bool>* cancel_;
  std::uint64_t arrived_ = 0, generation_ = 0;
  bool broken_ = false;
};

void wait_at_grid_barrier(const void* state) {
  const_cast<GridBarrier*>(static_cast<const GridBarrier*>(state))->arrive_and_wait();
}

Dim3 group_id(const Job& job, std::uint64_t g) {
  const std::uint64_t gx = job.groups.x, gxy = std::uint64_t(job.groups.x) * job.groups.y;
  return Dim3{static_cast<std::uint32_t>(g % gx), static_cast<std::uint32_t>((g / gx) % job.groups.y),
              static_cast<std::uint32_t>(g / gxy)};
}

// Every work-group at once, each on a thread of its own (the calling one runs the first): what
// a grid barrier needs. The first failure is rethrown once all have returned.
void run_cooperative(const Job& job) {
  GridBarrier barrier(job.total, job.cancel);
  std::mutex first_mutex;
  std::exception_ptr first;
  const auto run_one = [&](std::uint64_t g) {
    std::vector<unsigned char> group_memory(job.group_memory);
    WorkGroup wg{job.kernarg, job.grid, job.group, group_id(job, g), job.group_memory ? group_memory.data() : nullptr,
                 job.has_packet ? job.packet : nullptr};
    wg.group_memory_bytes = job.group_memory;
    wg.cancel = job.cancel;
    wg.queue_context = job.queue_context;
    wg.grid_barrier = &wait_at_grid_barrier;
    wg.grid_barrier_state = &barrier;
    try {
      if (wg.cancelled()) throw std::runtime_error("cancelled before it ended (its queue was destroyed or the device reset)");
      job.kernel->fn(wg);
    } catch (...) {
      {
        std::lock_guard<std::mutex> lock(first_mutex);
        if (!first) first = std::current_exception();
      }
      barrier.break_it();
    }
  };
  std::vector<std::thread> threads;
  threads.reserve(job.total - 1);
  try {
    for (std::uint64_t g = 1; g < job.total; ++g) threads.emplace_back(run_one, g);
  } catch (const std::system_error& e) {
    barrier.break_it();
    for (std::thread& t : threads) t.join();
    throw std::runtime_error(std::string("a cooperative dispatch could not start a thread for each of its ") +
                             std::to_string(job.total) + " work-groups: " + e.what());
  }
  run_one(0);
  for (std::thread& t : threads) t.join();
  if (first) std::rethrow_exception(first);
}

void run_groups(const Job& job, std::uint64_t begin, std::uint64_t end) {
  if (job.cooperative) {
    run_cooperative(job);  // the job is one chunk: [0, total)
    return;
  }
  // Per chunk, not thread_local: the simulated GPU links this code into a library that ROCr
  // dlopens, where thread_local is dynamic TLS, which LeakSanitizer's stop-the-world scan can
  // crash on at exit.
  const std::uint32_t lds = job.group_memory;
  std::vector<unsigned char> group_memory(lds);
  WorkGroup wg{job.kernarg, job.grid, job.group, {}, lds ? group_memory.data() : nullptr,
               job.has_packet ? job.packet : nullptr};
  wg.group_memory_bytes = lds;
  const std::uint64_t gx = job.groups.x, gxy = std::uint64_t(job.groups.x) * job.groups.y;
  wg.cancel = job.cancel;
  wg.queue_context = job.queue_context;
  for (std::uint64_t g = begin; g < end; ++g) {
    if (wg.cancelled()) throw std::runtime_error("cancelled before it ended (its queue was destroyed or the device reset)");
    wg.id = Dim3{static_cast<std::uint32_t>(g % gx), static_cast<std::uint32_t>((g / gx) % job.groups.y),
                 static_cast<std::uint32_t>(g / gxy)};
    job.kernel->fn(wg);
  }
}
}  // namespace

void Job::prepare() {
  next_.store(0, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  failing_.store(false, std::memory_order_relaxed);
  failed_.store(false, std::memory_order_relaxed);
  error_.clear();
  access_.reset();
}

void Job::fail(const std::string& what, std::optional<MemoryAccess> access) {
  bool first = false;
  if (failing_.compare_exchange_strong(first, true, std::memory_order_acq_rel)) {
    error_ = what;
    access_ = access;
    failed_.store(true, std::memory_order_release);
  }
}

WorkerPool::WorkerPool(unsigned workers) : exited_(new std::atomic<bool>[workers]) {
  workers_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) {
    exited_[i].store(false);
    workers_.emplace_back([this, i] {
      worker_main();
      exited_[i].store(true, std::memory_order_release);
    });
  }
}

WorkerPool::~WorkerPool() { stop(std::chrono::hours(24 * 365)); }

bool WorkerPool::stop(std::chrono::milliseconds grace) {
  stop_.store(true);
  epoch_.fetch_add(1);
  futex_wake_all(word(epoch_));
  const auto deadline = std::chrono::steady_clock::now() + grace;
  bool all = true;
  for (std::size_t i = 0; i < workers_.size(); ++i) {
    if (!workers_[i].joinable()) continue;
    while (!exited_[i].load(std::memory_order_acquire) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (exited_[i].load(std::memory_order_acquire)) {
      workers_[i].join();
    } else {
      workers_[i].detach();  // inside a host kernel that does not return
      all = false;
    }
  }
  return all;
}

bool WorkerPool::post(Job& job) {
  for (std::size_t i = 0; i < kSlots; ++i) {
    Job* expected = nullptr;
    if (slots_[i].compare_exchange_strong(expected, &job)) {
      epoch_.fetch_add(1);
      if (sleepers_.load() != 0) futex_wake_all(word(epoch_));
      return true;
    }
  }
  return false;
}

void WorkerPool::run_inline(Job& job) {
  try {
    run_groups(job, 0, job.total);
  } catch (const MemoryAccessFault& f) {
    job.fail(f.what(), f.access);
  } catch (const std::exception& e) {
    job.fail(e.what());
  } catch (...) {
    job.fail("a non-standard exception");
  }
}

bool WorkerPool::run_chunk(std::size_t slot) {
  // Sequentially consistent: a job's owner that saw this slot free of readers after the job left
  // it, then saw the job without users, may destroy it (quiesce).
  slot_readers_[slot].fetch_add(1);
  Job* job = slots_[slot].load();
  if (!job) {
    slot_readers_[slot].fetch_sub(1);
    return false;
  }
  job->users_.fetch_add(1);
  slot_readers_[slot].fetch_sub(1);
  if (slots_[slot].load(std::memory_order_acquire) != job) {  // finished and maybe re-armed meanwhile
    job->users_.fetch_sub(1, std::memory_order_release);
    return false;
  }
  const std::uint64_t begin = job->next_.fetch_add(job->chunk, std::memory_order_acq_rel);
  if (begin >= job->total) {
    job->users_.fetch_sub(1, std::memory_order_release);
    return false;
  }
  const std::uint64_t end = begin + job->chunk < job->total ? begin + job->chunk : job->total;
  if (!job->failed()) {  // after a failure the remaining groups are skipped, but still counted
    try {
      run_groups(*job, begin, end);
    } catch (const MemoryAccessFault& f) {
      job->fail(f.what(), f.access);
    } catch (const std::exception& e) {
      job->fail(e.what());
    } catch (...) {
      job->fail("a non-standard exception");
    }
  }
  if (job->done_.fetch_add(end - begin, std::memory_order_acq_rel) + (end - begin) == job->total) {
    slots_[slot].store(nullptr, std::memory_order_release);
    job->sink->job_done(*job);
  }
  job->users_.fetch_sub(1, std::memory_order_release);
  return true;
}

bool WorkerPool::quiesce(std::chrono::steady_clock::time_point deadline) const {
  for (const auto& readers : slot_readers_) {
    while (readers.load() != 0) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::yield();
    }
  }
  return true;
}

bool WorkerPool::help() {
  for (std::size_t i = 0; i < kSlots; ++i) {
    if (slots_[i].load(std::memory_order_relaxed) && run_chunk(i)) return true;
  }
  return false;
}

void WorkerPool::worker_main() {
  using namespace std::chrono;
  auto idle_since = steady_clock::now();
  int rounds = 0;
  while (!stop_.load(std::memory_order_relaxed)) {
    if (help()) {
      rounds = 0;
      idle_since = steady_clock::now();
      continue;
    }
    // Stay hot for a moment: back-to-back dispatches arrive microseconds apart. Yield rather
    // than pause, so that a runnable host thread is not kept off a small machine's cores.
    if (++rounds % 16 != 0 || steady_clock::now() - idle_since < microseconds(100)) {
      std::this_thread::yield();
      continue;
    }
    sleepers_.fetch_add(1);
    const std::uint32_t seen = epoch_.load();
    bool any = false;
    for (auto& s : slots_) any = any || s.load() != nullptr;
    if (!any && !stop_.load()) futex_wait(word(epoch_), seen, milliseconds(50));
    sleepers_.fetch_sub(1);
    idle_since = steady_clock::now();
  }
}

}  // namespace hsad::agent

namespace hsad {
void WorkGroup::grid_sync() const {
  if (!grid_barrier) {
    throw std::runtime_error("grid_sync outside a cooperative dispatch (LaunchConfig::cooperative): its work-groups "
                             "do not all run at once");
  }
  grid_barrier(grid_barrier_state);
}
}  // namespace hsad
