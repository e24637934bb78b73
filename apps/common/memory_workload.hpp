// memory-bench's workloads: the memory lessons of the reference notes as recorded kernel
// sequences (kernels/memory.hpp). Set-up (buffers, data, the batches) happens once; an iteration
// is the whole sequence, `iters` iterations are one batch with one wait, under the same Options
// as the other benches.
//  - row-sums, column-sums, row-sums-lds: sums of a rows x cols float matrix (notes 001);
//  - yax, yax-wave: y^T A x in double, an item per row against a work-group per row (notes 003);
//  - reduce-staged, reduce-fused: the sums of every word of a sites x words double record, in
//    passes of `width` words, packed first or read in place (notes 002).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::bench {

enum class MemoryKind { row_sums, column_sums, row_sums_lds, yax, yax_wave, reduce_staged, reduce_fused };

// Every workload by its CLI name, in the order `--workload all` runs them.
const std::vector<std::pair<std::string, MemoryKind>>& memory_workloads();
const std::string& memory_workload_name(MemoryKind kind);
// Throws hsad::Error naming the valid workloads for an unknown name.
MemoryKind parse_memory_workload(const std::string& text);

struct MemoryConfig {
  MemoryKind kind = MemoryKind::row_sums_lds;
  std::uint32_t rows = 0, cols = 0;  // matrices (row and column sums, yAx)
  std::uint32_t sites = 0;           // reductions: records...
  std::uint32_t words = 1152;        // ...of this many doubles (the notes' 9216-byte site)...
  std::uint32_t width = 96;          // ...summed this many at a time (the notes' 12 words of 64 bytes)
  std::uint32_t block = 0;           // work-group size; 0: the workload's default
  int iters = 5;                     // iterations per batch (one wait)
};

// The notes' sizes: 16384 x 16384 floats, 32768 x 32768 doubles, 262144 sites of 1152 doubles.
// `divisor` shrinks each dimension (the cpu agent's default uses 4 for matrices, 16 for sites).
MemoryConfig memory_seed_size(MemoryKind kind, std::uint32_t divisor = 1);
// The work-group size the notes use: 256, except yax-wave (64, one CDNA wavefront) and the
// reductions (128).
std::uint32_t memory_default_block(MemoryKind kind);

// Checks sizes (and, with a device, that the buffers fit); throws hsad::Error naming the option.
void validate(const MemoryConfig& c, const DeviceInfo& device);

class MemoryWorkload {
 public:
  MemoryWorkload(const Device& device, const MemoryConfig& config, const Options& options);

  // Records the batches again for another work-group size (memory-bench --sweep-block), over the
  // same data. Throws hsad::Error as the constructor does for a size the workload cannot take.
  void set_block(std::uint32_t block);
  void run();          // one batch: config.iters iterations, one wait
  double copy_run();   // one batch of config.iters device copies of the input; returns bytes per copy
  // The bytes the algorithm has to move per iteration: its input once, and its output.
  double bytes() const;
  std::size_t dispatches_per_iteration() const { return batch_.dispatch_count() / std::size_t(c_.iters); }
  const MemoryConfig& config() const { return c_; }
  std::string shape() const;  // e.g. "16384x16384 f32"

  // Runs one batch over outputs set to NaN, copies the results back and compares them with sums
  // done on the CPU. The data are small
  // integers, so every order of addition gives the same exact sums: any error is a wrong index.
  struct Check {
    double max_abs_error = 0;
    std::size_t wrong = 0, checked = 0;
  };
  Check verify();

 private:
  std::vector<double> reference() const;
  void record();
  void record_matrix();
  void record_yax();
  void record_reduce();

  Device device_;
  MemoryConfig c_;
  Options options_;
  Queue queue_;
  Buffer input_, x_, y_, out_, partials_, bundle_, scratch_;
  std::size_t copy_count_ = 0;  // doubles per copy
  Batch batch_, copies_;
  std::vector<double> expected_;  // the CPU's sums, once computed
};

}  // namespace hsad::bench
