// The seed's workload: sort n keys with n = 2^k by k(k+1)/2 bitonic-step dispatches. Setup
// (queue, buffers, the recorded batch) happens once; an iteration is copy in, the whole batch
// under Options, copy out: as three calls with a host wait each, or (copies in the batch) as
// one submission with one host wait. Algo::lds is the same network with every short pass in LDS
// (kernels/bitonic.hpp): about a dozen dispatches instead of k(k+1)/2.
#pragma once

#include <cstdint>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::bench {

class BitonicWorkload {
 public:
  enum class Copies { blocking, in_batch };
  enum class Algo { steps, lds };
  // chunk_log2: Algo::lds's keys per work-group, 2^1 to 2^12, capped at n; 0: chosen from n
  // (kernels::bitonic_local_chunk_log2).
  BitonicWorkload(const Device& device, std::uint32_t n, const Options& options, Copies copies = Copies::blocking,
                  Algo algo = Algo::steps, std::uint32_t chunk_log2 = 0);
  // On a queue shared with other workloads (the benchmark's rows share one).
  BitonicWorkload(const Device& device, Queue queue, std::uint32_t n, const Options& options,
                  Copies copies = Copies::blocking, Algo algo = Algo::steps, std::uint32_t chunk_log2 = 0);

  // The unsorted input an iteration copies in (pinned or pageable per Options::pinned).
  std::uint32_t* input() { return options_.pinned ? pinned_in_.host_as<std::uint32_t>() : pageable_in_.data(); }
  const std::uint32_t* output() const {
    return options_.pinned ? pinned_out_.host_as<std::uint32_t>() : pageable_out_.data();
  }
  std::uint32_t size() const { return n_; }
  std::size_t dispatches() const { return batch_.dispatch_count(); }
  const Batch& batch() const { return batch_; }

  void run();  // one timed iteration
  // The host time the last run() spent in Queue::submit (without the blocking copies around it
  // and the wait): what the runtime itself costs the host for the whole batch.
  double last_submit_us() const { return last_submit_us_; }
  // The same iteration, submitted; the caller waits (for device timestamps, or other queues).
  Submission submit();
  // One iteration with Options::profile: when each dispatch (and, with the copies in the batch,
  // each copy) ran on the device.
  std::vector<CommandTime> run_profiled();
  bool output_matches(const std::vector<std::uint32_t>& expected) const;

 private:
  Device device_;
  Options options_;
  Copies copies_;
  std::uint32_t n_;
  Queue queue_;
  Buffer keys_;
  Buffer pinned_in_, pinned_out_;
  std::vector<std::uint32_t> pageable_in_, pageable_out_;
  Batch batch_;
  double last_submit_us_ = 0;
};

// "steps" or "lds" (bitonic-bench --algo); throws hsad::Error naming the choices otherwise.
BitonicWorkload::Algo parse_bitonic_algo(const std::string& text);

// --chunk: "auto" (0) or a power of two from 2 to 4096; returns its log2. Throws hsad::Error.
std::uint32_t parse_bitonic_chunk(const std::string& text);

// Validates n for the CLI and tests: a power of two in [2, 2^26]; throws hsad::Error otherwise.
std::uint32_t parse_bitonic_size(const std::string& text);

}  // namespace hsad::bench
