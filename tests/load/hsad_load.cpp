// hsad-load: the load test as a program, for runs longer than the suite's (the GPU machine's
// 60-second runs) and for any backend. Prints what ran and what went wrong; exits 0 when nothing
// did, 1 when a result was wrong, an error came or the process grew past --max-growth-mib, 2 for a
// bad command line or a backend that cannot be opened.
#include <boost/program_options.hpp>

#include <iostream>

#include "cli.hpp"
#include "hsad/hsad.hpp"
#include "load_run.hpp"

namespace po = boost::program_options;
using namespace hsad;

int main(int argc, char** argv) {
  std::string backend, format;
  unsigned threads = 0, seconds = 0, keys_log2 = 0, enqueue_percent = 0;
  std::uint64_t seed = 0;
  long max_growth_mib = 0;
  int jacobi_n = 0;
  bool no_loops = false;
  po::options_description desc("hsad-load: threads sorting, looping, copying and freeing on one device, every result checked");
  desc.add_options()("help,h", "this text")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("threads", po::value(&threads)->default_value(8), "host threads, each with a queue of its own")
      ("seconds", po::value(&seconds)->default_value(10), "how long the load runs")
      ("seed", po::value(&seed)->default_value(1), "the random choices' seed (the same seed, the same choices per thread)")
      ("max-keys-log2", po::value(&keys_log2)->default_value(14), "sorts of 2 to 2^this keys (1 to 20)")
      ("jacobi-n", po::value(&jacobi_n)->default_value(10), "points per side of the loops' Jacobi grid")
      ("no-loops", po::bool_switch(&no_loops), "no device-run or host-run Jacobi loops")
      ("enqueue-percent", po::value(&enqueue_percent)->default_value(15),
       "of the recorded sorts, how many go out by Queue::enqueue and finish (0 to 100)")
      ("max-growth-mib", po::value(&max_growth_mib)->default_value(64), "the most VmRSS may grow after the warm-up")
      ("format", po::value(&format)->default_value("text"), "text | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "hsad-load")) return *status;
  try {
    if (format != "text" && format != "json") throw Error("hsad-load", "--format", "unknown format '" + format + "'", "text or json");
    if (seconds == 0) throw Error("hsad-load", "--seconds", "must be at least 1");
    if (jacobi_n < 4) throw Error("hsad-load", "--jacobi-n", "must be at least 4");
    const Runtime rt = Runtime::open(backend);
    load::LoadConfig c;
    c.threads = threads;
    c.duration = std::chrono::seconds(seconds);
    c.seed = seed;
    c.max_keys_log2 = keys_log2;
    c.loops = !no_loops;
    c.jacobi_n = jacobi_n;
    if (enqueue_percent > 100) throw Error("hsad-load", "--enqueue-percent", "from 0 to 100");
    c.enqueue_percent = enqueue_percent;
    const load::LoadReport r = load::run_load(rt.device(), c);
    std::cout << (format == "json" ? load::to_json(r) : load::to_text(r));
    const bool ok = load::passed(r, max_growth_mib * 1024);
    if (!ok && format == "text") std::cout << "FAILED\n";
    return ok ? 0 : 1;
  } catch (const Error& e) {
    std::cerr << "hsad-load: " << e.what() << '\n';
    return 2;
  }
}
