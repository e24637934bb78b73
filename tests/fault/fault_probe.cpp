// hsad-fault-probe: one misbehaving program per case, run by the recovery tests in a child
// process with a time bound (tests/support/recovery_cases.hpp), so that a hang fails a test
// instead of stalling CI. It prints one "key: value" line per step, on stdout, flushed.
//
//   hsad-fault-probe BACKEND CASE
//   CASE: stuck-exit   a kernel that never ends, a timeout, then main returns 3 while it spins
//         stuck-later  after that timeout: the same queue, a new queue, memory and modules
//         reset        after that timeout: Device::reset, then a batch on a new queue
//         fault        a store to an address nobody mapped (the cpu agent: a kernel that throws)
//         trap         a kernel that traps (the cpu agent: a kernel that throws)
//         fault-reset  a fault, then Device::reset, then a batch on a new queue
//         cooperative-trap  a kernel that traps on a cooperative queue; other queues, a new one
//         stuck-new-runtime  after that timeout: a second Runtime, its memory, queue, module and a
//                      batch; then the kernel released, waited for, and a third Runtime
// Kernels: tests/modules/fault_kernels.cu on GPUs (HSAD_TEST_MODULES_DIR, else the build's
// folder), host kernels of the same names on the cpu agent.
#include <time.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "hsad/hsad.hpp"

using namespace hsad;
using std::chrono::milliseconds;

namespace {

std::uint64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::uint64_t(ts.tv_sec) * 1'000'000'000ull + std::uint64_t(ts.tv_nsec);
}

void say(const std::string& key, const std::string& value) {
  std::printf("%s: %s\n", key.c_str(), value.c_str());
  std::fflush(stdout);
}

// Runs `step`, saying how long it took and what it threw.
template <class F> void timed(const std::string& key, F&& step) {
  const auto start = std::chrono::steady_clock::now();
  std::string outcome = "ok";
  try {
    step();
  } catch (const std::exception& e) {
    outcome = std::string("error: ") + e.what();
  }
  const auto ms = std::chrono::duration_cast<milliseconds>(std::chrono::steady_clock::now() - start).count();
  say(key, outcome + " (" + std::to_string(ms) + " ms)");
}

struct PointerArg {
  unsigned* p;
};

void register_cpu_kernels() {
  const std::vector<ArgInfo> pointer = {host_arg("p", &PointerArg::p)};
  register_host_kernel(make_host_kernel<PointerArg>("probe_spin", +[](const WorkGroup& wg) {
    // Never looks at wg.cancelled(): the agent must cope with a work-group that does not return.
    const unsigned* flag = wg.args<PointerArg>().p;
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) == 0) std::this_thread::yield();
  }, pointer));
  register_host_kernel(make_host_kernel<PointerArg>("probe_store", +[](const WorkGroup& wg) {
    char text[64];
    std::snprintf(text, sizeof text, "invalid store to %p", static_cast<void*>(wg.args<PointerArg>().p));
    throw std::runtime_error(text);
  }, pointer));
  register_host_kernel(make_host_kernel("probe_trap", +[](const WorkGroup&) { throw std::runtime_error("trap"); }));
  register_host_kernel(make_host_kernel<PointerArg>("probe_add_one", +[](const WorkGroup& wg) {
    __atomic_fetch_add(wg.args<PointerArg>().p, 1u, __ATOMIC_RELAXED);
  }, pointer));
}

struct Kernels {
  Module module;  // GPUs: the module that holds them
  Kernel spin, store, trap, add_one;
};

std::string modules_dir() {
  const char* dir = std::getenv("HSAD_TEST_MODULES_DIR");
  return dir && *dir ? dir : HSAD_MODULES_DIR;
}

Kernels kernels(const Device& device) {
  Kernels k;
  if (device.info().backend == "cpu") {
    k.spin = device.kernel("probe_spin");
    k.store = device.kernel("probe_store");
    k.trap = device.kernel("probe_trap");
    k.add_one = device.kernel("probe_add_one");
    return k;
  }
  k.module = device.load_module(modules_dir() + (device.info().backend == "cuda" ? "/fault.fatbin" : "/fault.hsaco"));
  k.spin = k.module.kernel("probe_spin");
  k.store = k.module.kernel("probe_store");
  k.trap = k.module.kernel("probe_trap");
  k.add_one = k.module.kernel("probe_add_one");
  return k;
}

// A batch of one kernel that works; the count it adds to, read back.
bool works(const Device& device, const Kernel& add_one, const std::string& key) {
  bool ok = false;
  timed(key, [&] {
    Buffer x = device.alloc(sizeof(unsigned));
    const unsigned zero = 0;
    device.copy_to_device(x, &zero, sizeof zero);
    Batch b;
    b.exec(add_one, Dim3{1}, Dim3{1}, {x});
    device.create_queue().run(b, Options{}, milliseconds(10000));
    unsigned got = 0;
    device.copy_to_host(&got, x, sizeof got);
    if (got != 1) throw std::runtime_error("the count is " + std::to_string(got));
    ok = true;
  });
  return ok;
}

// A queue whose kernel spins on a flag that is 0, waited for with a short timeout: abandoned.
struct Stuck {
  Buffer flag;
  Queue queue;
  Submission submission;
};

Stuck stick(const Device& device, const Kernels& k) {
  Stuck s;
  // Pinned host memory: the host stores the flag while the kernel runs, which a kernel sees only
  // in memory coherent with the host. In plain (coarse-grained) AMD device memory the spinning
  // kernel keeps reading its L2's line: hsad-sim's cache model hung here, as a GPU may.
  s.flag = device.alloc(sizeof(unsigned), Memory::pinned_host);
  __atomic_store_n(static_cast<unsigned*>(s.flag.host_ptr()), 0u, __ATOMIC_RELEASE);
  s.queue = device.create_queue();
  Batch b;
  b.exec(k.spin, Dim3{1}, Dim3{1}, {s.flag});
  s.submission = s.queue.submit(b, Options{}, milliseconds(1000));
  timed("stuck-run", [&] { s.submission.wait(milliseconds(1000)); });
  return s;
}

void release_flag(const Buffer& flag) {
  const unsigned one = 1;
  timed("release-flag", [&] {
    // Stored atomically: the spinning kernel reads it while it runs (on the cpu agent, a host
    // thread: a plain store would be a data race, which TSan reports).
    __atomic_store_n(static_cast<unsigned*>(flag.host_ptr()), one, __ATOMIC_RELEASE);
  });
}

int stuck_exit(const Device& device, const Kernels& k) {
  Stuck stuck = stick(device, k);
  // Every handle goes out of scope on the way out, the kernel still spinning.
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return 3;
}

int stuck_later(const Device& device, const Kernels& k) {
  Stuck stuck = stick(device, k);
  Queue& queue = stuck.queue;
  Batch b;
  Buffer x = device.alloc(sizeof(unsigned));
  b.exec(k.add_one, Dim3{1}, Dim3{1}, {x});
  timed("same-queue", [&] { queue.run(b, Options{}, milliseconds(3000)); });
  Queue fresh;
  timed("create-queue", [&] { fresh = device.create_queue(); });
  timed("new-queue", [&] { fresh.run(b, Options{}, milliseconds(3000)); });
  timed("new-queue-baseline", [&] { fresh.run(b, Options::none(), milliseconds(3000)); });
  timed("alloc-free", [&] {
    Buffer y = device.alloc(1 << 20);
    Buffer z = device.alloc(4096, Memory::pinned_host);
  });
  timed("load-module", [&] { kernels(device); });
  timed("abandoned-wait-again", [&] { stuck.submission.wait(milliseconds(100)); });
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return 3;
}

int reset(const Device& device, const Kernels& k) {
  Stuck stuck = stick(device, k);
  bool reset_ok = false;
  timed("reset", [&] {
    device.reset();
    reset_ok = true;
  });
  if (!reset_ok) {
    // cuda: the driver's reset waits for the kernel; end it, then reset. The host's store is seen
    // by the kernel microseconds later: the reset comes once the submission has ended.
    release_flag(stuck.flag);
    timed("stuck-ends", [&] { stuck.submission.wait(milliseconds(10000)); });
    timed("reset-after-release", [&] { device.reset(); });
  }
  timed("old-queue", [&] {
    Batch b;
    stuck.queue.run(b, Options{}, milliseconds(3000));
  });
  const Kernels again = kernels(device);
  const bool ok = works(device, again.add_one, "after-reset");
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return ok ? 3 : 1;
}

int fault(const Device& device, const Kernels& k, bool trap, bool then_reset) {
  Queue queue = device.create_queue();
  Buffer x = device.alloc(sizeof(unsigned));
  Batch b;
  b.exec(k.add_one, Dim3{1}, Dim3{1}, {x});
  if (trap) {
    b.exec(k.trap, Dim3{1}, Dim3{1}, {});
  } else {
    void* nowhere = reinterpret_cast<void*>(std::uintptr_t(0x1000));
    b.exec(k.store, Dim3{64}, Dim3{64}, {Arg::unchecked(nowhere)});
  }
  b.exec(k.add_one, Dim3{1}, Dim3{1}, {x});
  timed("faulting-run", [&] { queue.run(b, Options{}, milliseconds(20000)); });
  timed("same-queue-after", [&] { queue.run(b, Options{}, milliseconds(3000)); });
  bool ok = true;
  if (then_reset) {
    bool reset_ok = false;
    timed("reset", [&] {
      device.reset();
      reset_ok = true;
    });
    if (reset_ok) {
      const Kernels again = kernels(device);
      ok = works(device, again.add_one, "after-reset");
    }
  }
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return ok ? 3 : 1;
}

// A kernel that traps on a cooperative queue (rocr: ROCr's one cooperative queue of the agent,
// whose errors ROCr reports to nobody): the waiter gets the error, the queue refuses more work,
// another cooperative queue is refused or works while the first is held, plain queues go on, and
// once the first is gone a new cooperative queue works.
int cooperative_trap(const Device& device, const Kernels& k) {
  LaunchConfig cooperative;
  cooperative.cooperative = true;
  Buffer x = device.alloc(sizeof(unsigned));
  Batch b;
  b.exec(k.add_one, Dim3{1}, Dim3{1}, {x});
  b.exec(k.trap, Dim3{1}, Dim3{1}, {}, cooperative);
  b.exec(k.add_one, Dim3{1}, Dim3{1}, {x});
  Batch one;
  one.exec(k.add_one, Dim3{1}, Dim3{1}, {x}, cooperative);
  {
    Queue queue;
    timed("create-cooperative", [&] { queue = device.create_cooperative_queue(); });
    timed("faulting-run", [&] { queue.run(b, Options{}, milliseconds(20000)); });
    timed("same-queue-after", [&] { queue.run(b, Options{}, milliseconds(3000)); });
    timed("second-cooperative-while-held", [&] { device.create_cooperative_queue().run(one, Options{}, milliseconds(3000)); });
    works(device, k.add_one, "plain-queue-works");
  }
  timed("fresh-cooperative", [&] { device.create_cooperative_queue().run(one, Options{}, milliseconds(10000)); });
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return 3;
}

// A Runtime opened while another's kernel is stuck: it works, or (cuda, where loading its module
// would wait for the kernel) refuses at once; once the kernel ended, a new one opens.
int stuck_new_runtime(const std::string& backend, const Device& device, const Kernels& k) {
  Stuck stuck = stick(device, k);
  std::optional<Runtime> second;
  timed("second-open", [&] { second.emplace(Runtime::open(backend)); });
  if (second) {
    const Device other = second->device();
    timed("second-alloc-free", [&] {
      Buffer y = other.alloc(1 << 20);
      Buffer z = other.alloc(4096, Memory::pinned_host);
    });
    timed("second-create-queue", [&] { Queue q = other.create_queue(); });
    Kernels again;
    timed("second-load-module", [&] { again = kernels(other); });
    if (again.add_one) works(other, again.add_one, "second-works");
  }
  release_flag(stuck.flag);
  timed("stuck-ends", [&] { stuck.submission.wait(milliseconds(10000)); });
  timed("third-open", [&] {
    const Runtime third = Runtime::open(backend);
    const Kernels k3 = kernels(third.device());
    if (!works(third.device(), k3.add_one, "third-works")) throw std::runtime_error("the third Runtime's batch failed");
  });
  say("main-returns-at-ns", std::to_string(monotonic_ns()));
  return 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: hsad-fault-probe BACKEND stuck-exit|stuck-later|reset|fault|trap|fault-reset|cooperative-trap|stuck-new-runtime\n");
    return 2;
  }
  const std::string backend = argv[1], what = argv[2];
  try {
    register_cpu_kernels();
    const Runtime rt = Runtime::open(backend);
    const Device device = rt.device();
    say("device", device.info().name + " (" + device.info().backend + ")");
    const Kernels k = kernels(device);
    if (what == "stuck-exit") return stuck_exit(device, k);
    if (what == "stuck-later") return stuck_later(device, k);
    if (what == "reset") return reset(device, k);
    if (what == "fault") return fault(device, k, false, false);
    if (what == "trap") return fault(device, k, true, false);
    if (what == "fault-reset") return fault(device, k, false, true);
    if (what == "cooperative-trap") return cooperative_trap(device, k);
    if (what == "stuck-new-runtime") return stuck_new_runtime(backend, device, k);
    std::fprintf(stderr, "hsad-fault-probe: unknown case '%s'\n", what.c_str());
    return 2;
  } catch (const std::exception& e) {
    say("setup", std::string("error: ") + e.what());
    return 1;
  }
}
