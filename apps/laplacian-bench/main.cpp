// laplacian-bench: the figure of merit (effective memory bandwidth, the lab notes' formula) of
// the Laplacian Kernels 5, 6 and 7 as batched sequences, beside the device's copy bandwidth
// measured in the same run. Medians over --reps batches of --iters applications each.
#include <boost/program_options.hpp>

#include <chrono>
#include <iostream>
#include <optional>

#include "hsad/hsad.hpp"
#include "laplacian.hpp"
#include "laplacian_workload.hpp"
#include "mpi_run.hpp"
#include "multi_device.hpp"
#include "cli.hpp"
#include "vendor_plain.hpp"
#include "vendor_slabs.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace po = boost::program_options;
using namespace hsad;

namespace {
// A number from 1, or 0 for "auto" where allowed ("0" itself is no choice: it was read as auto).
int parse_choice(const std::string& text, const char* option, bool allow_auto) {
  if (allow_auto && text == "auto") return 0;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 9 &&
      std::stoi(text) >= 1) {
    return std::stoi(text);
  }
  throw Error("laplacian-bench", option, std::string(option) + " must be a number from 1" + (allow_auto ? " or auto" : "") +
                                             ", got '" + text + "'");
}

std::array<std::uint32_t, 3> parse_block(const std::string& text) {
  std::array<std::uint32_t, 3> b{};
  std::size_t start = 0;
  for (int d = 0; d < 3; ++d) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    b[d] = static_cast<std::uint32_t>(parse_choice(part, "--block", false));
    if (d < 2 && comma == std::string::npos) throw Error("laplacian-bench", "--block", "--block takes X,Y,Z");
    if (d == 2 && comma != std::string::npos) throw Error("laplacian-bench", "--block", "--block takes X,Y,Z, got '" + text + "'");
    start = comma + 1;
  }
  return b;
}

// --devices N --peers: the vendor runtime's slab decomposition (vendor_slabs.hpp), one device then
// N, as rows beside the library's; what it does not measure is null.
std::vector<bench::Row> slab_peer_rows(const std::string& backend, const Device& device, const bench::LaplacianConfig& c,
                                       int devices, bool weak, int reps) {
  if (c.kernel != 5 && c.kernel != 8) {
    throw Error("laplacian-bench", "--peers", "the multi-device peer runs Kernels 5 and 8, not " + std::to_string(c.kernel),
                "--kernel 5 or 8");
  }
  if (c.kernel == 8 && c.m != 4 && c.m != 32) {
    throw Error("laplacian-bench", "--peers", "the multi-device peer's Kernel 8 chunks are 4 and 32", "--m 4 or 32");
  }
  const bench::SlabPeerConfig pc{c.nx, c.ny, c.nz, devices, c.kernel, c.kernel == 8 ? c.m : 4, c.iters, reps, weak};
  const bool cuda = backend == "cuda";
  const std::vector<bench::SlabPeerResult> results = cuda ? bench::run_cuda_slab_peer(pc) : bench::run_hip_slab_peer(pc);
  const double one = kernels::laplacian_bytes(c.nx, c.ny, results.front().nz) / results.front().seconds_per_step / 1e9;
  std::vector<bench::Row> rows;
  for (const bench::SlabPeerResult& r : results) {
    const double fom = kernels::laplacian_bytes(c.nx, c.ny, r.nz) / r.seconds_per_step / 1e9;
    const std::size_t halo = std::size_t(2) * (r.devices - 1) * std::size_t(c.nx) * c.ny * sizeof(double);
    rows.push_back({{"backend", cuda ? "cuda-peer" : "hip-peer"},
                    {"device", device.info().name},
                    {"devices", std::to_string(r.devices), true},
                    {"slabs", "-"},
                    {"nx", std::to_string(c.nx), true},
                    {"ny", std::to_string(c.ny), true},
                    {"nz", std::to_string(r.nz), true},
                    {"kernel", std::to_string(c.kernel), true},
                    {"split", "1", true},
                    {"m", std::to_string(c.kernel == 8 ? c.m : 8), true},
                    {"halo", r.devices > 1 ? (cuda ? "cudaMemcpyPeerAsync" : "hipMemcpyPeerAsync") : "-"},
                    {"halo_bytes_per_step", std::to_string(halo), true},
                    {"dispatches_per_step", "null", true},
                    {"ms_per_step", bench::fixed(r.seconds_per_step * 1e3, 4), true},
                    {"fom_gbs", bench::fixed(fom, 1), true},
                    {"fom_gbs_per_device", bench::fixed(fom / r.devices, 1), true},
                    {"copy_gbs", "null", true},
                    {"ratio", "null", true},
                    {"efficiency", bench::fixed(fom / (r.devices * one), 3), true},
                    {"max_abs_error", "null", true},
                    {"verified", "null", true}});
  }
  return rows;
}

}  // namespace

int main(int argc, char** argv) {
  bench::LaplacianConfig c;
  std::string kernel_text, split_text, block_text, m_text, backend, format, opt_text, devices_text, halo_text,
      scaling;
  std::string mpi_halo;
  int reps = 0, inject_fault = -1;
  bool verify = false, profile = false, peers = false, mpi = false;
  po::options_description desc("laplacian-bench: figure of merit of the Laplacian kernel sequences");
  desc.add_options()("help,h", "this text")
      ("nx", po::value(&c.nx)->default_value(512), "grid points in x (at least 3)")
      ("ny", po::value(&c.ny)->default_value(512), "grid points in y (at least 3)")
      ("nz", po::value(&c.nz)->default_value(512), "grid points in z (at least 3)")
      ("kernel", po::value(&kernel_text)->default_value("auto"), "5 | 6 | 7 | 8 (z-marching) | auto")
      ("split", po::value(&split_text)->default_value("auto"), "Kernel 7's y-subdomains: N | auto (three xy-planes in the last-level cache)")
      ("m", po::value(&m_text)->default_value("auto"), "points per work-item (y for 5-7, z for 8): 4 | 8 | 16 | 32 (Kernel 8) | auto")
      ("block", po::value(&block_text), "work-group shape X,Y,Z (default 256,1,1; 64,4,1 for Kernel 8)")
      ("iters", po::value(&c.iters)->default_value(10), "applications of the operator per batch (one wait)")
      ("reps", po::value(&reps)->default_value(5), "timed batches; the median is reported")
      ("opt", po::value(&opt_text)->default_value("all"), "dispatch optimizations, as for bitonic-bench")
      ("verify", po::bool_switch(&verify), "compare with a CPU reference and report the largest absolute error")
      ("profile", po::bool_switch(&profile),
       "then time the batches on the device too (Options::profile): device ms per application beside the host's")
      ("peers", po::bool_switch(&peers),
       "also run the lab notes' Kernel 5 written straight for the vendor's runtime (CUDA on cuda, HIP on rocr; same "
       "GPU, same run), whole and split as --split auto would split Kernel 7, and in Kernel 6's order: rows with "
       "backend cuda-plain or hip-plain; with --devices N, the same slabs through the vendor's runtime with peer "
       "copies for the halos (Kernels 5 and 8): rows with backend cuda-peer or hip-peer")
      ("devices", po::value(&devices_text)->default_value("1"),
       "N | all: split the grid along z over N devices of the backend, halos exchanged on the devices; each "
       "step is then a heat-equation step (the same kernels), and a one-device row of the same run comes first")
      ("halo", po::value(&halo_text)->default_value("auto"),
       "with --devices: auto | peer (device to device) | staged (through pinned host memory)")
      ("scaling", po::value(&scaling)->default_value("strong"),
       "with --devices: strong (the grid is the whole) | weak (the grid is each device's: N times the planes)")
      ("mpi", po::bool_switch(&mpi),
       "under mpirun -n R: the grid's planes over the ranks (and each rank's over its --devices), halos by "
       "MPI_Isend/MPI_Irecv; rank 0 prints a one-device row and the row of all ranks")
      ("mpi-halo", po::value(&mpi_halo)->default_value("auto"),
       "with --mpi: auto | staged (pinned host copies) | direct (device memory to MPI: where MPI reaches it)")
      ("inject-fault", po::value(&inject_fault),
       "with --mpi, for tests: this rank runs a faulting batch mid-run (every rank must report it)")
      ("backend", po::value(&backend)->default_value("auto"), "auto | cpu | rocr | cuda")
      ("format", po::value(&format)->default_value("table"), "table | csv | json");
  if (auto status = bench::parse_cli(argc, argv, desc, "laplacian-bench")) return *status;
  try {
    if (format != "table" && format != "csv" && format != "json") {
      throw Error("laplacian-bench", "--format", "unknown format '" + format + "'", "valid: table, csv, json");
    }
    if (reps < 1) throw Error("laplacian-bench", "--reps", "--reps must be at least 1");
    const Options options = Options::parse(opt_text);
    const int kernel = parse_choice(kernel_text, "--kernel", true);
    const int split = parse_choice(split_text, "--split", true);
    const int m = parse_choice(m_text, "--m", true);
    c.m = m ? m : 8;
    // Sizes are checked before any device is opened: a bad size is refused at once.
    {
      bench::LaplacianConfig probe = c;
      probe.kernel = kernel ? kernel : 8;
      probe.split = 1;
      bench::validate(probe, DeviceInfo{});
    }
    const int device_count = bench::parse_device_count("laplacian-bench", devices_text);
    const bench::HaloRoute route = bench::parse_halo_route(halo_text);
    if (scaling != "strong" && scaling != "weak") {
      throw Error("laplacian-bench", "--scaling", "unknown scaling '" + scaling + "'", "valid: strong, weak");
    }
    if (mpi_halo != "auto" && mpi_halo != "staged" && mpi_halo != "direct") {
      throw Error("laplacian-bench", "--mpi-halo", "unknown MPI halo path '" + mpi_halo + "'", "valid: auto, staged, direct");
    }
    // The choices a device makes for "auto" (its last-level cache), for one process or every rank.
    auto resolve = [&, kernel, split, m](bench::LaplacianConfig& cfg, const Device& on) {
      // auto: Kernel 8, the z-marching kernel (docs/results.md: 0.91-0.98 of the copy bandwidth on
      // the H100 where Kernels 5-7 reach 0.37-0.46; also the fastest on the cpu agent).
      cfg.kernel = kernel ? kernel : 8;
      cfg.m = m ? m : (cfg.kernel == 8 ? bench::auto_zmarch_planes(cfg.nx, cfg.ny, on.info().last_level_cache_bytes) : 8);
      // Kernel 8's items march in z; a group several rows tall keeps its y neighbours in L1.
      cfg.block = parse_block(block_text.empty() ? (cfg.kernel == 8 ? "64,4,1" : "256,1,1") : block_text);
      cfg.split = cfg.kernel != 7 ? 1 : (split ? split : bench::auto_split(cfg.nx, cfg.ny, on.info().last_level_cache_bytes));
    };
    if (mpi) {
      if (peers || profile) throw Error("laplacian-bench", "--mpi", "--peers and --profile run in one process", "drop them");
      if (device_count == 0) throw Error("laplacian-bench", "--devices", "--devices all with --mpi", "give a number per rank");
      bench::MpiRun run;
      run.backend = backend, run.config = c, run.devices_per_rank = device_count, run.weak = scaling == "weak";
      run.route = route, run.mpi_halo = mpi_halo, run.options = options, run.reps = reps, run.verify = verify;
      run.format = format, run.inject_fault_rank = inject_fault, run.resolve = resolve;
      return bench::run_mpi(argc, argv, run);
    }
    if (inject_fault >= 0) throw Error("laplacian-bench", "--inject-fault", "--inject-fault is for --mpi runs");
    if (device_count > 1) bench::split_planes(scaling == "weak" ? device_count * (c.nz - 2) + 2 : c.nz, device_count);
    Runtime rt = Runtime::open(backend);
    const std::vector<Device> devices = bench::pick_devices("laplacian-bench", rt, device_count);
    const Device& device = rt.device();
    if (peers && rt.backend() != "cuda" && rt.backend() != "rocr") {
      throw Error("laplacian-bench", "--peers",
                  "the plain peer runs beside a vendor runtime: CUDA (cuda) or HIP (rocr); this run uses " + rt.backend(),
                  "use --backend cuda on an NVIDIA GPU, or rocr (hsad-sim runs HIP without an AMD GPU)");
    }
    resolve(c, device);

    if (devices.size() > 1) {
      if (profile) throw Error("laplacian-bench", "--profile", "--profile times one device's batches", "drop --devices or --profile");
      bench::MultiDeviceRun run{c, scaling == "weak", route, options, reps, verify};
      bool verified = true;
      std::vector<bench::Row> rows = bench::run_multi_device(rt.backend(), devices, run, verified);
      if (peers) {
        const std::vector<bench::Row> peer = slab_peer_rows(rt.backend(), device, c, int(devices.size()), scaling == "weak", reps);
        rows.insert(rows.end(), peer.begin(), peer.end());
      }
      if (format == "json") bench::print_json(std::cout, {}, rows);
      else if (format == "csv") bench::print_csv(std::cout, rows);
      else bench::print_table(std::cout, rows);
      if (!verified) {
        std::cerr << "laplacian-bench: verification failed: " << devices.size()
                  << " devices differ from one device, or one device from the host\n";
        return 3;
      }
      return 0;
    }
    bench::LaplacianWorkload w(device, c, options);
    w.run();  // warm-up
    const double t_app = bench::median_seconds(reps, [&] { w.run(); }) / c.iters;
    double copy_bytes = 0;
    w.copy_run();
    const double t_copy = bench::median_seconds(reps, [&] { copy_bytes = w.copy_run(); }) / c.iters;
    const double copy_gbs = copy_bytes / t_copy / 1e9;
    // The device's own time per application: the span of a profiled batch, over --iters.
    double device_ms = 0;
    if (profile) {
      std::vector<double> spans;
      for (int r = 0; r < reps; ++r) {
        const std::vector<CommandTime> t = w.run_profiled();
        spans.push_back(t.empty() ? 0.0 : double(t.back().end_ns - t.front().start_ns) / 1e6);
      }
      device_ms = bench::summarize(spans).median / c.iters;
    }
    bench::LaplacianWorkload::Check check;
    if (verify) check = w.verify();
    const bool verified = verify && check.boundary_untouched && check.max_abs_error < 1e-6;

    // One row per measured kernel; the peer's have no device time and no check of their own.
    auto row_of = [&](const std::string& backend_name, int kernel_no, int split_no, int m_no, std::size_t dispatches,
                      double seconds, std::optional<double> device_ms, const bench::LaplacianWorkload::Check* checked) {
      const double f = kernels::laplacian_bytes(c.nx, c.ny, c.nz) / seconds / 1e9;
      const bool ok = checked && checked->boundary_untouched && checked->max_abs_error < 1e-6;
      return bench::Row{{"backend", backend_name},
                        {"device", device.info().name},
                        {"nx", std::to_string(c.nx), true},
                        {"ny", std::to_string(c.ny), true},
                        {"nz", std::to_string(c.nz), true},
                        {"kernel", std::to_string(kernel_no), true},
                        {"split", std::to_string(split_no), true},
                        {"m", std::to_string(m_no), true},
                        {"dispatches_per_batch", std::to_string(dispatches), true},
                        {"ms_per_application", bench::fixed(seconds * 1e3, 4), true},
                        {"device_ms_per_application", device_ms ? bench::fixed(*device_ms, 4) : "null", true},
                        {"fom_gbs", bench::fixed(f, 1), true},
                        {"copy_gbs", bench::fixed(copy_gbs, 1), true},
                        {"ratio", bench::fixed(f / copy_gbs, 3), true},
                        {"max_abs_error", checked ? bench::fixed(checked->max_abs_error, 12) : "null", true},
                        {"verified", checked ? (ok ? "true" : "false") : "null", true}};
    };
    std::vector<bench::Row> rows = {row_of(rt.backend(), c.kernel, c.split, c.m, w.dispatches_per_application() * c.iters,
                                           t_app, profile ? std::optional<double>(device_ms) : std::nullopt,
                                           verify ? &check : nullptr)};
    if (peers) {
      // The reference, measured against the same copy bandwidth: whole, and split as Kernel 7 would be.
      const int split_auto = bench::auto_split(c.nx, c.ny, device.info().last_level_cache_bytes);
      std::vector<int> splits = {1};
      if (split_auto > 1) splits.push_back(split_auto);
      bench::PlainGrid g{c.nx, c.ny, c.nz, 1.0, 1.0, 1.0, -6.0};
      const bool cuda = rt.backend() == "cuda";
      const auto plain = cuda ? bench::run_plain_laplacian(g, splits, c.iters, reps)
                              : bench::run_hip_plain_laplacian(g, splits, c.iters, reps);
      for (const bench::PlainResult& p : plain) {
        rows.push_back(row_of(cuda ? "cuda-plain" : "hip-plain", p.kernel, p.split, 8, std::size_t(p.split) * c.iters, p.seconds,
                              std::nullopt, nullptr));
      }
    }
    if (format == "json") bench::print_json(std::cout, {}, rows);
    else if (format == "csv") bench::print_csv(std::cout, rows);
    else bench::print_table(std::cout, rows);
    if (verify && !verified) {
      std::cerr << "laplacian-bench: verification failed (max abs error " << check.max_abs_error << ", boundary "
                << (check.boundary_untouched ? "untouched" : "written") << ")\n";
      return 3;
    }
    return 0;
  } catch (const Error& e) {
    std::cerr << "laplacian-bench: " << e.what() << '\n';
    return 2;
  } catch (const std::runtime_error& e) {  // the peers (the vendor's runtime)
    std::cerr << "laplacian-bench: --peers: " << e.what() << '\n';
    return 2;
  }
}
