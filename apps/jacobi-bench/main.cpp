// jacobi-bench: a Jacobi solver for the Poisson equation on the Laplacian's grid that iterates
// until the norm of its update falls below a tolerance (kernels/jacobi.hpp), the loop run three
// ways with the library: on the device (Batch::loop_begin: one submit, one wait), and from the
// host checking the norm after every iteration or every --check-every. For each --size: the
// iterations, time per iteration and the process's CPU time per iteration, medians over --reps,
// (a fourth way: the device loop reading the norm every --check-every, Batch::loop_while's
// check_every, verified by --verify to equal the host loop that does the same, bit for bit)
// and each way's time against the device loop's in the same run. --peers adds the same solver
// written for the vendor's runtime (CUDA: host loops and a hand-written WHILE graph; HIP: host
// loops); --verify checks the first run against the same iteration on the host (small grids).
// --devices N adds the solver over N devices (jacobi_slabs.hpp: a device-run loop on each, the
// devices meeting on the devices), its host loops beside it, and the parallel efficiency against
// the one-device rows of the same run. Under hsad-sim only host times are real: every row says so.
#include <boost/program_options.hpp>

#include <algorithm>
#include <cmath>
#include <iostream>

#include "cli.hpp"
#include "device_choice.hpp"
#include "hsad/hsad.hpp"
#include "jacobi_peers.hpp"
#include "jacobi_slabs.hpp"
#include "jacobi_workload.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

namespace {
// --verify's host iteration is one thread of plain C++: grids up to this side.
constexpr int kVerifyMax = 64;

struct Samples {
  std::string impl;
  std::vector<double> us_per_iteration, cpu_us_per_iteration;
  std::uint64_t iterations = 0;
  double norm = 0;
  bool at_guard = false;
};

void add(Samples& s, std::uint64_t iterations, double seconds, double cpu_seconds, double norm, bool at_guard) {
  s.iterations = iterations;
  s.norm = norm;
  s.at_guard = at_guard;
  s.us_per_iteration.push_back(seconds * 1e6 / double(iterations));
  s.cpu_us_per_iteration.push_back(cpu_seconds * 1e6 / double(iterations));
}

// Checks a solution against the host's iteration over the same number of slabs: the same
// iteration count and the same values to rounding (the devices may contract a multiply-add the
// host does not).
void verify(const bench::JacobiProblem& problem, int devices, const std::vector<double>& got, std::uint64_t iterations) {
  std::uint64_t host_iterations = 0;
  double host_norm = 0;
  const std::vector<double> want = bench::host_jacobi(problem, &host_iterations, &host_norm, devices);
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) worst = std::max(worst, std::fabs(got[i] - want[i]));
  const std::string on = devices == 1 ? "the device" : std::to_string(devices) + " devices";
  if (host_iterations != iterations || !(worst <= 1e-9)) {
    throw Error("jacobi-bench", "--verify",
                on + " took " + std::to_string(iterations) + " iterations, the host " + std::to_string(host_iterations) +
                    "; largest difference " + std::to_string(worst));
  }
  std::cerr << "jacobi-bench: n = " << problem.n << ": " << on << " verified against the host (" << host_iterations
            << " iterations, largest difference " << worst << ")\n";
}
// The device loop that checks every k runs what the host loop that checks every k runs: the
// same iterations, and the same values bit for bit (the same kernels in the same order).
void verify_same_as_host_loop(int n, unsigned k, int devices, const std::vector<double>& got, std::uint64_t iterations,
                              const std::vector<double>& want, std::uint64_t want_iterations) {
  const std::string what = "the device loop" + std::string(devices == 1 ? "" : "s over " + std::to_string(devices) + " devices") +
                           " checking every " + std::to_string(k);
  if (iterations != want_iterations || got != want) {
    std::size_t differ = 0;
    for (std::size_t i = 0; i < want.size() && i < got.size(); ++i) differ += got[i] != want[i];
    throw Error("jacobi-bench", "--verify",
                what + " took " + std::to_string(iterations) + " iterations, the host loop " + std::to_string(want_iterations) +
                    "; " + std::to_string(differ) + " points differ");
  }
  std::cerr << "jacobi-bench: n = " << n << ": " << what << " matches the host loop checking every " << k << " ("
            << iterations << " iterations, bit for bit)\n";
}
}  // namespace

int main(int argc, char** argv) {
  std::string backend, format, size_text, opt_text, devices_text;
  int reps = 5;
  unsigned k = 10;
  double tolerance = 1e-4;
  std::uint64_t max_iterations = 100000;
  bool peers = false, do_verify = false;
  po::options_description desc("jacobi-bench options");
  desc.add_options()("help", "show this help")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("size", po::value(&size_text)->default_value("64,128"), "grid points per side: a number or a comma list")
      ("tol", po::value(&tolerance)->default_value(1e-4), "stop once the 2-norm of an iteration's update is at most this")
      ("max-iterations", po::value(&max_iterations)->default_value(100000), "the loop's guard")
      ("check-every", po::value(&k)->default_value(10), "the second host loop, and the second device loop, check the norm every this many iterations")
      ("reps", po::value(&reps)->default_value(5), "timed solves per way (after one warm-up)")
      ("opt", po::value(&opt_text)->default_value("all"), "the library's flags: all | none | a comma list")
      ("devices", po::value(&devices_text)->default_value("1"),
       "also the solver over this many devices (a number or 'all'): each in a device-run loop, meeting on the devices")
      ("peers", po::bool_switch(&peers), "also the vendor runtime's solver (cuda: CUDA runtime and a WHILE graph; rocr: HIP)")
      ("verify", po::bool_switch(&do_verify), "check the first solve against the host's (grids up to 64 per side)")
      ("format", po::value(&format)->default_value("table"), "table | csv | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "jacobi-bench")) return *status;
  try {
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("jacobi-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    if (reps < 1) throw Error("jacobi-bench", "--reps", "at least one repetition", "--reps 5");
    if (k < 1) throw Error("jacobi-bench", "--check-every", "at least 1");
    if (max_iterations < 1) throw Error("jacobi-bench", "--max-iterations", "at least 1");
    // The device loops run whole rounds of k: a k past the guard would run k iterations whatever
    // the guard, the tolerance never checked.
    if (k > max_iterations) {
      throw Error("jacobi-bench", "--check-every",
                  "a check every " + std::to_string(k) + " iterations is past --max-iterations " + std::to_string(max_iterations),
                  "check at most every --max-iterations iterations");
    }
    if (!(tolerance > 0)) throw Error("jacobi-bench", "--tol", "the tolerance must be positive");
    const std::vector<int> sizes = bench::parse_int_list(size_text, 3, 1024, "jacobi-bench", "--size",
                                                         "a grid side from 3 to 1024", "for example --size 64,128,512");
    const Options options = Options::parse(opt_text);
    const int device_count = bench::parse_device_count("jacobi-bench", devices_text);
    Runtime rt = Runtime::open(backend);
    const std::vector<Device> devices = bench::pick_devices("jacobi-bench", rt, device_count);
    if (peers && rt.backend() != "cuda" && rt.backend() != "rocr") {
      throw Error("jacobi-bench", "--peers", "the " + rt.backend() + " backend has no vendor runtime to compare with",
                  "--backend cuda (the CUDA runtime) or rocr (HIP; hsad-sim runs it without an AMD GPU)");
    }
    Device device = rt.device();
    const bool simulated = device.info().name.find("simulated") != std::string::npos;
    std::vector<bench::Row> rows;
    for (const int n : sizes) {
      const bench::JacobiProblem problem{n, tolerance, max_iterations};
      std::vector<Samples> ways;
      // The library's three ways on a solver of one device (JacobiSolver, a Queue) or of several
      // (JacobiSlabs, a Queue each), appended to `ways` in this order: the device loop, the host
      // loop every iteration, every k, and the device loop that checks every k.
      const auto measure = [&](auto& solver, auto& queues, int count) {
        const std::string on = count == 1 ? "" : " over " + std::to_string(count) + " devices";
        const std::size_t first = ways.size();
        ways.resize(first + 4);
        ways[first].impl = "hsadispatch device loop" + std::string(count == 1 ? "" : "s") + on;
        ways[first + 1].impl = "hsadispatch host loop" + on + ", check every iteration";
        ways[first + 2].impl = "hsadispatch host loop" + on + ", check every " + std::to_string(k);
        ways[first + 3].impl = "hsadispatch device loop" + std::string(count == 1 ? "" : "s") + on + ", check every " + std::to_string(k);
        for (int r = -1; r < reps; ++r) {  // -1: the warm-up (graphs, the loop ring, code loaded)
          solver.reset();
          const bench::JacobiRun d = solver.run_device_loop(queues, options);
          if (r == -1 && do_verify) {
            if (n <= kVerifyMax) verify(problem, count, solver.solution(), d.iterations);
            else if (count == 1) std::cerr << "jacobi-bench: n = " << n << ": not verified (the host's iteration is for n <= " << kVerifyMax << ")\n";
          }
          if (d.at_guard && r == -1 && count == 1) {
            std::cerr << "jacobi-bench: n = " << n << ": the norm is " << d.norm << " after --max-iterations "
                      << max_iterations << ", above --tol " << tolerance << ": every way stops at the guard\n";
          }
          solver.reset();
          const bench::JacobiRun h1 = solver.run_host_loop(queues, options, 1);
          solver.reset();
          const bench::JacobiRun hk = solver.run_host_loop(queues, options, k);
          std::vector<double> host_k;
          if (r == -1 && do_verify) host_k = solver.solution();
          solver.reset();
          const bench::JacobiRun dk = solver.run_device_loop(queues, options, k);
          if (r == -1 && do_verify) verify_same_as_host_loop(n, k, count, solver.solution(), dk.iterations, host_k, hk.iterations);
          if (r < 0) continue;
          add(ways[first], d.iterations, d.seconds, d.cpu_seconds, d.norm, d.at_guard);
          add(ways[first + 1], h1.iterations, h1.seconds, h1.cpu_seconds, h1.norm, h1.at_guard);
          add(ways[first + 2], hk.iterations, hk.seconds, hk.cpu_seconds, hk.norm, hk.at_guard);
          add(ways[first + 3], dk.iterations, dk.seconds, dk.cpu_seconds, dk.norm, dk.at_guard);
        }
      };
      {
        bench::JacobiSolver solver(device, problem);
        Queue q = device.create_queue();
        measure(solver, q, 1);
      }
      if (peers) {
        const bench::JacobiPeerConfig config{n, tolerance, max_iterations, k, reps};
        const auto results = rt.backend() == "cuda" ? bench::run_cuda_jacobi_peers(config) : bench::run_hip_jacobi_peers(config);
        for (const bench::JacobiPeerResult& p : results) {
          Samples s;
          s.impl = p.name;
          for (std::size_t i = 0; i < p.seconds.size(); ++i) {
            add(s, p.iterations[i], p.seconds[i], p.cpu_seconds[i], p.norm[i], p.norm[i] > tolerance);
          }
          ways.push_back(s);
        }
      }
      const std::size_t one_device_ways = ways.size();
      if (devices.size() > 1) {
        bench::JacobiSlabs slabs(devices, problem);
        std::vector<Queue> queues = slabs.make_queues();
        measure(slabs, queues, int(devices.size()));
      }
      for (std::size_t w = 0; w < ways.size(); ++w) {
        const Samples& s = ways[w];
        // The device loop of the same device count is the yardstick; the N-device ways are also
        // set against the same way on one device: the parallel efficiency t(1) / (N t(N)).
        const bool multi = w >= one_device_ways;
        const int count = multi ? int(devices.size()) : 1;
        const double device_us = bench::summarize(ways[multi ? one_device_ways : 0].us_per_iteration).median;
        const bench::Summary us = bench::summarize(s.us_per_iteration), cpu = bench::summarize(s.cpu_us_per_iteration);
        std::string efficiency = "null";
        if (multi) {
          const double one = bench::summarize(ways[w - one_device_ways].us_per_iteration).median;
          efficiency = bench::fixed(one / (count * us.median), 3);
        }
        rows.push_back({{"backend", rt.backend()},
                        {"device", device.info().name},
                        {"devices", std::to_string(count), true},
                        {"n", std::to_string(n), true},
                        {"impl", s.impl},
                        {"iterations", std::to_string(s.iterations), true},
                        {"norm", bench::fixed(s.norm * 1e6, 3) + "e-6"},
                        {"stopped_by", s.at_guard ? "max-iterations" : "tolerance"},
                        {"us_per_iteration", bench::fixed(us.median, 2), true},
                        {"p10", bench::fixed(us.p10, 2), true},
                        {"p90", bench::fixed(us.p90, 2), true},
                        {"host_cpu_us_per_iteration", bench::fixed(cpu.median, 2), true},
                        {"vs_device_loop", bench::fixed(us.median / device_us, 2), true},
                        {"efficiency", efficiency, true},
                        {"reps", std::to_string(reps), true},
                        {"note", simulated ? "simulated GPU: only host times are real" : ""}});
      }
    }
    if (format == "json") bench::print_json(std::cout, {}, rows);
    else if (format == "csv") bench::print_csv(std::cout, rows);
    else bench::print_table(std::cout, rows);
    return 0;
  } catch (const Error& e) {
    std::cerr << "jacobi-bench: " << e.what() << '\n';
    return 2;
  }
}
