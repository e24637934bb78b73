// Interoperability with a CUDA-runtime program on the cuda backend (cuda_app.cu is the program):
// its cudaMalloc'd memory adopted, its kernel on its own stream ordered with a batch both ways by
// events with no host wait, native handles the CUDA runtime accepts, DLPack kDLCUDA tensors.
// Skips, saying why, where no CUDA device is present.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cuda_app.hpp"
#include "error_text.hpp"
#include "hsad/dlpack.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {
// Opened before the application's first CUDA runtime call that makes a context (has_device does
// not), as an application that opens the library first does.
const Runtime* cuda_runtime(std::string* why) {
  static std::string reasons;
  static std::unique_ptr<Runtime> rt = [] {
    for (const BackendStatus& b : Runtime::probe()) {
      if (b.name == "cuda" && b.available && cuda_app::has_device()) return std::make_unique<Runtime>(Runtime::open("cuda"));
      if (b.name == "cuda") reasons = b.reason.empty() ? "the CUDA runtime finds no device" : b.reason;
    }
    return std::unique_ptr<Runtime>();
  }();
  *why = reasons;
  return rt.get();
}

const Device* cuda_device(std::string* why) {
  const Runtime* rt = cuda_runtime(why);
  return rt ? &rt->device() : nullptr;
}

#define REQUIRE_CUDA()                                          \
  std::string why;                                              \
  const Device* found = cuda_device(&why);                      \
  if (!found) GTEST_SKIP() << "no CUDA device: " << why;        \
  [[maybe_unused]] const Device& device = *found

std::string modules_dir() {
  const char* moved = std::getenv("HSAD_TEST_MODULES_DIR");  // the tests carried to another machine
  return moved && *moved ? moved : HSAD_MODULES_DIR;
}

Kernel add_one(const Device& d) {
  static Module m = d.load_module(modules_dir() + "/module.cubin");
  return m.kernel("module_add_one");
}

// The application's memory, freed by the application after the batches that use it completed.
struct AppMemory {
  std::uint32_t* p;
  explicit AppMemory(std::size_t bytes) : p(static_cast<std::uint32_t*>(cuda_app::device_alloc(bytes))) {}
  ~AppMemory() { cuda_app::device_free(p); }
};

std::vector<std::uint32_t> read(const std::uint32_t* d, std::size_t n) {
  std::vector<std::uint32_t> v(n);
  cuda_app::download(v.data(), d, n * 4);
  return v;
}
}  // namespace

// The library leaves the application's current device as it found it. CUDA's runtime takes that
// device from the thread's current context, which the library sets to reach each of its devices:
// on two GPUs, opening the runtime (or any call on the last device) left GPU 1 current, and the
// application's next cudaMalloc went there (found on the device tool's nvidia-h200-x2).
TEST(GpuCudaInterop, TheApplicationsCurrentDeviceStaysItsOwn) {
  REQUIRE_CUDA();
  const Runtime& rt = *cuda_runtime(&why);
  EXPECT_EQ(cuda_app::current_device(), 0) << "after Runtime::open";
  for (int mine = 0; mine < cuda_app::device_count(); ++mine) {
    cuda_app::set_device(mine);
    for (const Device& d : rt.devices()) {
      Buffer b = d.alloc(4096, Memory::pinned_host);
      Buffer on_device = d.alloc(4096);
      Queue q = d.create_queue();
      Batch batch;
      batch.copy_to_device(on_device, b.host_ptr(), 4096).exec(d.kernel("hsad_empty"), Dim3{1}, Dim3{1}, {});
      q.run(batch);
      d.copy_to_host(b.host_ptr(), on_device, 4096);
      EXPECT_EQ(cuda_app::current_device(), mine) << "after work on " << d.info().name << " " << d.native().ordinal;
    }
  }
  cuda_app::set_device(0);
}

TEST(GpuCudaInterop, ACudaRuntimeProgramAndABatchOrderEachOtherWithNoHostWait) {
  REQUIRE_CUDA();
  // The application's kernel (x = 2x + 1, spinning 20 ms first), then 100 dispatches of the
  // library's batch (x + 1 each), then the application's kernel again: 2 (1 + 100) + 1 = 203.
  // Without the batch's wait the dispatches run during the spin; without the application's,
  // its second kernel runs long before the hundredth dispatch: either way not 203 everywhere.
  constexpr std::uint32_t n = 1u << 20;
  for (bool replay : {false, true}) {
    Options o = Options{};
    o.replay = replay;
    AppMemory x(n * 4);
    const std::vector<std::uint32_t> zeros(n, 0);
    cuda_app::upload(x.p, zeros.data(), n * 4);
    const std::uint64_t stream = cuda_app::stream_create(), event = cuda_app::event_create();
    {
      const Buffer b = device.adopt(x.p, n * 4);
      Batch batch;
      batch.wait_native(event);
      for (int i = 0; i < 100; ++i) batch.exec(add_one(device), Dim3{n}, Dim3{256}, {b, n});
      Queue q = device.create_queue();
      cuda_app::double_plus_one(stream, x.p, n, 20'000'000);
      cuda_app::event_record(event, stream);
      const Stats before = device.stats();
      Submission sub = q.submit(batch, o);
      const Stats d = device.stats() - before;
      EXPECT_EQ(d.host_waits, 0u);
      EXPECT_EQ(d.device_waits, 1u);
      cuda_app::stream_wait(stream, sub.native_handle());
      cuda_app::double_plus_one(stream, x.p, n, 0);
      cuda_app::stream_sync(stream);
      EXPECT_TRUE(cuda_app::event_done(sub.native_handle()));
      sub.wait();
      const auto v = read(x.p, n);
      std::size_t wrong = 0;
      for (std::uint32_t e : v) wrong += e != 203;
      EXPECT_EQ(wrong, 0u) << (replay ? "replay" : "no replay") << ": first " << v[0] << ", last " << v[n - 1];
    }
    cuda_app::event_destroy(event);
    cuda_app::stream_destroy(stream);
  }
}

TEST(GpuCudaInterop, CudaMemoryIsAdoptedAndWhatIsNotIsRefusedByName) {
  REQUIRE_CUDA();
  AppMemory x(4096);
  const Buffer b = device.adopt(x.p + 4, 64);
  EXPECT_TRUE(b.adopted());
  EXPECT_EQ(b.kind(), Memory::device);
  EXPECT_EQ(b.host_ptr(), nullptr);
  std::string text = test::error_text([&] { device.adopt(x.p + 4, 4096); });
  EXPECT_NE(text.find("overrun the allocation"), std::string::npos) << text;
  std::vector<std::uint32_t> pageable(16);
  text = test::error_text([&] { device.adopt(pageable.data(), 64); });
  EXPECT_NE(text.find("is not memory the CUDA driver knows"), std::string::npos) << text;
  void* pinned = cuda_app::host_alloc(256);
  {
    const Buffer p = device.adopt(pinned, 256);
    EXPECT_EQ(p.kind(), Memory::pinned_host);
    EXPECT_EQ(p.host_ptr(), pinned);
    std::uint32_t* h = p.host_as<std::uint32_t>();
    for (int i = 0; i < 64; ++i) h[i] = i;
    Batch batch;
    batch.exec(add_one(device), Dim3{64}, Dim3{64}, {p, 64u});
    device.create_queue().run(batch, Options{});
    EXPECT_EQ(h[63], 64u);
  }
  cuda_app::host_free(pinned);
}

TEST(GpuCudaInterop, NativeHandlesAreTheCudaRuntimes) {
  REQUIRE_CUDA();
  const NativeDevice n = device.native();
  EXPECT_EQ(n.backend, "cuda");
  EXPECT_EQ(n.ordinal, 0u);
  EXPECT_NE(n.context, 0u);
  Queue q = device.create_queue();
  const NativeQueue nq = q.native();
  ASSERT_NE(nq.queue, 0u);
  // The CUDA runtime takes the stream: the primary context is the one it uses too.
  EXPECT_TRUE(cuda_app::stream_idle(nq.queue));
  AppMemory x(256);
  const std::vector<std::uint32_t> zeros(64, 0);
  cuda_app::upload(x.p, zeros.data(), 256);
  cuda_app::double_plus_one(nq.queue, x.p, 64, 0);  // the application's kernel on the library's stream
  Batch batch;
  const Buffer b = device.adopt(x.p, 256);
  batch.exec(add_one(device), Dim3{64}, Dim3{64}, {b, 64u});
  q.run(batch, Options{});  // in stream order after it
  EXPECT_EQ(read(x.p, 64)[63], 2u);
}

TEST(GpuCudaInterop, DLPackTensorsOfCudaMemory) {
  REQUIRE_CUDA();
  AppMemory x(1024);
  const std::vector<std::uint32_t> zeros(256, 0);
  cuda_app::upload(x.p, zeros.data(), 1024);
  static int deleted = 0;
  std::int64_t shape[] = {16, 16};
  DLManagedTensor t{};
  t.dl_tensor = DLTensor{x.p, {kDLCUDA, 0}, 2, {kDLUInt, 32, 1}, shape, nullptr, 0};
  t.deleter = [](DLManagedTensor*) { ++deleted; };
  {
    const Buffer b = from_dlpack(device, &t);
    Batch batch;
    batch.exec(add_one(device), Dim3{256}, Dim3{64}, {b, 256u});
    device.create_queue().run(batch, Options{});
  }
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(read(x.p, 256)[255], 1u);
  t.dl_tensor.device = {kDLROCM, 0};
  EXPECT_NE(test::error_text([&] { from_dlpack(device, &t); }).find("kDLROCM cannot be adopted by a cuda device"),
            std::string::npos);
  DLManagedTensor* out = to_dlpack(device.alloc(64), {16}, {kDLFloat, 32, 1});
  EXPECT_EQ(out->dl_tensor.device.device_type, kDLCUDA);
  out->deleter(out);
}

TEST(GpuCudaInterop, AHandleAskedAfterLaterWorkIsNotOrderedBehindIt) {
  REQUIRE_CUDA();
  // Submission a, then b on the same queue, b held until the application's gate event (behind a
  // 500 ms spin). a's handle, asked only now, must complete with a, not after b: the
  // application's stream that waits for it finishes while the gate still spins.
  AppMemory x(256), y(256);
  const std::vector<std::uint32_t> zeros(64, 0);
  cuda_app::upload(x.p, zeros.data(), 256);
  cuda_app::upload(y.p, zeros.data(), 256);
  const std::uint64_t gate_stream = cuda_app::stream_create(), app_stream = cuda_app::stream_create();
  const std::uint64_t gate = cuda_app::event_create();
  {
    const Buffer bx = device.adopt(x.p, 256), by = device.adopt(y.p, 256);
    Batch first, held;
    first.exec(add_one(device), Dim3{64}, Dim3{64}, {bx, 64u});
    held.wait_native(gate).exec(add_one(device), Dim3{64}, Dim3{64}, {by, 64u});
    cuda_app::double_plus_one(gate_stream, y.p, 64, 500'000'000);
    cuda_app::event_record(gate, gate_stream);
    Queue q = device.create_queue();
    Submission a = q.submit(first, Options{});
    Submission b = q.submit(held, Options{});
    cuda_app::stream_wait(app_stream, a.native_handle());
    cuda_app::double_plus_one(app_stream, x.p, 64, 0);
    cuda_app::stream_sync(app_stream);
    EXPECT_FALSE(cuda_app::event_done(gate)) << "a's handle completed only after the work submitted behind it";
    EXPECT_EQ(read(x.p, 64)[0], 3u);  // (0 + 1) * 2 + 1: after a, as ordered
    b.wait();
    EXPECT_EQ(read(y.p, 64)[0], 2u);  // 0 * 2 + 1, then + 1
  }
  cuda_app::stream_sync(gate_stream);
  cuda_app::event_destroy(gate);
  cuda_app::stream_destroy(gate_stream);
  cuda_app::stream_destroy(app_stream);
}
