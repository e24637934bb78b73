// dispatch-bench: what one dispatch costs the runtime itself. A batch of --count empty-kernel
// dispatches under --opt, timed end to end (submit + wait); reports median/p10/p90 per dispatch.
#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>

#include "hsad/hsad.hpp"
#include "cli.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

int main(int argc, char** argv) {
  std::string opt_text, backend, format;
  int count = 0, reps = 0;
  po::options_description desc("dispatch-bench: per-dispatch cost of the runtime (empty kernels)");
  desc.add_options()("help,h", "this text")
      ("opt", po::value(&opt_text)->default_value("all"), "all | none | comma list of flags")
      ("count", po::value(&count)->default_value(10000), "dispatches per batch")
      ("reps", po::value(&reps)->default_value(21), "timed batches")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("format", po::value(&format)->default_value("table"), "table | csv | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "dispatch-bench")) return *status;
  try {
    if (count < 1 || reps < 1) throw Error("dispatch-bench", "args", "--count and --reps must be at least 1");
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("dispatch-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    const Options options = Options::parse(opt_text);
    Runtime rt = Runtime::open(backend);
    const Device& device = rt.device();
    Queue queue = device.create_queue();
    const Kernel empty = device.kernel("hsad_empty");
    Batch batch;
    for (int i = 0; i < count; ++i) batch.exec(empty, Dim3{1}, Dim3{1}, {});
    queue.run(batch, options);  // warm-up
    std::vector<double> per_dispatch;
    for (int r = 0; r < reps; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      queue.run(batch, options);
      const auto t1 = std::chrono::steady_clock::now();
      per_dispatch.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / count);
    }
    const bench::Summary s = bench::summarize(per_dispatch);
    bench::Row row = {{"backend", rt.backend()},
                      {"device", device.info().name},
                      {"flags", options.to_string()},
                      {"dispatches", std::to_string(count), true},
                      {"reps", std::to_string(reps), true},
                      {"median_us_per_dispatch", bench::fixed(s.median, 3), true},
                      {"p10_us", bench::fixed(s.p10, 3), true},
                      {"p90_us", bench::fixed(s.p90, 3), true}};
    if (format == "json") bench::print_json(std::cout, {}, {row});
    else if (format == "csv") bench::print_csv(std::cout, {row});
    else bench::print_table(std::cout, {row});
    return 0;
  } catch (const Error& e) {
    std::cerr << "dispatch-bench: " << e.what() << '\n';
    return 2;
  }
}
