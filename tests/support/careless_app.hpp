// A careless application: a seeded random sequence of API calls (record, copy and move batches,
// set_args, submit under random options, wait with odd timeouts or not at all, drop submissions,
// destroy buffers and queues early, re-record), checked against a model of what each must do.
// Every buffer holds counters that the test_add-style kernel `add` (data, value, n) adds to; the
// model adds the same on the host when a submission is made, and compares once all work ended.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "hsad/hsad.hpp"

namespace hsad::test {

struct CarelessRun {
  std::uint32_t seed = 1;
  int steps = 300;
  std::uint32_t n = 77;  // elements per buffer: a multiple of nothing, a partial work-group
};

// `add` is a kernel taking (uint32_t* data, uint32_t value, uint32_t n) that adds value to each
// of the first n elements.
inline void run_careless_app(const Device& device, const Kernel& add, const CarelessRun& run) {
  std::mt19937 rng(run.seed);
  const auto pick = [&](std::uint32_t below) { return std::uint32_t(rng() % below); };
  const std::uint32_t n = run.n;
  struct Tracked {
    std::shared_ptr<Buffer> buffer;
    std::vector<std::uint32_t> expected;
  };
  struct Recorded {
    Batch batch;
    std::vector<std::pair<std::size_t, std::uint32_t>> adds;  // (buffer slot, value) per dispatch
  };
  std::vector<Tracked> buffers;
  std::vector<Recorded> batches;
  std::vector<Queue> queues{device.create_queue()};
  std::vector<Submission> pending;
  std::size_t last_queue = 0;  // queues run side by side: the model lets one add to memory at a time
  const std::vector<std::uint32_t> zeros(n, 0);
  const auto new_buffer = [&] {
    Tracked t{std::make_shared<Buffer>(device.alloc(n * 4)), std::vector<std::uint32_t>(n, 0)};
    device.copy_to_device(*t.buffer, zeros.data(), n * 4);
    buffers.push_back(std::move(t));
  };
  new_buffer();
  const auto check_all = [&](const char* when, int step) {
    for (std::size_t i = 0; i < buffers.size(); ++i) {
      std::vector<std::uint32_t> got(n);
      device.copy_to_host(got.data(), *buffers[i].buffer, n * 4);
      ASSERT_EQ(got, buffers[i].expected) << "seed " << run.seed << ", step " << step << " (" << when << "): buffer " << i;
    }
  };
  const auto finish_all = [&] {
    for (Submission& s : pending) s.wait(std::chrono::seconds(60));  // bounded: a bug fails, never hangs CI
    pending.clear();
  };

  for (int step = 0; step < run.steps; ++step) {
    SCOPED_TRACE("seed " + std::to_string(run.seed) + ", step " + std::to_string(step));
    switch (pick(12)) {
      case 0:  // a new buffer
        if (buffers.size() < 6) new_buffer();
        break;
      case 1: {  // destroy a buffer early: batches naming it are dropped with it (the model's rule)
        if (buffers.size() < 2) break;
        const std::size_t victim = pick(std::uint32_t(buffers.size()));
        buffers.erase(buffers.begin() + std::ptrdiff_t(victim));
        std::vector<Recorded> kept;
        for (Recorded& r : batches) {
          bool names = false;
          for (auto& [slot, value] : r.adds) names |= slot == victim;
          if (names) continue;
          for (auto& [slot, value] : r.adds) slot -= slot > victim;
          kept.push_back(std::move(r));
        }
        batches = std::move(kept);
        break;
      }
      case 2:
      case 3: {  // record a batch of one to four adds
        if (batches.size() >= 8) batches.erase(batches.begin());
        Recorded r;
        for (std::uint32_t i = 0, count = 1 + pick(4); i < count; ++i) {
          const std::size_t slot = pick(std::uint32_t(buffers.size()));
          const std::uint32_t value = 1 + pick(9);
          r.batch.exec(add, Dim3{n}, Dim3{32}, {*buffers[slot].buffer, value, n});
          r.adds.emplace_back(slot, value);
        }
        batches.push_back(std::move(r));
        break;
      }
      case 4: {  // copy a batch, then change the copy's arguments: the original must not change
        if (batches.empty() || batches.size() >= 8) break;
        Recorded copy = batches[pick(std::uint32_t(batches.size()))];
        if (copy.adds.empty()) break;  // a moved-from batch
        const std::size_t d = pick(std::uint32_t(copy.adds.size()));
        copy.adds[d].second = 10 + pick(9);
        copy.batch.set_args(d, {*buffers[copy.adds[d].first].buffer, copy.adds[d].second, n});
        batches.push_back(std::move(copy));
        break;
      }
      case 5: {  // move a batch into a new slot: the moved-from one is empty
        if (batches.empty()) break;
        Recorded& from = batches[pick(std::uint32_t(batches.size()))];
        Recorded moved{std::move(from.batch), from.adds};
        EXPECT_TRUE(from.batch.empty());  // NOLINT(bugprone-use-after-move): specified
        from.adds.clear();
        batches.push_back(std::move(moved));
        break;
      }
      case 6:
      case 7:
      case 8: {  // submit under random options; keep, drop, or wait with an odd timeout
        if (batches.empty()) break;
        Recorded& r = batches[pick(std::uint32_t(batches.size()))];
        Options o = pick(2) ? Options{} : Options::none();
        o.replay = pick(2);
        const std::size_t which = pick(std::uint32_t(queues.size()));
        if (which != last_queue) finish_all();
        last_queue = which;
        Queue& q = queues[which];
        Submission s = q.submit(r.batch, o, pick(4) ? kDefaultTimeout : kWaitForever);
        for (auto& [slot, value] : r.adds) {
          for (auto& e : buffers[slot].expected) e += value;
        }
        switch (pick(4)) {
          case 0: break;  // dropped: its destructor waits
          case 1: s.wait(std::chrono::milliseconds::max()); break;
          case 2: if (s.ready()) s.wait(std::chrono::milliseconds(0)); else pending.push_back(std::move(s)); break;
          default: pending.push_back(std::move(s)); break;
        }
        break;
      }
      case 9:  // a new queue, or destroy one (its work was waited for or is held by a Submission)
        if (queues.size() < 3 && pick(2)) {
          queues.push_back(device.create_queue());
        } else if (queues.size() > 1) {
          finish_all();  // a queue's destructor does not wait: the model waits first
          queues.erase(queues.begin() + std::ptrdiff_t(pick(std::uint32_t(queues.size()))));
          last_queue = 0;
        }
        break;
      case 10:  // set_args on a recorded batch, in place
        if (!batches.empty()) {
          Recorded& r = batches[pick(std::uint32_t(batches.size()))];
          if (r.adds.empty()) break;
          const std::size_t d = pick(std::uint32_t(r.adds.size()));
          r.adds[d].second = 1 + pick(9);
          r.batch.set_args(d, {*buffers[r.adds[d].first].buffer, r.adds[d].second, n});
        }
        break;
      default:  // the host catches up and checks
        finish_all();
        check_all("checkpoint", step);
        break;
    }
    if (::testing::Test::HasFatalFailure()) return;
  }
  finish_all();
  check_all("end", run.steps);
}

}  // namespace hsad::test
