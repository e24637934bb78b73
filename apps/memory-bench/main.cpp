// memory-bench: the reference notes' memory lessons as kernel sequences on any backend. Each row
// is one workload at one work-group size: the time per iteration, the effective bandwidth (the
// bytes the algorithm has to move over that time), its ratio to the copy bandwidth measured in
// the same run, and the check against sums done on the CPU. Medians over --reps batches.
#include <boost/program_options.hpp>

#include <chrono>
#include <cmath>
#include <iostream>
#include <optional>
#include <vector>

#include "cli.hpp"
#include "hsad/hsad.hpp"
#include "memory_workload.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

namespace {
// Whole and partial wavefronts (32 on NVIDIA and RDNA, 64 on CDNA), as the notes' lesson goes.
const std::vector<std::uint32_t> kSweep = {8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 1024};

// "auto" (nothing) or a count that fits 32 bits.
std::optional<std::uint32_t> parse_count(const std::string& text, const char* option) {
  if (text == "auto") return std::nullopt;
  if (text.empty() || text.size() > 10 || text.find_first_not_of("0123456789") != std::string::npos ||
      std::stoull(text) > 0xFFFFFFFFull) {
    throw Error("memory-bench", option, std::string(option) + " must be a whole number or auto, got '" + text + "'");
  }
  return std::uint32_t(std::stoull(text));
}

}  // namespace

int main(int argc, char** argv) {
  std::string workload_text, backend, format, opt_text, rows_text, cols_text, sites_text, block_text;
  bench::MemoryConfig given;
  int reps = 0;
  bool sweep = false;
  po::options_description desc("memory-bench: the memory lessons of the reference notes as measured kernel sequences");
  desc.add_options()("help,h", "this text")
      ("workload", po::value(&workload_text)->default_value("all"),
       "row-sums | column-sums | row-sums-lds | yax | yax-wave | reduce-staged | reduce-fused | all")
      ("rows", po::value(&rows_text)->default_value("auto"), "matrix rows | auto (the notes' size; a quarter of it on the cpu agent)")
      ("cols", po::value(&cols_text)->default_value("auto"), "matrix columns | auto (as many as rows)")
      ("sites", po::value(&sites_text)->default_value("auto"), "reductions: sites | auto (the notes' 262144; 1/16 on the cpu agent)")
      ("words", po::value(&given.words)->default_value(1152), "reductions: doubles per site")
      ("width", po::value(&given.width)->default_value(96), "reductions: doubles summed per pass (--words is a whole number of them)")
      ("block", po::value(&block_text)->default_value("auto"), "work-group size, 1-1024 | auto (the notes' choice per workload)")
      ("sweep-block", po::bool_switch(&sweep), "one row per work-group size: 8, 16, 32, 48, 64, 96, 128, 192, 256, 512, 1024")
      ("iters", po::value(&given.iters)->default_value(5), "iterations per batch (one wait)")
      ("reps", po::value(&reps)->default_value(5), "timed batches; the median is reported")
      ("opt", po::value(&opt_text)->default_value("all"), "dispatch optimizations, as for bitonic-bench")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("format", po::value(&format)->default_value("table"), "table | csv | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "memory-bench")) return *status;
  try {
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("memory-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    if (reps < 1) throw Error("memory-bench", "--reps", "--reps must be at least 1");
    std::vector<bench::MemoryKind> kinds;
    if (workload_text == "all") {
      for (const auto& [name, kind] : bench::memory_workloads()) kinds.push_back(kind);
    } else {
      kinds.push_back(bench::parse_memory_workload(workload_text));
    }
    const Options options = Options::parse(opt_text);
    const std::optional<std::uint32_t> rows_given = parse_count(rows_text, "--rows");
    const std::optional<std::uint32_t> cols_given = parse_count(cols_text, "--cols");
    const std::optional<std::uint32_t> sites_given = parse_count(sites_text, "--sites");
    const std::optional<std::uint32_t> block_given = parse_count(block_text, "--block");
    // Sizes are checked before any device is opened: a bad size is refused at once.
    auto config_for = [&](bench::MemoryKind kind, std::uint32_t divisor) {
      bench::MemoryConfig c = bench::memory_seed_size(kind, divisor);
      if (rows_given) c.rows = *rows_given, c.cols = *rows_given;
      if (cols_given) c.cols = *cols_given;
      if (sites_given) c.sites = *sites_given;
      c.words = given.words, c.width = given.width, c.iters = given.iters;
      c.block = block_given ? *block_given : bench::memory_default_block(kind);
      return c;
    };
    for (bench::MemoryKind kind : kinds) bench::validate(config_for(kind, 1), DeviceInfo{});

    Runtime rt = Runtime::open(backend);
    const Device& device = rt.device();
    const std::uint32_t divisor = rt.backend() == "cpu" ? 4 : 1;
    std::vector<bench::Row> rows;
    bool all_verified = true;
    for (bench::MemoryKind kind : kinds) {
      bench::MemoryWorkload w(device, config_for(kind, divisor), options);
      w.copy_run();  // warm-up
      double copy_bytes = 0;
      const double t_copy = bench::median_seconds(reps, [&] { copy_bytes = w.copy_run(); }) / w.config().iters;
      const double copy_gbs = copy_bytes / t_copy / 1e9;
      const std::vector<std::uint32_t> blocks = sweep ? kSweep : std::vector<std::uint32_t>{w.config().block};
      for (std::uint32_t block : blocks) {
        w.set_block(block);
        const auto check = w.verify();  // also the warm-up
        const double t = bench::median_seconds(reps, [&] { w.run(); }) / w.config().iters;
        const double gbs = w.bytes() / t / 1e9;
        const bool ok = check.wrong == 0;
        all_verified = all_verified && ok;
        rows.push_back({{"backend", rt.backend()},
                        {"device", device.info().name},
                        {"workload", bench::memory_workload_name(kind)},
                        {"shape", w.shape()},
                        {"block", std::to_string(block), true},
                        {"dispatches_per_iteration", std::to_string(w.dispatches_per_iteration()), true},
                        {"ms", bench::fixed(t * 1e3, 4), true},
                        {"gbs", bench::fixed(gbs, 1), true},
                        {"copy_gbs", bench::fixed(copy_gbs, 1), true},
                        {"ratio", bench::fixed(gbs / copy_gbs, 3), true},
                        {"max_abs_error", std::isfinite(check.max_abs_error) ? bench::fixed(check.max_abs_error, 1) : "null", true},
                        {"verified", ok ? "true" : "false", true}});
        if (!ok) {
          std::cerr << "memory-bench: " << bench::memory_workload_name(kind) << " at block " << block << ": "
                    << check.wrong << " of " << check.checked << " sums differ from the CPU's (largest error "
                    << check.max_abs_error << ")\n";
        }
      }
    }
    if (format == "json") bench::print_json(std::cout, {}, rows);
    else if (format == "csv") bench::print_csv(std::cout, rows);
    else bench::print_table(std::cout, rows);
    return all_verified ? 0 : 3;
  } catch (const Error& e) {
    std::cerr << "memory-bench: " << e.what() << '\n';
    return 2;
  }
}
