// bitonic-bench: the per-optimization latency ladder of the seed ("Optimizing HSA Dispatch"):
// a bitonic sort of n keys, baseline then one optimization added per row, each row timed as
// median/p10/p90 over --iters iterations of copy in + all dispatches + copy out, and beside it the
// host time spent in Queue::submit (host_submit_us, and per dispatch): what the runtime costs the
// host, the one figure the simulated GPU measures for real.
#include <boost/program_options.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <random>

#include "bitonic.hpp"
#include "bitonic_workload.hpp"
#include "vendor_peers.hpp"
#include "ladder.hpp"
#include "hsad/hsad.hpp"
#include "cli.hpp"
#include "report.hpp"
#include "sim_cache.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

namespace {

using Copies = bench::BitonicWorkload::Copies;

// A row of the ladder: the library's flags, and whether the iteration's copies are commands of
// the batch (one submission, one host wait) or blocking calls around it.
struct BenchRow {
  std::string config;
  Options options;
  Copies copies = Copies::blocking;
};

// The library's ladder, with the seed's whole iteration as one submission right after +pinned
// ("+copies"); +replay then replays that whole iteration.
std::vector<BenchRow> bench_rows(const Options& wanted) {
  std::vector<BenchRow> rows;
  bool whole = false;
  for (const bench::LadderRow& r : bench::ladder(wanted)) {
    rows.push_back({r.config, r.options, r.config == "+replay" && whole ? Copies::in_batch : Copies::blocking});
    if (r.config == "+pinned") {
      rows.push_back({"+copies", r.options, Copies::in_batch});
      whole = true;
    }
  }
  return rows;
}

struct RowResult {
  BenchRow row;
  bench::Summary us;
  bool sorted = false;
  Stats per_iteration;
  // Under hsad-sim's cache model: the L2 lines its fences wrote back and invalidated, per iteration.
  std::optional<bench::SimCacheLines> l2_lines;
  // --profile: the device's own times, medians over the profiled iterations.
  std::optional<double> device_us;  // first command's start to last command's end
  std::optional<double> kernel_us;  // one bitonic_step dispatch
  bench::Summary submit_us;         // the host time in Queue::submit per iteration
};

// The device times of one profiled iteration: its span, and the mean dispatch (of either kernel
// the algorithm uses; copies are not dispatches).
std::pair<double, double> device_times(const std::vector<CommandTime>& t) {
  if (t.empty()) return {0, 0};
  double kernels = 0;
  std::size_t count = 0;
  for (const CommandTime& c : t) {
    if (c.what.rfind("copy_", 0) == 0) continue;
    kernels += double(c.end_ns - c.start_ns);
    ++count;
  }
  // A replayed graph is timed as a whole: no single dispatch's time (NaN, printed as null).
  return {double(t.back().end_ns - t.front().start_ns) / 1e3, count ? kernels / double(count) / 1e3 : std::nan("")};
}

// Every row is set up first; then each round times one iteration of every row in turn, so
// drift and noise on the machine fall on all rows alike and the deltas compare like with like.
// Profiling (which gives every dispatch a signal or an event pair of its own) comes after, in
// iterations of its own, so it never weighs on the host-measured times.
std::vector<RowResult> measure_ladder(const Device& device, const std::vector<BenchRow>& rows, std::uint32_t n,
                                      bench::BitonicWorkload::Algo algo, std::uint32_t chunk_log2, int iters,
                                      int warmup, bool profile,
                                      const std::vector<std::uint32_t>& keys, const std::vector<std::uint32_t>& expected) {
  std::vector<std::unique_ptr<bench::BitonicWorkload>> work;
  std::vector<std::vector<double>> samples(rows.size()), submit_us(rows.size());
  std::vector<Stats> counted(rows.size());
  std::vector<bench::SimCacheLines> l2(rows.size());
  const Queue queue = device.create_queue();  // one queue for all rows: one packet processor
  for (const BenchRow& row : rows) {
    work.push_back(std::make_unique<bench::BitonicWorkload>(device, queue, n, row.options, row.copies, algo, chunk_log2));
    std::copy(keys.begin(), keys.end(), work.back()->input());
    for (int i = 0; i < warmup; ++i) work.back()->run();
  }
  for (int i = 0; i < iters; ++i) {
    for (std::size_t r = 0; r < work.size(); ++r) {
      const Stats before = device.stats();
      const auto l2_before = bench::sim_cache_lines();
      const auto t0 = std::chrono::steady_clock::now();
      work[r]->run();
      const auto t1 = std::chrono::steady_clock::now();
      counted[r] = counted[r] + (device.stats() - before);
      if (l2_before) {
        const bench::SimCacheLines d = *bench::sim_cache_lines() - *l2_before;
        l2[r].written_back += d.written_back, l2[r].invalidated += d.invalidated;
      }
      samples[r].push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
      submit_us[r].push_back(work[r]->last_submit_us());
    }
  }
  std::vector<RowResult> results;
  for (std::size_t r = 0; r < work.size(); ++r) {
    const Stats d = Stats::combine(counted[r], counted[r], [iters](std::uint64_t v, std::uint64_t) {
      return v / std::uint64_t(iters);
    });
    results.push_back({rows[r], bench::summarize(samples[r]), work[r]->output_matches(expected), d, std::nullopt, {}, {},
                       bench::summarize(submit_us[r])});
    if (bench::sim_cache_lines()) {
      results.back().l2_lines = bench::SimCacheLines{l2[r].written_back / std::uint64_t(iters), l2[r].invalidated / std::uint64_t(iters)};
    }
  }
  if (profile) {
    std::vector<std::vector<double>> span(rows.size()), kernel(rows.size());
    for (int i = 0; i < iters; ++i) {
      for (std::size_t r = 0; r < work.size(); ++r) {
        const auto [s, k] = device_times(work[r]->run_profiled());
        span[r].push_back(s);
        kernel[r].push_back(k);
      }
    }
    for (std::size_t r = 0; r < work.size(); ++r) {
      results[r].device_us = bench::summarize(span[r]).median;
      results[r].kernel_us = bench::summarize(kernel[r]).median;
      results[r].sorted = results[r].sorted && work[r]->output_matches(expected);
    }
  }
  return results;
}

}  // namespace

int main(int argc, char** argv) {
  std::string opt_text, n_text, algo_text, chunk_text, backend, format;
  int iters = 0, warmup = 0;
  bool peers = false, profile = false;
  po::options_description desc(
      "bitonic-bench: latency per iteration of a bitonic sort, baseline then one dispatch optimization per row");
  desc.add_options()("help,h", "this text")
      ("opt", po::value(&opt_text)->default_value("all"), "all | none | comma list of signal,kernarg,nosync,fence,pinned,replay")
      ("n", po::value(&n_text)->default_value("32768"), "keys: a power of two from 2 to 2^26")
      ("algo", po::value(&algo_text)->default_value("steps"),
       "steps: one dispatch per pass (k(k+1)/2: 120 for 32768 keys) | lds: every pass shorter than a 4096-key chunk "
       "inside one dispatch, in LDS, and the longer ones up to three per dispatch (10 for 32768 keys)")
      ("chunk", po::value(&chunk_text)->default_value("auto"),
       "--algo lds: keys per work-group, a power of two from 2 to 4096 (auto: the largest that gives 16 "
       "work-groups, at least 1024: 2048 for 32768 keys)")
      ("iters", po::value(&iters)->default_value(100), "timed iterations per row")
      ("warmup", po::value(&warmup)->default_value(5), "untimed iterations per row first")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("format", po::value(&format)->default_value("table"), "table | csv | json")
      ("peers", po::bool_switch(&peers),
       "also run the vendor's runtime on the same GPU: CUDA (runtime, a hand-written graph, CUB) on cuda, HIP on rocr")
      ("profile", po::bool_switch(&profile),
       "then time each row on the device too (Options::profile): its span and one dispatch, beside the host time");
  if (auto status = bench::parse_cli(argc, argv, desc, "bitonic-bench")) return *status;

  try {
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("bitonic-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    if (iters < 1 || warmup < 0) throw Error("bitonic-bench", "--iters", "--iters must be at least 1 and --warmup at least 0");
    const std::uint32_t n = bench::parse_bitonic_size(n_text);
    const bench::BitonicWorkload::Algo algo = bench::parse_bitonic_algo(algo_text);
    const std::uint32_t chunk_wanted = bench::parse_bitonic_chunk(chunk_text);
    if (chunk_wanted && algo != bench::BitonicWorkload::Algo::lds) {
      throw Error("bitonic-bench", "--chunk", "--chunk is --algo lds's", "add --algo lds");
    }
    const std::uint32_t chunk_log2 = kernels::bitonic_local_chunk_log2(n, chunk_wanted);
    const Options wanted = Options::parse(opt_text);

    Runtime rt = Runtime::open(backend);
    const Device& device = rt.device();

    std::vector<std::uint32_t> keys(n);
    std::mt19937 rng(12345);
    for (auto& k : keys) k = rng();
    std::vector<std::uint32_t> expected = keys;
    std::sort(expected.begin(), expected.end());

    const std::vector<RowResult> results =
        measure_ladder(device, bench_rows(wanted), n, algo, chunk_log2, iters, warmup, profile, keys, expected);

    const std::size_t dispatches = algo == bench::BitonicWorkload::Algo::steps
                                       ? kernels::bitonic_dispatches(n)
                                       : kernels::bitonic_lds_dispatches(n, chunk_log2);
    std::vector<bench::Row> rows;
    bool all_sorted = true;
    for (std::size_t i = 0; i < results.size(); ++i) {
      const RowResult& r = results[i];
      all_sorted = all_sorted && r.sorted;
      const double delta = i == 0 ? 0.0 : r.us.median - results[i - 1].us.median;
      bench::Row row = {{"config", r.row.config},
                        {"flags", r.row.options.to_string()},
                        {"median_us", bench::fixed(r.us.median), true},
                        {"p10_us", bench::fixed(r.us.p10), true},
                        {"p90_us", bench::fixed(r.us.p90), true},
                        {"delta_us", i == 0 ? std::string("null") : bench::fixed(delta), true},
                        {"host_submit_us", bench::fixed(r.submit_us.median), true},
                        {"host_ns_per_dispatch", bench::fixed(r.submit_us.median * 1000.0 / double(dispatches), 1), true},
                        {"sorted", r.sorted ? "true" : "false", true}};
      if (profile) {
        row.push_back({"device_us", bench::fixed(*r.device_us), true});
        row.push_back({"kernel_us", std::isnan(*r.kernel_us) ? "null" : bench::fixed(*r.kernel_us, 2), true});
      }
      // CUDA has no per-launch fence control: the row runs, and says so rather than invent a gain.
      // Under hsad-sim only the host's times are real: every row says so.
      std::string note = rt.backend() == "cuda" && r.row.config == "+fence" ? "fence: n/a on cuda"
                         : r.row.copies == Copies::in_batch                  ? "copies in the batch: one submission"
                                                                             : "";
      if (device.info().name.find("simulated") != std::string::npos) note += note.empty() ? "simulated" : "; simulated";
      if (!note.empty() || format != "json") row.push_back({"note", note});
      if (format != "json") {
        if (i == 0) row[5].value = "";  // delta_us
        const Stats& s = r.per_iteration;
        row.insert(row.end(), {{"packets", std::to_string(s.packets)},
                               {"doorbells", std::to_string(s.doorbells)},
                               {"waits", std::to_string(s.host_waits)},
                               {"signals_new", std::to_string(s.signals_created)},
                               {"kernarg_allocs", std::to_string(s.kernarg_allocations)},
                               {"sys_fences", std::to_string(s.system_fences)},
                               {"bytes_staged", std::to_string(s.bytes_staged)},
                               {"copies", std::to_string(s.copies)}});
      }
      // hsad-sim's cache model: the lines the row's fences moved (modelled traffic, not time).
      if (r.l2_lines) {
        row.push_back({"model_l2_lines_written_back", std::to_string(r.l2_lines->written_back), true});
        row.push_back({"model_l2_lines_invalidated", std::to_string(r.l2_lines->invalidated), true});
      }
      rows.push_back(std::move(row));
    }

    std::vector<bench::Row> peer_rows;
    if (peers) {
      if (rt.backend() != "cuda" && rt.backend() != "rocr") {
        throw Error("bitonic-bench", "--peers", "the " + rt.backend() + " backend has no vendor runtime to compare with",
                    "--backend cuda (CUDA) or rocr (HIP; hsad-sim runs it without an AMD GPU)");
      }
      auto median_of = [&](const char* config) {
        for (auto& r : results) if (r.row.config == config) return r.us.median;
        return 0.0;
      };
      const double base = results.front().us.median, best = results.back().us.median;
      const bool simulated = device.info().name.find("simulated") != std::string::npos;
      const auto peer_results = rt.backend() == "cuda" ? bench::run_cuda_peers(keys, iters, warmup)
                                                       : bench::run_hip_peers(keys, iters, warmup);
      for (const bench::PeerResult& p : peer_results) {
        const bench::Summary s = bench::summarize(p.samples_us);
        all_sorted = all_sorted && p.sorted;
        bench::Row row = {{"peer", p.name},
                          {"median_us", bench::fixed(s.median), true},
                          {"p10_us", bench::fixed(s.p10), true},
                          {"p90_us", bench::fixed(s.p90), true},
                          {"vs_baseline", bench::fixed(s.median / base, 3), true},
                          {"vs_last_row", bench::fixed(s.median / best, 3), true},
                          {"sorted", p.sorted ? "true" : "false", true}};
        if (const double replay = median_of("+replay"); replay > 0) {
          row.insert(row.end() - 1, {"replay_vs_this", bench::fixed(replay / s.median, 3), true});
        }
        if (simulated) row.push_back({"note", "simulated: the interpreter's time, no AMD number"});
        peer_rows.push_back(std::move(row));
      }
    }

    const bench::Row header = {{"backend", rt.backend()},
                               {"device", device.info().name},
                               {"n", std::to_string(n), true},
                               {"algo", algo_text},
                               {"chunk", algo == bench::BitonicWorkload::Algo::lds ? std::to_string(1u << chunk_log2) : "null", true},
                               {"dispatches", std::to_string(dispatches), true},
                               {"iterations", std::to_string(iters), true}};
    if (format == "json") {
      if (peer_rows.empty()) bench::print_json(std::cout, header, rows);
      else bench::print_json(std::cout, header, rows, {{"peers", peer_rows}});
    } else if (format == "csv") {
      bench::print_csv(std::cout, rows);
      if (!peer_rows.empty()) {
        std::cout << '\n';
        bench::print_csv(std::cout, peer_rows);
      }
    } else {
      std::cout << "bitonic-bench: " << n << " keys, " << dispatches << " dispatches per iteration (--algo " << algo_text
                << "), " << iters
                << " iterations per row, rows interleaved (median, p10, p90 in us per iteration; counters per iteration)\n"
                << "backend " << rt.backend() << ": " << device.info().name << "\n\n";
      bench::print_table(std::cout, rows);
      if (!peer_rows.empty()) {
        std::cout << "\n" << (rt.backend() == "cuda" ? "CUDA" : "HIP")
                  << " peers on the same GPU, same keys, same iteration (copy in, sort, copy out):\n\n";
        bench::print_table(std::cout, peer_rows);
      }
    }
    if (!all_sorted) {
      std::cerr << "bitonic-bench: a row did not sort correctly\n";
      return 3;
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "bitonic-bench: " << e.what() << '\n';
    return 2;
  } catch (const std::runtime_error& e) {  // the vendor peers
    std::cerr << "bitonic-bench: " << e.what() << '\n';
    return 2;
  }
}
