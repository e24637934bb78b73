// MemoryWorkload: the data, the recorded batches, and the CPU reference.
#include "memory_workload.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>

#include "memory.hpp"

namespace hsad::bench {
namespace {
constexpr std::uint32_t kSumGroup = 256;  // sum_partials_f64's work-group (one per column)

// Element i of an array: a small integer (0 to 7) from a multiplicative hash, so neighbours
// differ (a wrong index shows) and every sum is exact in float and double alike.
double value(std::uint64_t i, std::uint64_t salt) { return double(((i + salt) * 0x9E3779B97F4A7C15ull) >> 61); }
constexpr std::uint64_t kSaltA = 0, kSaltX = 1ull << 40, kSaltY = 1ull << 41;

bool is_matrix(MemoryKind k) {
  return k == MemoryKind::row_sums || k == MemoryKind::column_sums || k == MemoryKind::row_sums_lds;
}
bool is_yax(MemoryKind k) { return k == MemoryKind::yax || k == MemoryKind::yax_wave; }

std::uint64_t round_up(std::uint64_t v, std::uint64_t m) { return (v + m - 1) / m * m; }

// Fills a device buffer with value(i, salt) as T, through a bounded host staging vector.
template <class T>
void upload(Queue& queue, const Options& options, const Buffer& dst, std::uint64_t count, std::uint64_t salt) {
  const std::uint64_t chunk = std::uint64_t(8) << 20;
  std::vector<T> host(std::min(count, chunk));
  for (std::uint64_t first = 0; first < count; first += chunk) {
    const std::uint64_t n = std::min(chunk, count - first);
    for (std::uint64_t i = 0; i < n; ++i) host[i] = T(value(first + i, salt));
    queue.run(Batch{}.copy_to_device(dst, host.data(), n * sizeof(T), first * sizeof(T)), options,
              std::chrono::minutes(10));
  }
}

void* at(const Buffer& b, std::size_t byte_offset) { return static_cast<char*>(b.device_ptr()) + byte_offset; }
}  // namespace

const std::vector<std::pair<std::string, MemoryKind>>& memory_workloads() {
  static const std::vector<std::pair<std::string, MemoryKind>> all = {
      {"row-sums", MemoryKind::row_sums},           {"column-sums", MemoryKind::column_sums},
      {"row-sums-lds", MemoryKind::row_sums_lds},   {"yax", MemoryKind::yax},
      {"yax-wave", MemoryKind::yax_wave},           {"reduce-staged", MemoryKind::reduce_staged},
      {"reduce-fused", MemoryKind::reduce_fused}};
  return all;
}

const std::string& memory_workload_name(MemoryKind kind) {
  for (const auto& [name, k] : memory_workloads()) {
    if (k == kind) return name;
  }
  throw Error("memory-bench", "workload", "unknown workload kind");
}

MemoryKind parse_memory_workload(const std::string& text) {
  std::string names;
  for (const auto& [name, k] : memory_workloads()) {
    if (name == text) return k;
    names += (names.empty() ? "" : ", ") + name;
  }
  throw Error("memory-bench", "--workload", "unknown workload '" + text + "'", "valid: " + names + ", all");
}

MemoryConfig memory_seed_size(MemoryKind kind, std::uint32_t divisor) {
  MemoryConfig c;
  c.kind = kind;
  divisor = std::max<std::uint32_t>(divisor, 1);
  if (is_matrix(kind)) c.rows = c.cols = 16384 / divisor;
  else if (is_yax(kind)) c.rows = c.cols = 32768 / divisor;
  else c.sites = std::max<std::uint32_t>(1, 262144 / (divisor * divisor));
  return c;
}

std::uint32_t memory_default_block(MemoryKind kind) {
  if (kind == MemoryKind::yax_wave) return 64;
  if (kind == MemoryKind::reduce_staged || kind == MemoryKind::reduce_fused) return 128;
  return 256;
}

void validate(const MemoryConfig& c, const DeviceInfo& device) {
  const std::string w = memory_workload_name(c.kind);
  if (c.block < 1 || c.block > kernels::kMemoryMaxGroup) {
    throw Error("memory-bench", "--block",
                "the work-group size must be 1 to " + std::to_string(kernels::kMemoryMaxGroup) + ", got " +
                    std::to_string(c.block));
  }
  if (c.iters < 1) throw Error("memory-bench", "--iters", "--iters must be at least 1");
  double bytes = 0;
  if (is_matrix(c.kind) || is_yax(c.kind)) {
    if (c.rows < 1) throw Error("memory-bench", "--rows", w + " needs at least 1 row, got " + std::to_string(c.rows));
    if (c.cols < 1) throw Error("memory-bench", "--cols", w + " needs at least 1 column, got " + std::to_string(c.cols));
    // Sums of up to 2^21 values of at most 7 stay below 2^24: exact in float, so the check is
    // exact. (A work-group per row then also stays within a grid: 2^21 x 1024 items.)
    constexpr std::uint32_t kMaxDim = 1u << 21;
    if (c.rows > kMaxDim) throw Error("memory-bench", "--rows", "--rows must be at most 2097152, got " + std::to_string(c.rows));
    if (c.cols > kMaxDim) throw Error("memory-bench", "--cols", "--cols must be at most 2097152, got " + std::to_string(c.cols));
    const double element = is_yax(c.kind) ? sizeof(double) : sizeof(float);
    bytes = double(c.rows) * c.cols * element;
  } else {
    if (c.sites < 1) throw Error("memory-bench", "--sites", w + " needs at least 1 site, got " + std::to_string(c.sites));
    if (c.width < 1) throw Error("memory-bench", "--width", "--width (doubles summed per pass) must be at least 1, got 0");
    if (c.words < c.width || c.words % c.width != 0) {
      throw Error("memory-bench", "--words",
                  "--words (doubles per site) must be a whole number of --width (" + std::to_string(c.width) + "), got " +
                      std::to_string(c.words));
    }
    if (std::uint64_t(c.sites) * c.width > 0xFFFFFFFFull - kernels::kMemoryMaxGroup) {
      throw Error("memory-bench", "--sites", w + ": sites x width exceeds a grid's 2^32 - 1 work-items");
    }
    bytes = double(c.sites) * c.words * sizeof(double);
  }
  // The input, the copy's scratch (as large, up to 2 GiB) and, for the staged reduction, the bundle.
  const double total = bytes + std::min(bytes, double(2ull << 30)) + (c.kind == MemoryKind::reduce_staged ? bytes / (c.words / c.width) : 0);
  if (device.memory_bytes && total > 0.9 * double(device.memory_bytes)) {
    throw Error("memory-bench", "size",
                w + " needs " + std::to_string(total / double(1 << 30)).substr(0, 6) + " GiB; " + device.name + " has " +
                    std::to_string(double(device.memory_bytes) / double(1 << 30)).substr(0, 6) + " GiB",
                "reduce --rows, --cols or --sites");
  }
}

MemoryWorkload::MemoryWorkload(const Device& device, const MemoryConfig& config, const Options& options)
    : device_(device), c_(config), options_(options), queue_(device.create_queue()) {
  if (c_.block == 0) c_.block = memory_default_block(c_.kind);
  validate(c_, device.info());
  // The data, once: the sweep re-records the batches over the same buffers.
  if (is_matrix(c_.kind)) {
    const std::uint64_t elements = std::uint64_t(c_.rows) * c_.cols;
    input_ = device_.alloc(std::max<std::size_t>(elements * sizeof(float), sizeof(double)));  // >= one copied double
    upload<float>(queue_, options_, input_, elements, kSaltA);
    out_ = device_.alloc(std::size_t(c_.kind == MemoryKind::column_sums ? c_.cols : c_.rows) * sizeof(float));
  } else if (is_yax(c_.kind)) {
    const std::uint64_t elements = std::uint64_t(c_.rows) * c_.cols;
    input_ = device_.alloc(elements * sizeof(double));
    x_ = device_.alloc(std::size_t(c_.cols) * sizeof(double));
    y_ = device_.alloc(std::size_t(c_.rows) * sizeof(double));
    upload<double>(queue_, options_, input_, elements, kSaltA);
    upload<double>(queue_, options_, x_, c_.cols, kSaltX);
    upload<double>(queue_, options_, y_, c_.rows, kSaltY);
    out_ = device_.alloc(sizeof(double));
  } else {
    const std::uint64_t elements = std::uint64_t(c_.sites) * c_.words;
    input_ = device_.alloc(elements * sizeof(double));
    upload<double>(queue_, options_, input_, elements, kSaltA);
    out_ = device_.alloc(std::size_t(c_.words) * sizeof(double));
    if (c_.kind == MemoryKind::reduce_staged) bundle_ = device_.alloc(std::size_t(c_.sites) * c_.width * sizeof(double));
  }
  record();
  // The copy bandwidth of the same run: hsad_copy_f64 over the input (up to 2 GiB of it).
  copy_count_ = std::max<std::size_t>(1, std::min<std::size_t>(input_.size(), std::size_t(2) << 30) / sizeof(double));
  scratch_ = device.alloc(copy_count_ * sizeof(double));
  const Kernel copy = device.kernel("hsad_copy_f64");
  const std::uint64_t items = round_up(copy_count_, 256);
  for (int it = 0; it < c_.iters; ++it) {
    copies_.exec(copy, Dim3{std::uint32_t(items)}, Dim3{256}, {scratch_, input_, static_cast<unsigned long long>(copy_count_)});
  }
}

void MemoryWorkload::set_block(std::uint32_t block) {
  MemoryConfig c = c_;
  c.block = block;
  validate(c, device_.info());
  c_ = c;
  record();
}

void MemoryWorkload::record() {
  batch_ = Batch{};
  if (is_matrix(c_.kind)) record_matrix();
  else if (is_yax(c_.kind)) record_yax();
  else record_reduce();
}

void MemoryWorkload::record_matrix() {
  const bool columns = c_.kind == MemoryKind::column_sums;
  const char* name = c_.kind == MemoryKind::row_sums      ? "row_sums_f32"
                     : c_.kind == MemoryKind::column_sums ? "column_sums_f32"
                                                          : "row_sums_lds_f32";
  const Kernel k = device_.kernel(name);
  const std::uint64_t items = c_.kind == MemoryKind::row_sums_lds ? std::uint64_t(c_.rows) * c_.block
                                                                  : round_up(columns ? c_.cols : c_.rows, c_.block);
  for (int it = 0; it < c_.iters; ++it) {
    batch_.exec(k, Dim3{std::uint32_t(items)}, Dim3{c_.block}, {input_, out_, c_.rows, c_.cols});
  }
}

void MemoryWorkload::record_yax() {
  const bool wave = c_.kind == MemoryKind::yax_wave;
  // yax: one partial per work-group; yax-wave: one per row (its work-group's).
  const std::uint64_t partial_count = wave ? c_.rows : round_up(c_.rows, c_.block) / c_.block;
  partials_ = device_.alloc(partial_count * sizeof(double));
  const Kernel k = device_.kernel(wave ? "yax_groups_f64" : "yax_rows_f64");
  const Kernel sum = device_.kernel("sum_partials_f64");
  const std::uint64_t items = wave ? std::uint64_t(c_.rows) * c_.block : round_up(c_.rows, c_.block);
  for (int it = 0; it < c_.iters; ++it) {
    batch_.exec(k, Dim3{std::uint32_t(items)}, Dim3{c_.block}, {y_, input_, x_, partials_, c_.rows, c_.cols});
    batch_.exec(sum, Dim3{kSumGroup}, Dim3{kSumGroup}, {partials_, out_, std::uint32_t(partial_count), 1u});  // one column
  }
}

void MemoryWorkload::record_reduce() {
  const std::uint32_t passes = c_.words / c_.width;
  // The reduce grid: a whole number of `width`s (each item then adds one word), 2048 items per
  // compute unit (a full H100 SM; 32 wavefronts of a CDNA CU), and no more than the items there
  // are words to add.
  const std::uint64_t q = c_.width / std::gcd(c_.block, c_.width);  // work-groups per whole `width`s
  const std::uint64_t wanted =
      std::uint64_t(std::max<std::uint32_t>(device_.info().compute_units, 1)) * std::max<std::uint32_t>(1, 2048 / c_.block);
  const std::uint64_t needed = round_up((std::uint64_t(c_.sites) * c_.width + c_.block - 1) / c_.block, q);
  const std::uint64_t groups = std::max(q, std::min(round_up(wanted, q), needed));
  const std::uint32_t step = std::uint32_t(groups * c_.block / c_.width);
  partials_ = device_.alloc(groups * c_.width * sizeof(double));
  const bool staged = c_.kind == MemoryKind::reduce_staged;
  const Kernel pack = device_.kernel("pack_f64");
  const Kernel reduce = device_.kernel("reduce_f64");
  const Kernel sum = device_.kernel("sum_partials_f64");
  const std::uint64_t pack_items = round_up(std::uint64_t(c_.sites) * c_.width, c_.block);
  for (int it = 0; it < c_.iters; ++it) {
    for (std::uint32_t p = 0; p < passes; ++p) {
      const std::uint32_t base = p * c_.width;
      if (staged) {
        batch_.exec(pack, Dim3{std::uint32_t(pack_items)}, Dim3{c_.block},
                    {input_, bundle_, c_.sites, base, c_.words, c_.width});
        batch_.exec(reduce, Dim3{std::uint32_t(groups * c_.block)}, Dim3{c_.block},
                    {bundle_, partials_, c_.sites, 0u, c_.width, c_.width, step});
      } else {
        batch_.exec(reduce, Dim3{std::uint32_t(groups * c_.block)}, Dim3{c_.block},
                    {input_, partials_, c_.sites, base, c_.words, c_.width, step});
      }
      batch_.exec(sum, Dim3{kSumGroup * c_.width}, Dim3{kSumGroup},  // a work-group per word
                  {partials_, at(out_, base * sizeof(double)), std::uint32_t(groups), c_.width});
    }
  }
}

void MemoryWorkload::run() { queue_.run(batch_, options_, std::chrono::minutes(10)); }

double MemoryWorkload::copy_run() {
  queue_.run(copies_, options_, std::chrono::minutes(10));
  return 2.0 * double(copy_count_) * sizeof(double);
}

double MemoryWorkload::bytes() const {
  if (is_matrix(c_.kind)) {
    return double(c_.rows) * c_.cols * sizeof(float) +
           double(c_.kind == MemoryKind::column_sums ? c_.cols : c_.rows) * sizeof(float);
  }
  if (is_yax(c_.kind)) return (double(c_.rows) * c_.cols + c_.rows + c_.cols) * sizeof(double);
  return double(c_.sites) * c_.words * sizeof(double) + double(c_.words) * sizeof(double);
}

std::string MemoryWorkload::shape() const {
  if (is_matrix(c_.kind)) return std::to_string(c_.rows) + "x" + std::to_string(c_.cols) + " f32";
  if (is_yax(c_.kind)) return std::to_string(c_.rows) + "x" + std::to_string(c_.cols) + " f64";
  return std::to_string(c_.sites) + " sites x " + std::to_string(c_.words) + " f64, " +
         std::to_string(c_.words / c_.width) + " passes of " + std::to_string(c_.width);
}

std::vector<double> MemoryWorkload::reference() const {
  std::vector<double> expected;
  if (is_matrix(c_.kind)) {
    const bool columns = c_.kind == MemoryKind::column_sums;
    expected.assign(columns ? c_.cols : c_.rows, 0.0);
    for (std::uint64_t i = 0; i < c_.rows; ++i) {
      for (std::uint64_t j = 0; j < c_.cols; ++j) expected[columns ? j : i] += value(i * c_.cols + j, kSaltA);
    }
  } else if (is_yax(c_.kind)) {
    double total = 0;
    for (std::uint64_t i = 0; i < c_.rows; ++i) {
      double row = 0;
      for (std::uint64_t j = 0; j < c_.cols; ++j) row += value(i * c_.cols + j, kSaltA) * value(j, kSaltX);
      total += value(i, kSaltY) * row;
    }
    expected = {total};
  } else {
    expected.assign(c_.words, 0.0);
    for (std::uint64_t s = 0; s < c_.sites; ++s) {
      for (std::uint64_t w = 0; w < c_.words; ++w) expected[w] += value(s * c_.words + w, kSaltA);
    }
  }
  return expected;
}

MemoryWorkload::Check MemoryWorkload::verify() {
  {
    // The results of an earlier batch (another work-group size) must not pass for this one's:
    // NaN in every output first, then one batch.
    const std::vector<unsigned char> poison(out_.size(), 0xFF);
    queue_.run(Batch{}.copy_to_device(out_, poison.data(), poison.size()), options_, std::chrono::minutes(10));
    run();
  }
  // The CPU's sums depend only on the data: computed once (the sweep checks every size against them).
  if (expected_.empty()) expected_ = reference();
  const std::vector<double>& expected = expected_;
  std::vector<double> got(expected.size());
  if (is_matrix(c_.kind)) {
    std::vector<float> sums(expected.size());
    queue_.run(Batch{}.copy_to_host(sums.data(), out_, sums.size() * sizeof(float)), options_, std::chrono::minutes(10));
    got.assign(sums.begin(), sums.end());
  } else {
    queue_.run(Batch{}.copy_to_host(got.data(), out_, got.size() * sizeof(double)), options_, std::chrono::minutes(10));
  }
  Check check;
  check.checked = expected.size();
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const double e = std::abs(got[i] - expected[i]);
    check.max_abs_error = std::max(check.max_abs_error, std::isnan(got[i]) ? INFINITY : e);
    if (!(e == 0)) ++check.wrong;
  }
  return check;
}

}  // namespace hsad::bench
