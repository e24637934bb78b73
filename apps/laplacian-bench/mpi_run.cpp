// laplacian-bench --mpi. The z range goes over the ranks (sizes differ by at most one plane), each
// rank's range over its devices. A rank opens devices local_rank * N .. local_rank * N + N - 1
// (modulo the devices there are), the local rank from the launcher's environment. Per step, each
// rank's boundary planes are complete before MPI_Isend/MPI_Irecv carry them (from pinned host
// copies, or from the arrays themselves where MPI reaches device memory); the interiors compute
// meanwhile, and the next step's batches copy the received planes into the halos first.
//
// Failures: a refusal every rank reaches alike is printed by each and ends it. A rank that fails
// alone prints the error with its rank, tells every other rank (a message on a tag of its own,
// which each rank polls for while it waits for halos, or at an agreement point), waits a moment so
// that they can print it too, and calls MPI_Abort. Nothing waits without a bound.
#include "mpi_run.hpp"

#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support / MPIX_Query_rocm_support
#endif
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <sstream>
#include <thread>

#include "laplacian.hpp"
#include "report.hpp"
#include "summary.hpp"

namespace hsad::bench {
namespace {
constexpr int kTagUp = 1;       // a plane L going to the rank above
constexpr int kTagDown = 2;     // a plane 1 going to the rank below
constexpr int kTagFailure = 3;  // "I failed: ..." to every other rank
constexpr int kMessage = 1024;
constexpr auto kHaloTimeout = std::chrono::minutes(10);
constexpr auto kGrace = std::chrono::milliseconds(1500);  // for the other ranks to print a failure

// One line to stderr in one write: the ranks share the stream, and a line written in pieces would
// interleave with theirs.
void say(const std::string& line) {
  const std::string text = line + "\n";
  if (::write(2, text.data(), text.size()) < 0) return;  // nowhere left to say it
}

// The rank's index among the ranks of its node, as the launcher gives it; else from MPI itself.
int local_rank_of(int rank) {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", "PMI_LOCAL_RANK"}) {
    if (const char* v = std::getenv(name); v && *v) return std::atoi(v);
  }
  MPI_Comm node;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  int local = 0;
  MPI_Comm_rank(node, &local);
  MPI_Comm_free(&node);
  return local;
}

class MpiSession {
 public:
  MpiSession(int& argc, char**& argv) {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    local_rank = local_rank_of(rank);
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    host = name;
  }
  ~MpiSession() { MPI_Finalize(); }
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  std::string who() const { return "rank " + std::to_string(rank) + " of " + std::to_string(size); }

  int rank = 0, size = 1, local_rank = 0;
  std::string host;
};

// Another rank said it failed.
struct PeerFailed {
  int rank;
  std::string what;
};

// Every rank keeps a receive posted for a failure notice from any other.
class FailureNotices {
 public:
  explicit FailureNotices(const MpiSession& mpi) : mpi_(mpi) {
    MPI_Irecv(text_, kMessage, MPI_CHAR, MPI_ANY_SOURCE, kTagFailure, MPI_COMM_WORLD, &pending_);
  }
  ~FailureNotices() {
    if (pending_ != MPI_REQUEST_NULL) {
      MPI_Cancel(&pending_);
      MPI_Request_free(&pending_);
    }
  }
  FailureNotices(const FailureNotices&) = delete;
  FailureNotices& operator=(const FailureNotices&) = delete;

  // Throws PeerFailed once a notice has arrived.
  void check() {
    if (pending_ == MPI_REQUEST_NULL) return;
    int arrived = 0;
    MPI_Status status;
    MPI_Test(&pending_, &arrived, &status);
    if (arrived) throw PeerFailed{status.MPI_SOURCE, std::string(text_, strnlen(text_, kMessage))};
  }
  // Sends `what` to every other rank; returns when they have it or after the grace.
  void tell_everyone(const std::string& what) {
    sent_ = what.substr(0, kMessage - 1);
    std::vector<MPI_Request> requests;
    for (int r = 0; r < mpi_.size; ++r) {
      if (r == mpi_.rank) continue;
      requests.emplace_back();
      MPI_Isend(sent_.c_str(), int(sent_.size() + 1), MPI_CHAR, r, kTagFailure, MPI_COMM_WORLD, &requests.back());
    }
    const auto until = std::chrono::steady_clock::now() + kGrace;
    int done = requests.empty();
    while (!done && std::chrono::steady_clock::now() < until) {
      MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }

 private:
  const MpiSession& mpi_;
  MPI_Request pending_ = MPI_REQUEST_NULL;
  char text_[kMessage] = {};
  std::string sent_;
};

// Waits for `requests` while polling for failure notices; a bound on the wait turns a silent
// neighbour into an error.
void wait_all(std::vector<MPI_Request>& requests, FailureNotices& notices, const std::string& what) {
  const auto until = std::chrono::steady_clock::now() + kHaloTimeout;
  for (int done = 0;;) {
    MPI_Testall(int(requests.size()), requests.data(), &done, MPI_STATUSES_IGNORE);
    if (done) return;
    notices.check();
    if (std::chrono::steady_clock::now() > until) {
      throw Error("mpi", what, "nothing arrived in " + std::to_string(kHaloTimeout.count()) + " minutes");
    }
    std::this_thread::yield();  // ranks may outnumber cores: let the one computing run
  }
}

// A barrier that still hears failure notices (MPI_Barrier would not return if a rank died first).
void barrier(FailureNotices& notices) {
  std::vector<MPI_Request> r(1);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  wait_all(r, notices, "barrier");
}

class MpiHalos : public ExternalHalos {
 public:
  MpiHalos(const MpiSession& mpi, FailureNotices& notices, bool direct)
      : mpi_(mpi), notices_(notices), direct_(direct) {}
  bool below() const override { return mpi_.rank > 0; }
  bool above() const override { return mpi_.rank + 1 < mpi_.size; }
  bool direct() const override { return direct_; }
  void exchange(const double* send_down, const double* send_up, double* recv_below, double* recv_above,
                std::size_t points) override {
    const int n = int(points);
    std::vector<MPI_Request> r;
    auto post = [&](auto call) { r.emplace_back(); call(&r.back()); };
    if (recv_below) post([&](MPI_Request* q) { MPI_Irecv(recv_below, n, MPI_DOUBLE, mpi_.rank - 1, kTagUp, MPI_COMM_WORLD, q); });
    if (recv_above) post([&](MPI_Request* q) { MPI_Irecv(recv_above, n, MPI_DOUBLE, mpi_.rank + 1, kTagDown, MPI_COMM_WORLD, q); });
    if (send_down) {
      post([&](MPI_Request* q) { MPI_Isend(send_down, n, MPI_DOUBLE, mpi_.rank - 1, kTagDown, MPI_COMM_WORLD, q); });
    }
    if (send_up) post([&](MPI_Request* q) { MPI_Isend(send_up, n, MPI_DOUBLE, mpi_.rank + 1, kTagUp, MPI_COMM_WORLD, q); });
    wait_all(r, notices_, "halo exchange");
    ++exchanges;
  }
  int exchanges = 0;

 private:
  const MpiSession& mpi_;
  FailureNotices& notices_;
  bool direct_;
};

// Whether MPI can read and write this backend's device memory itself.
bool mpi_reaches_device_memory(const std::string& backend) {
  if (backend == "cpu") return true;  // the cpu agent's device memory is host memory
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  if (backend == "cuda") return MPIX_Query_cuda_support() == 1;
#endif
#if defined(MPIX_ROCM_AWARE_SUPPORT) && MPIX_ROCM_AWARE_SUPPORT
  if (backend == "rocr") return MPIX_Query_rocm_support() == 1;
#endif
  return false;
}

// Every rank says whether its last phase failed; all of them learn who did. Returns the first
// failure as "rank k of R: ...", or "" when none did.
std::string agree(const MpiSession& mpi, const std::string& failure) {
  std::vector<char> mine(kMessage, 0), all(std::size_t(kMessage) * mpi.size, 0);
  if (!failure.empty()) std::strncpy(mine.data(), (mpi.who() + ": " + failure).c_str(), kMessage - 1);
  MPI_Allgather(mine.data(), kMessage, MPI_CHAR, all.data(), kMessage, MPI_CHAR, MPI_COMM_WORLD);
  for (int r = 0; r < mpi.size; ++r) {
    const char* text = all.data() + std::size_t(r) * kMessage;
    if (*text) return std::string(text, strnlen(text, kMessage));
  }
  return {};
}

// A batch that faults on `device`: a host kernel that throws on the cpu agent, a store to an
// address no allocation holds on a GPU.
void run_faulting_batch(const Device& device, const LaplacianConfig& c, const Options& options) {
  Batch b;
  if (device.info().backend == "cpu") {
    static const bool registered = [] {
      register_host_kernel(make_host_kernel("laplacian_injected_fault", +[](const WorkGroup&) {
        throw std::runtime_error("injected fault (laplacian-bench --inject-fault)");
      }));
      return true;
    }();
    (void)registered;
    b.exec(device.kernel("laplacian_injected_fault"), Dim3{1}, Dim3{1}, {});
  } else {
    double* nowhere = reinterpret_cast<double*>(std::uintptr_t(1) << 12);
    record_laplacian(b, device.kernel(laplacian_kernel_name(c)), c, nowhere, nowhere, 1, 1,
                     laplacian_coefficients(c.nx, c.ny, c.nz), Addresses::unchecked);
  }
  device.create_queue().run(b, options, std::chrono::seconds(60));
}

// agree(), and where a rank failed, every rank prints the first failure before any ends (mpirun
// ends the job when the first rank exits with an error).
bool any_failed(const MpiSession& mpi, const std::string& failure) {
  const std::string first = agree(mpi, failure);
  if (first.empty()) return false;
  say("laplacian-bench: " + mpi.who() + ": " + (failure.empty() ? "stopped: " : "") + first);
  MPI_Barrier(MPI_COMM_WORLD);
  return true;
}

struct Plan {
  LaplacianConfig global;           // the whole grid
  std::vector<Slab> ranges;         // per rank
  std::vector<std::string> slabs;   // per device, every rank's in order (for the output)
};

Plan plan(const MpiRun& run, int ranks) {
  Plan p;
  p.global = run.config;
  const int devices = ranks * run.devices_per_rank;
  if (run.weak) p.global.nz = devices * (run.config.nz - 2) + 2;
  const int planes = p.global.nz - 2;
  if (ranks > planes) {
    throw Error("laplacian-bench", "--mpi",
                std::to_string(ranks) + " ranks for " + std::to_string(planes) + " interior planes (nz = " +
                    std::to_string(p.global.nz) + "): every rank needs at least one",
                "use at most " + std::to_string(planes) + " ranks, or a larger --nz");
  }
  if (planes / ranks < run.devices_per_rank) {
    throw Error("laplacian-bench", "--devices",
                "--devices " + std::to_string(run.devices_per_rank) + " per rank: the smallest of " + std::to_string(ranks) +
                    " ranks' ranges has " + std::to_string(planes / ranks) + " planes",
                "use fewer devices per rank, or a larger --nz");
  }
  p.ranges = split_planes(p.global.nz, ranks);
  for (const Slab& r : p.ranges) {
    for (const Slab& s : split_range(r, run.devices_per_rank)) p.slabs.push_back(std::to_string(s.planes));
  }
  return p;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string s;
  for (const auto& p : parts) s += (s.empty() ? "" : sep) + p;
  return s;
}

}  // namespace

bool mpi_built() { return true; }

int run_mpi(int& argc, char**& argv, MpiRun run) {
  MpiSession mpi(argc, argv);
  FailureNotices notices(mpi);
  const std::string me = "laplacian-bench: " + mpi.who();

  // Refusals every rank reaches alike: each prints it and ends.
  Plan p;
  try {
    p = plan(run, mpi.size);
    if (run.verify && double(p.global.nx) * p.global.ny * p.global.nz > double(1 << 26)) {
      throw Error("laplacian-bench", "--verify", "--verify --mpi gathers the grid on rank 0: at most 2^26 points",
                  "verify at a small size");
    }
  } catch (const Error& e) {
    say(me + ": " + e.what());
    // mpirun ends the job when the first rank exits with an error: all print first.
    MPI_Barrier(MPI_COMM_WORLD);
    return 2;
  }
  const Slab range = p.ranges[std::size_t(mpi.rank)];

  // Set-up: every rank opens its devices and records its batches; all learn whether any failed.
  std::unique_ptr<Runtime> rt;
  std::vector<Device> devices;
  std::vector<std::size_t> indices;  // of `devices` among the backend's
  std::string failure;
  try {
    rt = std::make_unique<Runtime>(Runtime::open(run.backend));
    const std::vector<Device>& all = rt->devices();
    if (run.devices_per_rank > int(all.size())) {
      throw Error("laplacian-bench", "--devices", "--devices " + std::to_string(run.devices_per_rank) + " per rank: the " +
                                                     rt->backend() + " backend has " + std::to_string(all.size()));
    }
    for (int i = 0; i < run.devices_per_rank; ++i) {
      indices.push_back(std::size_t(mpi.local_rank * run.devices_per_rank + i) % all.size());
      devices.push_back(all[indices.back()]);
    }
  } catch (const Error& e) {
    failure = e.what();
  }
  if (any_failed(mpi, failure)) return 1;
  // Rank 0's device decides what "auto" means, so that every rank records the same kernels.
  LaplacianConfig c = p.global;
  int choices[6] = {};
  if (mpi.rank == 0) {
    run.resolve(c, devices.front());
    const int mine[6] = {c.kernel, c.m, c.split, int(c.block[0]), int(c.block[1]), int(c.block[2])};
    std::copy(mine, mine + 6, choices);
  }
  MPI_Bcast(choices, 6, MPI_INT, 0, MPI_COMM_WORLD);
  c.kernel = choices[0], c.m = choices[1], c.split = choices[2];
  c.block = {std::uint32_t(choices[3]), std::uint32_t(choices[4]), std::uint32_t(choices[5])};

  const bool reachable = mpi_reaches_device_memory(rt->backend());
  bool direct = false;
  std::unique_ptr<MpiHalos> halos;
  std::unique_ptr<LaplacianSlabs> slabs;
  try {
    if (run.mpi_halo == "direct" && !reachable) {
      throw Error("laplacian-bench", "--mpi-halo", "--mpi-halo direct: this MPI cannot reach " + rt->backend() + " device memory",
                  "use --mpi-halo auto or staged");
    }
    direct = run.mpi_halo == "direct" || (run.mpi_halo == "auto" && reachable);
    halos = std::make_unique<MpiHalos>(mpi, notices, direct);
    slabs = std::make_unique<LaplacianSlabs>(devices, c, run.options, run.route, ProcessPart{range, halos.get()});
  } catch (const Error& e) {
    failure = e.what();
  }
  if (any_failed(mpi, failure)) return 1;
  const std::string path = std::string(direct ? "mpi-direct" : "mpi-staged") +
                           (devices.size() > 1 ? std::string("+") + slabs->halo_path() : std::string());
  {
    std::ostringstream line;
    line << me << " on " << mpi.host << " (local rank " << mpi.local_rank << "): " << rt->backend() << " device"
         << (devices.size() > 1 ? "s" : "");
    for (std::size_t i = 0; i < devices.size(); ++i) line << " [" << indices[i] << "] " << devices[i].info().name;
    line << ", planes " << range.first << "-" << range.first + range.planes - 1 << " (" << range.planes << "), halos " << path;
    say(line.str());
  }

  try {
    std::string verdict = "null", error = "null";
    bool verified = true;
    if (run.verify) {
      // A fresh run of --iters steps, gathered on rank 0 and compared with one device of rank 0.
      LaplacianSlabs fresh(devices, c, run.options, run.route, ProcessPart{range, halos.get()});
      fresh.run();
      const std::vector<double> mine = fresh.gather();
      const int plane = c.nx * c.ny;
      int count = int(mine.size()), first = fresh.gather_first() * plane;
      std::vector<int> counts(mpi.size), firsts(mpi.size);
      MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
      MPI_Gather(&first, 1, MPI_INT, firsts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
      std::vector<double> got(mpi.rank == 0 ? std::size_t(plane) * c.nz : 0);
      MPI_Gatherv(mine.data(), count, MPI_DOUBLE, got.data(), counts.data(), firsts.data(), MPI_DOUBLE, 0, MPI_COMM_WORLD);
      if (mpi.rank == 0) {
        LaplacianSlabs single({devices.front()}, c, run.options);
        single.run();
        const std::vector<double> want = single.gather();
        const bool same = std::memcmp(got.data(), want.data(), got.size() * sizeof(double)) == 0;
        double max_error = 0;
        if (double(got.size()) * c.iters <= 6e7) {
          const std::vector<double> ref = LaplacianSlabs::reference(c, c.iters);
          for (std::size_t i = 0; i < ref.size(); ++i) max_error = std::max(max_error, std::abs(want[i] - ref[i]));
          error = fixed(max_error, 15);
        }
        verified = same && max_error < 1e-12;
        verdict = verified ? "true" : "false";
      }
    }

    // Rank 0 alone on one device first (the efficiency's denominator), the others waiting.
    LaplacianConfig one = run.weak ? run.config : c;
    one.kernel = c.kernel, one.m = c.m, one.split = c.split, one.block = c.block;
    double one_seconds = 0, one_copy_gbs = 0;
    std::uint64_t one_dispatches = 0;
    if (mpi.rank == 0) {
      LaplacianSlabs alone({devices.front()}, one, run.options);
      one_dispatches = alone.dispatches_per_step();
      alone.run();
      one_seconds = median_seconds(run.reps, [&] { alone.run(); }) / one.iters;
      double bytes = alone.copy_run();
      one_copy_gbs = bytes / (median_seconds(run.reps, [&] { bytes = alone.copy_run(); }) / one.iters) / 1e9;
    }
    barrier(notices);

    slabs->run();  // warm-up
    if (mpi.rank == run.inject_fault_rank) run_faulting_batch(devices.front(), c, run.options);
    const double seconds = median_seconds(run.reps, [&] { slabs->run(); }) / c.iters;
    barrier(notices);
    double bytes = slabs->copy_run();
    const double copy_seconds = median_seconds(run.reps, [&] { bytes = slabs->copy_run(); }) / c.iters;
    say(me + ": " + fixed(seconds * 1e3, 4) + " ms per step (median of " + std::to_string(run.reps) + "), " +
        std::to_string(halos->exchanges) + " halo exchanges");

    double slowest = 0, copy_gbs = 0;
    const double my_copy_gbs = bytes / copy_seconds / 1e9;
    std::uint64_t dispatches = slabs->dispatches_per_step(), all_dispatches = 0;
    MPI_Reduce(&seconds, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&my_copy_gbs, &copy_gbs, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&dispatches, &all_dispatches, 1, MPI_UINT64_T, MPI_SUM, 0, MPI_COMM_WORLD);
    if (mpi.rank != 0) return 0;

    const int total = mpi.size * run.devices_per_rank;
    const std::uint64_t plane_bytes = std::uint64_t(c.nx) * std::uint64_t(c.ny) * sizeof(double);
    const double fom_one = kernels::laplacian_bytes(one.nx, one.ny, one.nz) / one_seconds / 1e9;
    const double fom = kernels::laplacian_bytes(c.nx, c.ny, c.nz) / slowest / 1e9;
    auto row = [&](int ranks, int devs, const LaplacianConfig& g, const std::string& slab_list, const std::string& halo,
                   std::uint64_t halo_bytes, std::uint64_t dispatch_count, double s, double f, double copy, bool last) {
      return Row{{"backend", rt->backend()},
                 {"device", devices.front().info().name},
                 {"ranks", std::to_string(ranks), true},
                 {"devices", std::to_string(devs), true},
                 {"slabs", slab_list},
                 {"nx", std::to_string(g.nx), true},
                 {"ny", std::to_string(g.ny), true},
                 {"nz", std::to_string(g.nz), true},
                 {"kernel", std::to_string(c.kernel), true},
                 {"split", std::to_string(c.split), true},
                 {"m", std::to_string(c.m), true},
                 {"halo", halo},
                 {"halo_bytes_per_step", std::to_string(halo_bytes), true},
                 {"dispatches_per_step", std::to_string(dispatch_count), true},
                 {"ms_per_step", fixed(s * 1e3, 4), true},
                 {"fom_gbs", fixed(f, 1), true},
                 {"fom_gbs_per_device", fixed(f / devs, 1), true},
                 {"copy_gbs", fixed(copy, 1), true},
                 {"ratio", fixed(f / copy, 3), true},
                 {"efficiency", fixed(f / (devs * fom_one), 3), true},
                 {"max_abs_error", last ? error : "null", true},
                 {"verified", last ? verdict : "null", true}};
    };
    const std::vector<Row> rows = {
        row(1, 1, one, std::to_string(one.nz - 2), "none", 0, one_dispatches, one_seconds, fom_one, one_copy_gbs, false),
        row(mpi.size, total, c, join(p.slabs, "+"), path, 2ull * (total - 1) * plane_bytes, all_dispatches, slowest, fom,
            copy_gbs, true)};
    if (run.format == "json") print_json(std::cout, {}, rows);
    else if (run.format == "csv") print_csv(std::cout, rows);
    else print_table(std::cout, rows);
    std::cout << std::flush;
    if (!verified) {
      say(me + ": verification failed: " + std::to_string(total) + " devices over " + std::to_string(mpi.size) +
          " ranks differ from one device, or one device from the host");
      return 3;
    }
    return 0;
  } catch (const PeerFailed& f) {
    say(me + ": stopped: " + f.what);
    std::this_thread::sleep_for(2 * kGrace);  // the failed rank ends the job; in case it cannot:
    MPI_Abort(MPI_COMM_WORLD, 1);
  } catch (const std::exception& e) {
    const std::string what = "rank " + std::to_string(mpi.rank) + " of " + std::to_string(mpi.size) + " (" +
                             devices.front().info().name + ") failed: " + e.what();
    say("laplacian-bench: " + what);
    notices.tell_everyone(what);
    std::this_thread::sleep_for(kGrace);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  return 1;
}

}  // namespace hsad::bench
