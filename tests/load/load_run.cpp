// run_load: one worker per thread, each drawing its next action at random (seeded, so a run can be
// repeated) until the time is up. What an action may legitimately end in (a 1 ms wait that runs
// out) is counted apart; anything else that throws is an error.
#include "load_run.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <sstream>
#include <thread>

#include "jacobi_workload.hpp"

namespace hsad::load {
namespace {

constexpr std::chrono::milliseconds kLongWait{120000};  // a hang, not a slow simulated GPU
constexpr std::size_t kErrorsKept = 10;

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return 0;
}

// The option sets an application picks from: the ladder's rungs, the default, and replay.
const std::vector<Options>& option_sets() {
  static const std::vector<Options> sets = {
      Options::none(), Options::parse("signal"), Options::parse("signal,kernarg"),
      Options::parse("signal,kernarg,nosync"), Options{}, Options::all()};
  return sets;
}

// What every worker adds to, under one lock (rarely taken: once per action).
struct Shared {
  std::mutex mutex;
  LoadReport report;
  void error(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    ++report.errors;
    if (report.first_errors.size() < kErrorsKept) report.first_errors.push_back(what);
  }
  void wrong(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    ++report.wrong;
    if (report.first_errors.size() < kErrorsKept) report.first_errors.push_back("wrong result: " + what);
  }
  template <class F>
  void count(F f) {
    std::lock_guard<std::mutex> lock(mutex);
    f(report);
  }
};

// A sort recorded once and submitted many times (replay caches it by identity): its keys on the
// device, its host ends (pageable or pinned), and which way the network now sorts.
struct RecordedSort {
  Buffer keys, pinned_in, pinned_out;
  std::vector<std::uint32_t> pageable_in, pageable_out;
  Batch batch;
  bool ascending = true;
  std::uint32_t* in() { return pinned_in.size() ? pinned_in.host_as<std::uint32_t>() : pageable_in.data(); }
  std::uint32_t* out() { return pinned_out.size() ? pinned_out.host_as<std::uint32_t>() : pageable_out.data(); }
};

void record_network(Batch& b, const Kernel& step, const Buffer& keys, std::uint32_t n, bool ascending) {
  std::uint32_t stages = 0;
  while ((1u << stages) < n) ++stages;
  const std::uint32_t group = std::min<std::uint32_t>(256, n / 2);
  for (std::uint32_t stage = 0; stage < stages; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) {
      b.exec(step, Dim3{n / 2}, Dim3{group}, {keys, stage, pass, ascending ? 1u : 0u, n});
    }
  }
}

class Worker {
 public:
  Worker(const Device& d, Queue& shared_queue, Shared& shared, const LoadConfig& c, unsigned index,
         const std::vector<double>* jacobi_want, std::uint64_t jacobi_iterations)
      : d_(d), shared_queue_(shared_queue), shared_(shared), c_(c), rng_(c.seed * 7919 + index),
        step_(d.kernel("bitonic_step")), jacobi_want_(jacobi_want), jacobi_iterations_(jacobi_iterations) {}

  void run(std::chrono::steady_clock::time_point until) {
    own_ = d_.create_queue();
    while (std::chrono::steady_clock::now() < until) {
      const unsigned pick = unsigned(rng_() % 100);
      try {
        if (pick < 70) sort();
        else if (pick < 80 && c_.loops) solve();
        else if (pick < 92) allocate();
        else query();
      } catch (const Error& e) {
        shared_.error(std::string(to_string(e.code())) + ": " + e.what());
      } catch (const std::exception& e) {
        shared_.error(std::string("exception: ") + e.what());
      }
    }
  }

 private:
  std::uint32_t random_n() { return 1u << (1 + rng_() % c_.max_keys_log2); }
  bool chance(unsigned percent) { return rng_() % 100 < percent; }

  RecordedSort& recorded(std::uint32_t n, bool pinned) {
    std::unique_ptr<RecordedSort>& slot = sorts_[{n, pinned}];
    if (slot) return *slot;
    slot = std::make_unique<RecordedSort>();
    RecordedSort& s = *slot;
    const std::size_t bytes = std::size_t(n) * 4;
    s.keys = d_.alloc(bytes);
    if (pinned) {
      s.pinned_in = d_.alloc(bytes, Memory::pinned_host);
      s.pinned_out = d_.alloc(bytes, Memory::pinned_host);
    } else {
      s.pageable_in.resize(n);
      s.pageable_out.resize(n);
    }
    s.batch.copy_to_device(s.keys, s.in(), bytes);
    record_network(s.batch, step_, s.keys, n, true);
    s.batch.copy_to_host(s.out(), s.keys, bytes);
    return s;
  }

  void fill(std::uint32_t* keys, std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) keys[i] = std::uint32_t(rng_());
  }

  void check_sorted(const std::vector<std::uint32_t>& input, const std::uint32_t* out, bool ascending, std::uint32_t n,
                    const Options& o, const char* how) {
    std::vector<std::uint32_t> want = input;
    if (ascending) std::sort(want.begin(), want.end());
    else std::sort(want.begin(), want.end(), std::greater<>());
    if (!std::equal(want.begin(), want.end(), out)) {
      std::size_t differ = 0, first = n;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (out[i] != want[i]) differ += 1, first = std::min<std::size_t>(first, i);
      }
      // What the output is instead says where to look: another sort's keys (memory reused under
      // work in flight), these keys half sorted (a dispatch that ran out of order), or nothing.
      std::vector<std::uint32_t> got(out, out + n);
      std::sort(got.begin(), got.end());
      std::vector<std::uint32_t> keys = want;
      std::sort(keys.begin(), keys.end());
      const bool own_keys = got == keys;
      const bool sorted = std::is_sorted(out, out + n) || std::is_sorted(out, out + n, std::greater<>());
      const bool unsorted = std::equal(input.begin(), input.end(), out);
      shared_.wrong(std::to_string(n) + " keys, options " + o.to_string() + ", " + how +
                    (ascending ? ", ascending" : ", descending") + ": " + std::to_string(differ) +
                    " keys differ, the first at " + std::to_string(first) +
                    (unsorted ? " (the output is the input, unsorted)"
                              : std::string(own_keys ? ", its own keys" : ", not its own keys") +
                                    (sorted ? ", sorted" : ", out of order")));
    }
  }

  // Waits for `s` as an application might: plainly, by polling, through a callback, with a 1 ms
  // timeout first (own queue only: a timeout leaves the queue refusing work until the batch
  // ends), or by dropping the handle. Returns how.
  const char* wait(Submission& s, bool own_queue) {
    const unsigned pick = unsigned(rng_() % 100);
    if (pick < 10) {
      { Submission dropped = std::move(s); }  // the destructor waits for it
      shared_.count([](LoadReport& r) { ++r.dropped; });
      return "dropped";
    }
    if (pick < 20) {
      while (!s.ready()) std::this_thread::yield();
      s.wait(std::chrono::milliseconds(0));
      shared_.count([](LoadReport& r) { ++r.polled; });
      return "polled";
    }
    if (pick < 30) {
      std::promise<std::string> ended;
      std::future<std::string> result = ended.get_future();
      std::move(s).on_complete([&ended](const Error* e) { ended.set_value(e ? std::string(e->what()) : std::string()); });
      if (result.wait_for(kLongWait) != std::future_status::ready) throw std::runtime_error("on_complete never called");
      const std::string why = result.get();
      if (!why.empty()) throw std::runtime_error("on_complete: " + why);
      shared_.count([](LoadReport& r) { ++r.callbacks; });
      return "callback";
    }
    if (pick < 40 && own_queue) {
      bool ran_out = false;
      try {
        s.wait(std::chrono::milliseconds(1));
      } catch (const Error& e) {
        if (e.code() != Errc::timeout) throw;
        ran_out = true;
        s.wait(kLongWait);  // the same work, waited for again
      }
      shared_.count([ran_out](LoadReport& r) { ++r.short_waits, r.timeouts += ran_out; });
      return "1 ms wait first";
    }
    s.wait(kLongWait);
    return "waited";
  }

  void sort() {
    const std::uint32_t n = random_n();
    const Options& o = option_sets()[rng_() % option_sets().size()];
    const bool on_shared = chance(30);
    Queue& q = on_shared ? shared_queue_ : own_;
    const std::size_t bytes = std::size_t(n) * 4;
    if (chance(40)) {
      // Recorded for this submit only: its device buffer and the batch are gone before the wait
      // (what the submissions use must outlive them). On the shared queue, a second batch on
      // this thread's own queue may wait for it on the device and read the keys back too.
      std::vector<std::uint32_t> input(n), output(n), followed(n);
      fill(input.data(), n);
      Submission s, after;
      {
        Buffer keys = d_.alloc(bytes);
        Batch b;
        b.copy_to_device(keys, input.data(), bytes);
        record_network(b, step_, keys, n, true);
        b.copy_to_host(output.data(), keys, bytes);
        s = q.submit(b, o, kLongWait);
        if (on_shared && chance(30)) {
          Batch follow;
          follow.wait(s);
          follow.copy_to_host(followed.data(), keys, bytes);
          after = own_.submit(follow, Options{}, kLongWait);
        }
      }
      const char* how = wait(s, !on_shared);
      check_sorted(input, output.data(), true, n, o, how);
      if (after) {
        after.wait(kLongWait);
        check_sorted(input, followed.data(), true, n, o, "read back by a batch waiting on the device");
      }
      shared_.count([on_shared, &o](LoadReport& r) {
        ++r.sorts, ++r.freed_in_flight, r.on_shared_queue += on_shared, r.replayed += o.replay;
      });
      return;
    }
    RecordedSort& r = recorded(n, chance(50));
    bool turned = false;
    if (chance(15)) {  // every dispatch's direction changed in place: replay updates, not records
      r.ascending = !r.ascending;
      std::uint32_t stages = 0;
      while ((1u << stages) < n) ++stages;
      std::size_t i = 0;
      for (std::uint32_t stage = 0; stage < stages; ++stage) {
        for (std::uint32_t pass = 0; pass <= stage; ++pass) {
          r.batch.set_args(i++, {r.keys, stage, pass, r.ascending ? 1u : 0u, n});
        }
      }
      turned = true;
    }
    fill(r.in(), n);
    const std::vector<std::uint32_t> input(r.in(), r.in() + n);
    const char* how = "enqueued, then finished";
    if (chance(c_.enqueue_percent)) {
      // No handle: on the shared queue another thread's finish may be the one waiting for it.
      q.enqueue(r.batch, o, kLongWait);
      q.finish(kLongWait);
      shared_.count([](LoadReport& rep) { ++rep.enqueued; });
    } else {
      Submission s = q.submit(r.batch, o, kLongWait);
      how = wait(s, !on_shared);
    }
    check_sorted(input, r.out(), r.ascending, n, o, how);
    shared_.count([on_shared, turned, &o](LoadReport& rep) {
      ++rep.sorts, rep.on_shared_queue += on_shared, rep.replayed += o.replay, rep.args_changed += turned;
    });
  }

  void solve() {
    if (!jacobi_) jacobi_ = std::make_unique<bench::JacobiSolver>(d_, bench::JacobiProblem{c_.jacobi_n, 1e-4, 10000});
    jacobi_->reset();
    const bool device_loop = chance(70);
    const Options& o = chance(50) ? Options::all() : Options{};
    const bench::JacobiRun run = device_loop ? jacobi_->run_device_loop(own_, o) : jacobi_->run_host_loop(own_, o, 1);
    if (run.iterations != jacobi_iterations_) {
      shared_.wrong("Jacobi " + std::string(device_loop ? "device" : "host") + " loop: " +
                    std::to_string(run.iterations) + " iterations, the host's " + std::to_string(jacobi_iterations_));
    } else {
      const std::vector<double> got = jacobi_->solution();
      double worst = got.size() == jacobi_want_->size() ? 0.0 : 1.0;
      for (std::size_t i = 0; i < got.size() && i < jacobi_want_->size(); ++i) {
        worst = std::max(worst, std::abs(got[i] - (*jacobi_want_)[i]));
      }
      if (worst > 1e-12) shared_.wrong("Jacobi solution off by " + std::to_string(worst));  // a GPU may fuse multiply-adds
    }
    shared_.count([device_loop](LoadReport& r) { device_loop ? ++r.device_loops : ++r.host_loops; });
  }

  void allocate() {
    const std::size_t bytes = 1 + rng_() % (1u << 20);
    const bool pinned = chance(30);
    Buffer b = d_.alloc(bytes, pinned ? Memory::pinned_host : Memory::device);
    if (chance(50)) {
      std::vector<unsigned char> back(std::min<std::size_t>(bytes, 4096), 0x5a), got(back.size());
      if (pinned) {
        std::memcpy(b.host_ptr(), back.data(), back.size());
        std::memcpy(got.data(), b.host_ptr(), got.size());
      } else {
        d_.copy_to_device(b, back.data(), back.size());
        d_.copy_to_host(got.data(), b, got.size());
      }
      if (got != back) shared_.wrong("a copy there and back of " + std::to_string(back.size()) + " bytes");
    }
    shared_.count([](LoadReport& r) { ++r.allocations; });
  }

  void query() {
    (void)d_.stats();
    (void)shared_queue_.submissions();
    (void)own_.submissions();
    (void)d_.info();
  }

  const Device& d_;
  Queue& shared_queue_;
  Shared& shared_;
  const LoadConfig& c_;
  std::mt19937_64 rng_;
  Kernel step_;
  Queue own_;
  std::map<std::pair<std::uint32_t, bool>, std::unique_ptr<RecordedSort>> sorts_;
  std::unique_ptr<bench::JacobiSolver> jacobi_;
  const std::vector<double>* jacobi_want_;
  std::uint64_t jacobi_iterations_;
};

}  // namespace

LoadReport run_load(const Device& device, const LoadConfig& config) {
  if (config.threads == 0) throw Error(Errc::invalid_argument, "load", "threads", "at least one thread");
  if (config.max_keys_log2 < 1 || config.max_keys_log2 > 20) {
    throw Error(Errc::invalid_argument, "load", "max_keys_log2", "from 1 to 20, not " + std::to_string(config.max_keys_log2));
  }
  Shared shared;
  shared.report.device = device.info().name;
  shared.report.config = config;
  std::uint64_t jacobi_iterations = 0;
  double norm = 0;
  const std::vector<double> jacobi_want =
      config.loops ? bench::host_jacobi(bench::JacobiProblem{config.jacobi_n, 1e-4, 10000}, &jacobi_iterations, &norm)
                   : std::vector<double>();

  const auto start = std::chrono::steady_clock::now();
  const auto until = start + config.duration;
  {
    Queue shared_queue = device.create_queue(device.info().backend == "cuda" ? 0 : config.shared_queue_packets);
    std::vector<std::unique_ptr<Worker>> workers;
    for (unsigned t = 0; t < config.threads; ++t) {
      workers.push_back(std::make_unique<Worker>(device, shared_queue, shared, config, t, &jacobi_want, jacobi_iterations));
    }
    std::vector<std::thread> threads;
    for (auto& w : workers) threads.emplace_back([&w, until] { w->run(until); });
    // Half-way: the threads make what they keep (each its sorts of each size, pinned ends, the
    // queues' graphs) lazily, for a while. 32 threads on the H100 grew 48-64 MB from a fifth of 10 s
    // to the end, and 12 MB from a fifth of 40 s to the end, 4 times the work: warming up, not a
    // leak, which the second half of a run still shows.
    std::this_thread::sleep_until(start + config.duration / 2);
    shared.count([](LoadReport& r) { r.rss_kib_warm = rss_kib(); });
    for (std::thread& t : threads) t.join();
  }
  shared.report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  shared.report.rss_kib_end = rss_kib();
  return shared.report;
}

bool passed(const LoadReport& r, long max_growth_kib) {
  return r.wrong == 0 && r.errors == 0 && r.growth_kib() < max_growth_kib && r.sorts > 0;
}

std::string to_text(const LoadReport& r) {
  std::ostringstream out;
  out << "device: " << r.device << "\n"
      << "threads: " << r.config.threads << ", " << r.seconds << " s, seed " << r.config.seed << ", sorts of 2 to "
      << (1u << r.config.max_keys_log2) << " keys\n"
      << "sorts checked: " << r.sorts << " (replayed " << r.replayed << ", turned around by set_args " << r.args_changed
      << ", on the shared queue " << r.on_shared_queue << ", buffer and batch freed in flight " << r.freed_in_flight << ")\n"
      << "waits: dropped " << r.dropped << ", polled " << r.polled << ", callbacks " << r.callbacks << ", 1 ms first "
      << r.short_waits << " (ran out " << r.timeouts << "), enqueued and finished " << r.enqueued << "\n"
      << "Jacobi solves: device loop " << r.device_loops << ", host loop " << r.host_loops << "\n"
      << "buffers allocated and freed beside: " << r.allocations << "\n"
      << "memory: VmRSS " << r.rss_kib_warm << " KiB after the warm-up, " << r.rss_kib_end << " KiB at the end ("
      << (r.growth_kib() >= 0 ? "+" : "") << r.growth_kib() << " KiB)\n"
      << "wrong results: " << r.wrong << ", errors: " << r.errors << "\n";
  for (const std::string& e : r.first_errors) out << "  " << e << "\n";
  return out.str();
}

std::string to_json(const LoadReport& r) {
  std::ostringstream out;
  const auto quoted = [](const std::string& s) {
    std::string q = "\"";
    for (char c : s) {
      if (c == '"' || c == '\\') q += '\\';
      if (c == '\n') q += "\\n";
      else q += c;
    }
    return q + "\"";
  };
  out << "{\"device\": " << quoted(r.device) << ", \"threads\": " << r.config.threads << ", \"seconds\": " << r.seconds
      << ", \"seed\": " << r.config.seed << ", \"sorts\": " << r.sorts << ", \"replayed\": " << r.replayed
      << ", \"args_changed\": " << r.args_changed << ", \"on_shared_queue\": " << r.on_shared_queue
      << ", \"freed_in_flight\": " << r.freed_in_flight << ", \"dropped\": " << r.dropped << ", \"polled\": " << r.polled
      << ", \"callbacks\": " << r.callbacks << ", \"short_waits\": " << r.short_waits << ", \"timeouts\": " << r.timeouts << ", \"enqueued\": " << r.enqueued
      << ", \"device_loops\": " << r.device_loops << ", \"host_loops\": " << r.host_loops
      << ", \"allocations\": " << r.allocations << ", \"rss_kib_warm\": " << r.rss_kib_warm
      << ", \"rss_kib_end\": " << r.rss_kib_end << ", \"wrong\": " << r.wrong << ", \"errors\": " << r.errors
      << ", \"first_errors\": [";
  for (std::size_t i = 0; i < r.first_errors.size(); ++i) out << (i ? ", " : "") << quoted(r.first_errors[i]);
  out << "]}\n";
  return out.str();
}

}  // namespace hsad::load
