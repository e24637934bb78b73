// BitonicWorkload: the batch is recorded once; every iteration replays it under the options.
#include <chrono>
#include "bitonic_workload.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "bitonic.hpp"

namespace hsad::bench {

BitonicWorkload::BitonicWorkload(const Device& device, std::uint32_t n, const Options& options, Copies copies,
                                 Algo algo, std::uint32_t chunk_log2)
    : BitonicWorkload(device, device.create_queue(), n, options, copies, algo, chunk_log2) {}

BitonicWorkload::BitonicWorkload(const Device& device, Queue queue, std::uint32_t n, const Options& options,
                                 Copies copies, Algo algo, std::uint32_t chunk_log2)
    : device_(device), options_(options), copies_(copies), n_(n), queue_(std::move(queue)),
      keys_(device.alloc(std::size_t(n) * sizeof(std::uint32_t))) {
  const std::size_t bytes = std::size_t(n) * sizeof(std::uint32_t);
  if (options.pinned) {
    pinned_in_ = device.alloc(bytes, Memory::pinned_host);
    pinned_out_ = device.alloc(bytes, Memory::pinned_host);
  } else {
    pageable_in_.resize(n);
    pageable_out_.resize(n);
  }
  if (copies_ == Copies::in_batch) batch_.copy_to_device(keys_, input(), bytes);
  std::uint32_t stages = 0;
  while ((1u << stages) < n) ++stages;
  if (algo == Algo::steps) {
    const Kernel step = device.kernel("bitonic_step");
    const std::uint32_t group = std::min<std::uint32_t>(256, n / 2);
    for (std::uint32_t stage = 0; stage < stages; ++stage) {
      for (std::uint32_t pass = 0; pass <= stage; ++pass) {
        batch_.exec(step, Dim3{n / 2}, Dim3{group}, {keys_, stage, pass, 1u, n});
      }
    }
  } else {
    // A work-group per chunk; each item takes pairs item, item + items, ... of it.
    const Kernel local = device.kernel("bitonic_local");
    if (chunk_log2 > kernels::kBitonicLocalKeysLog2) {
      throw Error("bitonic", "chunk", "a chunk of 2^" + std::to_string(chunk_log2) + " keys does not fit the LDS",
                  "at most 4096 keys");
    }
    const std::uint32_t c = kernels::bitonic_local_chunk_log2(n, chunk_log2);
    const std::uint32_t items = std::min<std::uint32_t>(kernels::kBitonicLocalItems, 1u << (c - 1));
    const Dim3 grid{(n >> c) * items}, local_group{items};
    batch_.exec(local, grid, local_group, {keys_, 0u, c - 1, 1u, c, n});
    const Kernel long_passes = device.kernel("bitonic_long");
    for (std::uint32_t stage = c; stage < stages; ++stage) {
      // Passes 0 to stage - c have distances of a chunk or more: up to three per dispatch.
      for (std::uint32_t pass = 0; pass + c <= stage;) {
        const std::uint32_t count = std::min(kernels::kBitonicLongPassesMax, stage - c + 1 - pass);
        const std::uint32_t long_items = n >> count;
        batch_.exec(long_passes, Dim3{long_items}, Dim3{std::min(256u, long_items)}, {keys_, stage, pass, count, 1u, n});
        pass += count;
      }
      batch_.exec(local, grid, local_group, {keys_, stage, stage, 1u, c, n});
    }
  }
  if (copies_ == Copies::in_batch) batch_.copy_to_host(const_cast<std::uint32_t*>(output()), keys_, bytes);
}

void BitonicWorkload::run() {
  const std::size_t bytes = std::size_t(n_) * sizeof(std::uint32_t);
  if (copies_ == Copies::blocking) device_.copy_to_device(keys_, input(), bytes);
  // Queue::run is submit, then wait: the two apart, so the host's share of the batch is known.
  const auto t0 = std::chrono::steady_clock::now();
  Submission s = queue_.submit(batch_, options_);
  last_submit_us_ = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
  s.wait();
  if (copies_ == Copies::blocking) device_.copy_to_host(const_cast<std::uint32_t*>(output()), keys_, bytes);
}

std::vector<CommandTime> BitonicWorkload::run_profiled() {
  Options o = options_;
  o.profile = true;
  const std::size_t bytes = std::size_t(n_) * sizeof(std::uint32_t);
  if (copies_ == Copies::blocking) device_.copy_to_device(keys_, input(), bytes);
  Submission s = queue_.submit(batch_, o);
  s.wait();
  if (copies_ == Copies::blocking) device_.copy_to_host(const_cast<std::uint32_t*>(output()), keys_, bytes);
  return s.timestamps();
}

Submission BitonicWorkload::submit() {
  if (copies_ != Copies::in_batch) throw Error("bitonic", "submit", "only the one-submission iteration is submitted whole");
  return queue_.submit(batch_, options_);
}

bool BitonicWorkload::output_matches(const std::vector<std::uint32_t>& expected) const {
  return expected.size() == n_ && std::equal(expected.begin(), expected.end(), output());
}

BitonicWorkload::Algo parse_bitonic_algo(const std::string& text) {
  if (text == "steps") return BitonicWorkload::Algo::steps;
  if (text == "lds") return BitonicWorkload::Algo::lds;
  throw Error("bitonic", "--algo", "unknown algorithm '" + text + "'",
              "valid: steps (one dispatch per pass), lds (short passes in LDS)");
}

std::uint32_t parse_bitonic_chunk(const std::string& text) {
  if (text == "auto") return 0;
  const std::string why = "--chunk must be auto or a power of two from 2 to 4096, got '" + text + "'";
  if (text.empty() || text.size() > 5 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw Error("bitonic", "--chunk", why);
  }
  const unsigned v = unsigned(std::stoul(text));
  if (v < 2 || v > 4096 || (v & (v - 1)) != 0) throw Error("bitonic", "--chunk", why);
  std::uint32_t log2 = 0;
  while ((1u << log2) < v) ++log2;
  return log2;
}

std::uint32_t parse_bitonic_size(const std::string& text) {
  const std::string why = "--n must be a power of two from 2 to 67108864 (2^26), got '" + text + "'";
  if (text.empty() || text.size() > 12 || text.find_first_not_of("0123456789") != std::string::npos) {
    throw Error("bitonic", "--n", why);
  }
  const unsigned long long v = std::stoull(text);
  if (v < 2 || v > (1ull << 26) || (v & (v - 1)) != 0) throw Error("bitonic", "--n", why);
  return static_cast<std::uint32_t>(v);
}

}  // namespace hsad::bench
