// The Laplacian over several cpu agents (HSAD_CPU_DEVICES): slabs bit-exact to one device for
// every kernel and an uneven split, both halo routes, one host wait per run, and the counters
// that show where the waits and fences went.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <tuple>

#include "cpu_agents.hpp"
#include "error_text.hpp"
#include "hsad/hsad.hpp"
#include "laplacian_slabs.hpp"

using namespace hsad;
using bench::LaplacianSlabs;

namespace {
std::vector<Device> first(std::size_t n) { return test::first_cpu_agents(n); }

bench::LaplacianConfig grid(int kernel) {
  bench::LaplacianConfig c;
  c.nx = 37;  // partial work-groups in x and, with m = 8, a cut tile in y
  c.ny = 29;
  c.nz = 24;  // 22 interior planes: 8 + 7 + 7 over three agents
  c.kernel = kernel;
  c.m = kernel == 8 ? 4 : 8;
  c.split = kernel == 7 ? 3 : 1;
  c.block = kernel == 8 ? std::array<std::uint32_t, 3>{16, 4, 1} : std::array<std::uint32_t, 3>{32, 1, 1};
  c.iters = 3;  // odd: the next run starts on the other parity
  return c;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

Stats total(const std::vector<Device>& ds) {
  Stats s;
  for (const Device& d : ds) s = s + d.stats();
  return s;
}
}  // namespace

TEST(LaplacianSlabsSplit, PlanesDifferByAtMostOneLargerFirst) {
  const auto s = bench::split_planes(24, 3);
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(s[0].first, 1);
  EXPECT_EQ(s[0].planes, 8);
  EXPECT_EQ(s[1].first, 9);
  EXPECT_EQ(s[1].planes, 7);
  EXPECT_EQ(s[2].first, 16);
  EXPECT_EQ(s[2].planes, 7);
  const std::string text = test::error_text([] { bench::split_planes(4, 3); });
  EXPECT_NE(text.find("3 devices for 2 interior planes"), std::string::npos) << text;
}

class LaplacianSlabsKernel : public ::testing::TestWithParam<int> {};

TEST_P(LaplacianSlabsKernel, EveryDeviceCountGivesTheOneDeviceBits) {
  const bench::LaplacianConfig c = grid(GetParam());
  LaplacianSlabs one(first(1), c, Options{});
  one.run();
  one.run();  // six steps, across a parity change between runs
  const std::vector<double> want = one.gather();
  const std::vector<double> ref = LaplacianSlabs::reference(c, 6);
  double worst = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) worst = std::max(worst, std::abs(want[i] - ref[i]));
  EXPECT_LT(worst, 1e-12) << "one device against the host's steps";
  for (std::size_t n : {2u, 3u}) {
    for (bench::HaloRoute route : {bench::HaloRoute::peer, bench::HaloRoute::staged}) {
      SCOPED_TRACE(std::to_string(n) + " devices, " + (route == bench::HaloRoute::peer ? "peer" : "staged"));
      LaplacianSlabs many(first(n), c, Options{}, route);
      EXPECT_STREQ(many.halo_path(), route == bench::HaloRoute::peer ? "peer" : "staged");
      many.run();
      many.run();
      EXPECT_TRUE(same_bits(many.gather(), want));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, LaplacianSlabsKernel, ::testing::Values(5, 6, 7, 8),
                         [](const auto& info) { return "Kernel" + std::to_string(info.param); });

TEST(LaplacianSlabs, AWrongHaloWouldShow) {
  // The positive control of the bit-exact check: one device's result after more steps differs
  // from the three devices' after fewer, so a halo that carried stale data would be seen.
  bench::LaplacianConfig c = grid(5);
  LaplacianSlabs one(first(1), c, Options{});
  one.run();
  c.iters = 2;
  LaplacianSlabs many(first(3), c, Options{});
  many.run();
  EXPECT_FALSE(same_bits(one.gather(), many.gather()));
}

TEST(LaplacianSlabs, TheHostWaitsOncePerRunAndTheDevicesWaitForEachOther) {
  const bench::LaplacianConfig c = grid(8);
  const std::vector<Device> ds = first(3);
  LaplacianSlabs w(ds, c, Options{});
  const Stats before = total(ds);
  w.run();
  const Stats s = total(ds) - before;
  EXPECT_EQ(s.host_waits, 1u);
  // Per step: boundary queues wait for their interior and their neighbours (1 + 1, 1 + 2, 1 + 1),
  // interior queues for their boundary queue (3); the last step's first interior also for its
  // own boundary queue and the other two devices' two queues. Step 0 waits for nothing: the
  // steps before it (none, or the last run's, released) are complete.
  const std::uint64_t per_step = 7 + 3;
  EXPECT_EQ(s.device_waits, per_step * (c.iters - 1) + 5);
  // Halos: 2 per neighbouring pair and step, each a plane.
  EXPECT_EQ(s.copies, 4u * c.iters);
  EXPECT_EQ(s.bytes_copied, w.halo_bytes_per_step() * c.iters);
  EXPECT_EQ(w.halo_bytes_per_step(), 4u * 37 * 29 * sizeof(double));
  // One doorbell per submission: two per device and step.
  EXPECT_EQ(s.doorbells, 6u * c.iters);
}

namespace {
// Stands in for MPI (apps/laplacian-bench/mpi_run.cpp): "processes" are threads of this one, and a
// plane sent is a copy left in a mailbox under (to, from, exchange number).
struct Mailbox {
  std::mutex mutex;
  std::condition_variable changed;
  std::map<std::tuple<int, int, int>, std::vector<double>> planes;
};

class LoopbackHalos : public bench::ExternalHalos {
 public:
  LoopbackHalos(Mailbox& box, int rank, int ranks, bool direct) : box_(box), rank_(rank), ranks_(ranks), direct_(direct) {}
  bool below() const override { return rank_ > 0; }
  bool above() const override { return rank_ + 1 < ranks_; }
  bool direct() const override { return direct_; }
  void exchange(const double* send_down, const double* send_up, double* recv_below, double* recv_above,
                std::size_t points) override {
    std::unique_lock<std::mutex> lock(box_.mutex);
    if (send_down) box_.planes[{rank_ - 1, rank_, count_}] = std::vector<double>(send_down, send_down + points);
    if (send_up) box_.planes[{rank_ + 1, rank_, count_}] = std::vector<double>(send_up, send_up + points);
    box_.changed.notify_all();
    auto take = [&](int from, double* into) {
      if (!into) return;
      const auto key = std::make_tuple(rank_, from, count_);
      box_.changed.wait(lock, [&] { return box_.planes.count(key) != 0; });
      std::memcpy(into, box_.planes[key].data(), points * sizeof(double));
      box_.planes.erase(key);
    };
    take(rank_ - 1, recv_below);
    take(rank_ + 1, recv_above);
    ++exchanges;
    ++count_;
  }
  int exchanges = 0;

 private:
  Mailbox& box_;
  int rank_, ranks_;
  bool direct_;
  int count_ = 0;
};
}  // namespace

// Two or three processes (one with two devices of its own), the planes between them exchanged
// through pinned copies or straight from the arrays: the one-device bits, and one host wait per
// step for the planes that leave plus one per run.
TEST(LaplacianSlabsProcesses, ExternalHalosGiveTheOneDeviceBits) {
  const std::vector<Device> all = first(3);
  for (int kernel : {5, 8}) {
    const bench::LaplacianConfig c = grid(kernel);
    LaplacianSlabs one({all[0]}, c, Options{});
    one.run();
    one.run();
    const std::vector<double> want = one.gather();
    // {devices of process 0}, {devices of process 1}, ...
    const std::vector<std::vector<std::vector<Device>>> layouts = {
        {{all[0]}, {all[1]}}, {{all[0]}, {all[1]}, {all[2]}}, {{all[0]}, {all[1], all[2]}}};
    for (const auto& layout : layouts) {
      for (bool direct : {false, true}) {
        const int ranks = int(layout.size());
        SCOPED_TRACE("kernel " + std::to_string(kernel) + ", " + std::to_string(ranks) + " processes, " +
                     (direct ? "direct" : "pinned"));
        const std::vector<bench::Slab> ranges = bench::split_planes(c.nz, ranks);
        Mailbox box;
        std::vector<double> got(want.size(), -1.0);
        std::vector<std::uint64_t> waits(ranks);
        std::vector<int> exchanges(ranks);
        std::vector<std::string> errors(ranks);
        std::vector<std::thread> threads;
        for (int r = 0; r < ranks; ++r) {
          threads.emplace_back([&, r] {
            try {
              LoopbackHalos halos(box, r, ranks, direct);
              const Stats before = total(layout[r]);
              LaplacianSlabs part(layout[r], c, Options{}, bench::HaloRoute::automatic, {ranges[r], &halos});
              part.run();
              part.run();
              waits[r] = (total(layout[r]) - before).host_waits;
              exchanges[r] = halos.exchanges;
              const std::vector<double> mine = part.gather();
              const std::size_t plane = std::size_t(c.nx) * c.ny;
              std::memcpy(got.data() + std::size_t(part.gather_first()) * plane, mine.data(), mine.size() * sizeof(double));
            } catch (const std::exception& e) {
              errors[r] = e.what();
            }
          });
        }
        for (auto& t : threads) t.join();
        for (int r = 0; r < ranks; ++r) {
          ASSERT_EQ(errors[r], "") << "process " << r;
          EXPECT_EQ(exchanges[r], 2 * c.iters) << "process " << r;
          // One wait per step for each device whose planes leave the process, one per run.
          const std::uint64_t leaving = layout[r].size() == 1 ? 1 : std::uint64_t(r > 0) + std::uint64_t(r + 1 < ranks);
          EXPECT_EQ(waits[r], 2 * (c.iters * leaving + 1)) << "process " << r;
        }
        EXPECT_TRUE(same_bits(got, want));
      }
    }
  }
}
