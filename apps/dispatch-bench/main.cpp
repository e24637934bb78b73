// dispatch-bench: what one dispatch costs the runtime itself. A batch of N empty-kernel dispatches
// under --opt, for each N of --count: the host time spent submitting (submit alone, no wait) and
// the time end to end (submit + wait), per dispatch, median/p10/p90 over --reps (--enqueue: enqueue,
// then finish, the submit that makes no handle). With --peers, the
// vendor's runtime launching the same empty kernel on the same GPU in the same run (cuda: the CUDA
// runtime and a CUDA graph; rocr: hipLaunchKernelGGL and hipGraphLaunch), each of its repetitions
// right after one of the library's (dispatch_peers.hpp says why they alternate), and the ratio of
// each peer's host time to the library's: of the medians, and the median of the repetitions' own
// ratios (each peer's launch over the library's submit just before it). Under hsad-sim only the host times are real: the device's
// name says "simulated", and so does every row's note.
#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <limits>
#include <vector>

#include "cli.hpp"
#include "dispatch_peers.hpp"
#include "hsad/hsad.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

namespace {

struct Measured {
  std::string impl;
  bench::Summary us, host_ns;
  double paired_host_ratio = 1;  // a peer: the median of its repetitions' host time over the library's before each
};

bench::Row row_of(const Runtime& rt, const Device& device, const Options& options, int count, int reps, const Measured& m,
                  double library_host_ns) {
  const bool simulated = device.info().name.find("simulated") != std::string::npos;
  return {{"backend", rt.backend()},
          {"device", device.info().name},
          {"impl", m.impl},
          {"flags", m.impl.rfind("hsadispatch", 0) == 0 ? options.to_string() : "-"},
          {"dispatches", std::to_string(count), true},
          {"reps", std::to_string(reps), true},
          {"median_us_per_dispatch", bench::fixed(m.us.median, 3), true},
          {"p10_us", bench::fixed(m.us.p10, 3), true},
          {"p90_us", bench::fixed(m.us.p90, 3), true},
          {"host_ns_per_dispatch", bench::fixed(m.host_ns.median, 1), true},
          {"host_p10_ns", bench::fixed(m.host_ns.p10, 1), true},
          {"host_p90_ns", bench::fixed(m.host_ns.p90, 1), true},
          {"host_vs_hsadispatch_paired", bench::fixed(m.paired_host_ratio, 2), true},
          {"host_vs_hsadispatch", bench::fixed(m.host_ns.median / library_host_ns, 2), true},
          {"note", simulated ? "simulated: host times only" : "-"}};
}

// The library's repetitions: submit (host time), then wait; per dispatch. `set_args`: each submit
// follows a Batch::set_args of the first dispatch, inside the host time (what changing one argument
// costs). `enqueue`: Queue::enqueue, which makes no handle (as cudaGraphLaunch returns none), then
// Queue::finish, instead of submit and Submission::wait.
struct LibraryRuns {
  Queue& q;
  Batch& batch;
  const Options& options;
  int count;
  bool set_args = false;
  bool enqueue = false;
  std::uint64_t stream_sync = 0;  // --stream-sync: the queue's CUstream, synchronized before the library's own wait
  bool steady = false;            // --steady: an untimed repetition of the library's own before each timed one
  std::vector<double> us, host;

  void warm_up() { q.run(batch, options); }  // the first submit builds what later ones reuse
  void rep() {
    if (steady) once(false);
    once(true);
  }
  // One repetition: submit (or enqueue), then wait (or finish); `timed` records its host time and
  // its time end to end.
  // The handle is made by the submit itself (`Submission s = q.submit(...)`, as an application
  // writes it): assigned into a handle declared earlier, the timed span would also hold a move
  // assignment and the temporary's destructor, calls an application need not make.
  void once(bool timed) {
    const auto t0 = std::chrono::steady_clock::now();
    if (timed && set_args) batch.set_args(0, {});
    if (enqueue) {
      q.enqueue(batch, options);
      return submitted(timed, t0, [&] { q.finish(); });
    }
    Submission s = q.submit(batch, options);
    submitted(timed, t0, [&] { s.wait(); });
  }
  // The submit's end (t1), then its wait; `timed` records both spans from t0.
  template <class Wait>
  void submitted(bool timed, std::chrono::steady_clock::time_point t0, Wait wait) {
    const auto t1 = std::chrono::steady_clock::now();
    if (stream_sync) bench::sync_cuda_stream(stream_sync);
    wait();
    if (timed) note(t0, t1, std::chrono::steady_clock::now());
  }
  void note(std::chrono::steady_clock::time_point t0, std::chrono::steady_clock::time_point t1,
            std::chrono::steady_clock::time_point t2) {
    host.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / count);
    us.push_back(std::chrono::duration<double, std::micro>(t2 - t0).count() / count);
  }
  Measured measured() const {
    std::string impl = "hsadispatch";
    if (set_args) impl += ", set_args +";
    impl += enqueue ? (set_args ? " enqueue" : ", enqueue") : (set_args ? " submit" : "");
    return {impl, bench::summarize(us), bench::summarize(host)};
  }
};

Measured measure_library(Queue& q, Batch& batch, const Options& options, int count, int reps, bool set_args = false,
                         bool enqueue = false) {
  LibraryRuns runs{q, batch, options, count, set_args, enqueue};
  runs.warm_up();
  for (int r = 0; r < reps; ++r) runs.rep();
  return runs.measured();
}

// The median of peer[r] / library[first + r]: each peer repetition against the library's just before it.
double paired_ratio(const std::vector<double>& peer, const std::vector<double>& library, std::size_t first) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < peer.size() && first + r < library.size(); ++r) ratios.push_back(peer[r] / library[first + r]);
  return ratios.empty() ? 0 : bench::summarize(ratios).median;
}

}  // namespace

int main(int argc, char** argv) {
  std::string opt_text, backend, format, count_text;
  int reps = 0;
  bool peers = false, set_args = false, enqueue = false, stream_sync = false, steady = false;
  po::options_description desc("dispatch-bench: per-dispatch cost of the runtime (empty kernels)");
  desc.add_options()("help,h", "this text")
      ("opt", po::value(&opt_text)->default_value("all"), "all | none | comma list of flags")
      ("count", po::value(&count_text)->default_value("10000"), "dispatches per batch: a number or a comma list")
      ("reps", po::value(&reps)->default_value(21), "timed batches")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("peers", po::bool_switch(&peers), "also the vendor runtime: CUDA (cuda) or HIP (rocr), same kernel, same run")
      ("set-args", po::bool_switch(&set_args),
       "also a row where each submit follows Batch::set_args of one dispatch (with --opt ...,replay: one block rewritten)")
      ("enqueue", po::bool_switch(&enqueue),
       "the library's submits as Queue::enqueue, then Queue::finish: no Submission handle (cudaGraphLaunch returns none)")
      ("stream-sync", po::bool_switch(&stream_sync),
       "with --peers on cuda: each library repetition waits with cudaStreamSynchronize on the queue's stream before its "
       "own wait, as the CUDA peer's do, so that every timed launch follows the same kind of wait")
      ("steady", po::bool_switch(&steady),
       "with --peers on cuda: each timed repetition, the library's and each peer's, follows an untimed one of its own "
       "(submit or launch, and wait), as in a loop of its own; the repetitions still alternate. With --stream-sync the "
       "library's untimed repetition waits so too")
      ("format", po::value(&format)->default_value("table"), "table | csv | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "dispatch-bench")) return *status;
  try {
    if (reps < 1) throw Error("dispatch-bench", "args", "--reps must be at least 1");
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("dispatch-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    const std::vector<int> counts =
        bench::parse_int_list(count_text, 1, std::numeric_limits<int>::max(), "dispatch-bench", "--count",
                              "a dispatch count of at least 1 (and at most " + std::to_string(std::numeric_limits<int>::max()) + ")",
                              "a number or a comma list: --count 1,16,64,256,1024");
    const Options options = Options::parse(opt_text);
    Runtime rt = Runtime::open(backend);
    const Device& device = rt.device();
    if (peers && rt.backend() != "cuda" && rt.backend() != "rocr") {
      throw Error("dispatch-bench", "--peers",
                  "the " + rt.backend() + " backend has no vendor runtime to compare with",
                  "--backend cuda (the CUDA runtime) or rocr (HIP; hsad-sim runs it without an AMD GPU)");
    }
    if (stream_sync && (!peers || rt.backend() != "cuda")) {
      throw Error("dispatch-bench", "--stream-sync", "it pairs the library's waits with the CUDA peer's",
                  "use it with --peers on --backend cuda");
    }
    if (steady && (!peers || rt.backend() != "cuda")) {
      throw Error("dispatch-bench", "--steady", "it times the library and the CUDA peers each after its own repetition",
                  "use it with --peers on --backend cuda");
    }
    Queue queue = device.create_queue();
    const Kernel empty = device.kernel("hsad_empty");
    std::vector<bench::Row> rows;
    for (int count : counts) {
      Batch batch;
      for (int i = 0; i < count; ++i) batch.exec(empty, Dim3{1}, Dim3{1}, {});
      if (!peers) {
        const Measured library = measure_library(queue, batch, options, count, reps, false, enqueue);
        rows.push_back(row_of(rt, device, options, count, reps, library, library.host_ns.median));
        if (set_args) {
          const Measured changed = measure_library(queue, batch, options, count, reps, true, enqueue);
          rows.push_back(row_of(rt, device, options, count, reps, changed, library.host_ns.median));
        }
        continue;
      }
      // The library's repetitions alternate with each peer's: `reps` of them before each peer's.
      LibraryRuns runs{queue, batch, options, count, false, enqueue};
      if (stream_sync) runs.stream_sync = queue.native().queue;
      runs.steady = steady;
      runs.warm_up();
      std::vector<bench::DispatchPeerSamples> vendor;
      try {
        vendor = bench::run_dispatch_peers(rt.backend(), count, reps, [&] { runs.rep(); }, steady);
      } catch (const std::runtime_error& e) {
        throw Error("dispatch-bench", "--peers", e.what());
      }
      const Measured library = runs.measured();
      rows.push_back(row_of(rt, device, options, count, int(runs.host.size()), library, library.host_ns.median));
      if (set_args) {
        const Measured changed = measure_library(queue, batch, options, count, reps, true, enqueue);
        rows.push_back(row_of(rt, device, options, count, reps, changed, library.host_ns.median));
      }
      for (std::size_t k = 0; k < vendor.size(); ++k) {
        const bench::DispatchPeerSamples& p = vendor[k];
        Measured m{p.name, bench::summarize(p.us_per_dispatch), bench::summarize(p.host_ns_per_dispatch)};
        m.paired_host_ratio = paired_ratio(p.host_ns_per_dispatch, runs.host, k * std::size_t(reps));
        rows.push_back(row_of(rt, device, options, count, reps, m, library.host_ns.median));
      }
    }
    if (format == "json") bench::print_json(std::cout, {}, rows);
    else if (format == "csv") bench::print_csv(std::cout, rows);
    else bench::print_table(std::cout, rows);
    return 0;
  } catch (const Error& e) {
    std::cerr << "dispatch-bench: " << e.what() << '\n';
    return 2;
  }
}
