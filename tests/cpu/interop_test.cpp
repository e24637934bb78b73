// Interoperability on the cpu agent: the application's host memory adopted as Buffers, a batch
// held on the device by another submission's native handle, native handles out, and DLPack
// tensors both ways. Every refusal names its cause, and leaves what it was given to the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>
#include <vector>

#include "agent/signal_ops.hpp"
#include "error_text.hpp"
#include "hsad/dlpack.hpp"
#include "hsad/host_kernel.hpp"
#include "hsad/hsad.hpp"
#include "test_kernels.hpp"

using namespace hsad;

namespace {
struct GateArgs {
  std::atomic<bool>* open;
};

// Spins until the test opens the gate: work behind it on the device cannot have run before.
void gate(const WorkGroup& wg) {
  while (!wg.args<GateArgs>().open->load(std::memory_order_acquire)) std::this_thread::yield();
}

const Device& device() {
  static std::once_flag once;
  std::call_once(once, [] {
    test::register_test_kernels();
    register_host_kernel(make_host_kernel<GateArgs>("interop_gate", &gate, {host_arg("open", &GateArgs::open)}));
  });
  static Runtime rt = Runtime::open("cpu");
  return rt.device();
}

std::int64_t signal_value(std::uint64_t handle) { return agent::signal_load(hsa_signal_t{handle}); }

DLDataType u32() { return DLDataType{kDLUInt, 32, 1}; }

// A tensor over the caller's vector whose deleter counts its calls.
struct OwnedTensor {
  std::vector<std::uint32_t> data;
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  int* deleted;
  DLManagedTensor managed{};

  OwnedTensor(std::size_t n, int* deleted_count) : data(n, 0), shape{std::int64_t(n)}, deleted(deleted_count) {
    std::iota(data.begin(), data.end(), 0u);
    DLTensor& t = managed.dl_tensor;
    t.data = data.data();
    t.device = {kDLCPU, 0};
    t.ndim = 1;
    t.dtype = u32();
    t.shape = shape.data();
    managed.manager_ctx = this;
    managed.deleter = [](DLManagedTensor* self) { ++*static_cast<OwnedTensor*>(self->manager_ctx)->deleted; };
  }
};
}  // namespace

TEST(CpuInterop, AdoptedHostMemoryRunsInABatchAndIsNeverFreed) {
  std::vector<std::uint32_t> host(1000, 7);
  {
    Buffer b = device().adopt(host.data(), host.size() * 4);
    EXPECT_TRUE(b.adopted());
    EXPECT_EQ(b.device_ptr(), host.data());
    EXPECT_EQ(b.host_ptr(), host.data());
    EXPECT_EQ(b.size(), host.size() * 4);
    Batch batch;
    batch.exec(device().kernel("test_add"), Dim3{1000}, Dim3{64}, {b, 5u, 1000u});
    device().create_queue().run(batch, Options{});
  }  // the Buffer goes; the vector's memory stays the application's (ASan sees a wrong free)
  for (std::uint32_t v : host) ASSERT_EQ(v, 12u);
  host.assign(host.size(), 1);  // still writable: nothing freed it
}

TEST(CpuInterop, AdoptedMemoryIsABufferForCopies) {
  std::vector<std::uint32_t> app(256, 0), src(256), back(256, 0);
  std::iota(src.begin(), src.end(), 100u);
  const Buffer adopted = device().adopt(app.data(), app.size() * 4);
  const Buffer own = device().alloc(app.size() * 4);
  Batch batch;
  batch.copy_to_device(adopted, src.data(), 1024).copy(own, adopted, 1024).copy_to_host(back.data(), own, 1024);
  device().create_queue().run(batch, Options{});
  EXPECT_EQ(app, src);
  EXPECT_EQ(back, src);
  device().copy_to_host(back.data(), adopted, 8, 4);
  EXPECT_EQ(back[0], 101u);
}

TEST(CpuInterop, AdoptRefusesANullPointerAndAnEmptyRange) {
  std::uint32_t x = 0;
  EXPECT_NE(test::error_text([&] { device().adopt(nullptr, 4); }).find("a null pointer"), std::string::npos);
  EXPECT_NE(test::error_text([&] { device().adopt(&x, 0); }).find("a range of 0 bytes"), std::string::npos);
}

TEST(CpuInterop, ABatchWaitsOnTheDeviceForAnotherSubmissionsNativeHandle) {
  std::atomic<bool> open{false};
  std::vector<std::uint32_t> host(64, 1);
  const Buffer b = device().adopt(host.data(), host.size() * 4);
  Queue a = device().create_queue(), q = device().create_queue();
  Batch gated;
  gated.exec(device().kernel("interop_gate"), Dim3{1}, Dim3{1}, {&open});
  Submission first = a.submit(gated, Options{});
  const std::uint64_t handle = first.native_handle();
  ASSERT_NE(handle, 0u);
  EXPECT_EQ(first.native_handle(), handle) << "one handle per submission";
  EXPECT_NE(signal_value(handle), 0) << "the gate is closed: the submission cannot have completed";

  Batch after;
  after.wait_native(handle).exec(device().kernel("test_add"), Dim3{64}, Dim3{64}, {b, 1u, 64u});
  const Stats before = device().stats();
  Submission second = q.submit(after, Options{});
  EXPECT_EQ((device().stats() - before).device_waits, 1u);
  EXPECT_EQ((device().stats() - before).host_waits, 0u);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(host[0], 1u) << "the batch ran before the submission it waits for";
  open.store(true, std::memory_order_release);
  second.wait();
  first.wait();
  EXPECT_EQ(host[0], 2u);
  EXPECT_EQ(signal_value(handle), 0) << "the handle reads 0 once its submission completed";
}

TEST(CpuInterop, AHandleStaysValidWhileItsSubmissionLives) {
  // Waited for, then another submission on the queue: the handle still reads 0 (its signal was
  // not given to the next submission while this Submission lives).
  test::Timeline t;
  Batch one;
  one.exec(device().kernel("test_record"), Dim3{1}, Dim3{1}, {&t, 0u, 0u});
  Queue q = device().create_queue();
  Submission s = q.submit(one, Options{});
  const std::uint64_t handle = s.native_handle();
  s.wait();
  std::atomic<bool> open{false};
  Batch gated;
  gated.exec(device().kernel("interop_gate"), Dim3{1}, Dim3{1}, {&open});
  Submission later = q.submit(gated, Options{});
  EXPECT_EQ(signal_value(handle), 0);
  open.store(true);
  later.wait();
}

TEST(CpuInterop, ACompletedSubmissionsHandleReadsZero) {
  // The baseline waits on the host after each command: nothing is left in flight, yet the
  // handle must still be a signal at 0 that a batch can wait for.
  test::Timeline t;
  Batch one;
  one.exec(device().kernel("test_record"), Dim3{1}, Dim3{1}, {&t, 0u, 0u});
  Queue q = device().create_queue();
  Submission s = q.submit(one, Options::none());
  s.wait();
  const std::uint64_t handle = s.native_handle();
  EXPECT_EQ(signal_value(handle), 0);
  Batch after;
  after.wait_native(handle).exec(device().kernel("test_record"), Dim3{1}, Dim3{1}, {&t, 1u, 0u});
  q.run(after, Options{});
  EXPECT_GT(t.first_start[1].load(), t.last_end[0].load());
}

TEST(CpuInterop, AHandleThatIsNoLiveSubmissionsIsRefusedByName) {
  std::uint64_t gone = 0;
  {
    Batch one;
    test::Timeline t;
    one.exec(device().kernel("test_record"), Dim3{1}, Dim3{1}, {&t, 0u, 0u});
    Submission s = device().create_queue().submit(one, Options{});
    gone = s.native_handle();
    s.wait();
  }
  test::Timeline t;
  for (std::uint64_t handle : {gone, std::uint64_t(0x1234)}) {
    Batch b;
    b.wait_native(handle).exec(device().kernel("test_record"), Dim3{1}, Dim3{1}, {&t, 0u, 0u});
    Queue q = device().create_queue();
    const std::string text = test::error_text([&] { (void)q.submit(b, Options{}); });
    EXPECT_NE(text.find("is not the native handle of a live submission"), std::string::npos) << text;
    EXPECT_EQ(q.submissions(), 0u) << "a refused submit counts nothing";
  }
  EXPECT_NE(test::error_text([] { Batch().wait_native(0); }).find("a native handle of 0"), std::string::npos);
  EXPECT_NE(test::error_text([] { Submission().native_handle(); }).find("the Submission is empty"), std::string::npos);
}

TEST(CpuInterop, NativeHandlesOutSayThereIsNoDriverUnderneath) {
  const NativeDevice n = device().native();
  EXPECT_EQ(n.backend, "cpu");
  EXPECT_EQ(n.device, 0u);
  EXPECT_EQ(n.context, 0u);
  EXPECT_EQ(n.device_pool, 0u);
  EXPECT_EQ(n.ordinal, 0u);
  const NativeQueue q = device().create_queue().native();
  EXPECT_EQ(q.backend, "cpu");
  EXPECT_EQ(q.queue, 0u);
  EXPECT_NE(test::error_text([] { Queue().native(); }).find("the Queue is empty"), std::string::npos);
}

TEST(CpuInterop, ABufferGoesOutAsADLPackTensorThatOwnsIt) {
  Buffer b = device().alloc(8 * 8 * 4);
  void* const ptr = b.device_ptr();
  DLManagedTensor* t = to_dlpack(std::move(b), {8, 8}, DLDataType{kDLFloat, 32, 1});
  EXPECT_FALSE(b.device_ptr()) << "the Buffer moved into the tensor";
  EXPECT_EQ(t->dl_tensor.data, ptr);
  EXPECT_EQ(t->dl_tensor.device.device_type, kDLCPU);
  EXPECT_EQ(t->dl_tensor.device.device_id, 0);
  ASSERT_EQ(t->dl_tensor.ndim, 2);
  EXPECT_EQ(t->dl_tensor.shape[0], 8);
  EXPECT_EQ(t->dl_tensor.shape[1], 8);
  EXPECT_EQ(t->dl_tensor.strides, nullptr);
  EXPECT_EQ(t->dl_tensor.byte_offset, 0u);
  t->deleter(t);  // frees the Buffer (LSan reports it otherwise)
}

TEST(CpuInterop, AnExportRefusesAShapeLargerThanTheBufferAndKeepsIt) {
  Buffer b = device().alloc(64);
  const std::string text = test::error_text([&] { to_dlpack(std::move(b), {17}, u32()); });
  EXPECT_NE(text.find("larger than the Buffer of 64 bytes"), std::string::npos) << text;
  EXPECT_TRUE(b.device_ptr()) << "a refused export leaves the Buffer to the caller";
  EXPECT_NE(test::error_text([&] { to_dlpack(std::move(b), {4}, DLDataType{kDLUInt, 4, 1}); }).find("whole number of bytes"),
            std::string::npos);
  EXPECT_NE(test::error_text([&] { to_dlpack(std::move(b), {-1}, u32()); }).find("extent -1"), std::string::npos);
}

TEST(CpuInterop, ADLPackTensorIsAdoptedAndItsDeleterRunsWithTheBuffer) {
  int deleted = 0;
  OwnedTensor tensor(100, &deleted);
  {
    const Buffer b = from_dlpack(device(), &tensor.managed);
    EXPECT_TRUE(b.adopted());
    EXPECT_EQ(b.device_ptr(), tensor.data.data());
    EXPECT_EQ(b.size(), 400u);
    Batch batch;
    batch.exec(device().kernel("test_add"), Dim3{100}, Dim3{32}, {b, 10u, 100u});
    device().create_queue().run(batch, Options{});
    EXPECT_EQ(deleted, 0);
  }
  EXPECT_EQ(deleted, 1) << "the Buffer took the tensor: its deleter runs when the Buffer goes";
  EXPECT_EQ(tensor.data[99], 109u);
}

TEST(CpuInterop, AnExportedTensorComesBackAsABuffer) {
  Buffer own = device().alloc(16 * 4);
  const std::uint32_t ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  device().copy_to_device(own, ones, sizeof ones);
  DLManagedTensor* t = to_dlpack(std::move(own), {4, 4}, u32());
  const Buffer back = from_dlpack(device(), t);  // owns t, which owns the allocation
  EXPECT_EQ(back.size(), 64u);
  EXPECT_EQ(back.host_as<std::uint32_t>()[15], 1u);
}

TEST(CpuInterop, ATensorTheBufferCannotDescribeIsRefusedAndLeftToTheCaller) {
  int deleted = 0;
  OwnedTensor tensor(64, &deleted);
  DLTensor& t = tensor.managed.dl_tensor;
  auto refused = [&](const char* expected) {
    const std::string text = test::error_text([&] { from_dlpack(device(), &tensor.managed); });
    EXPECT_NE(text.find(expected), std::string::npos) << text;
  };
  t.device = {kDLCUDA, 0};
  refused("a tensor on kDLCUDA cannot be adopted by a cpu device");
  t.device = {kDLROCM, 0};
  refused("a tensor on kDLROCM cannot be adopted");
  t.device = {kDLCPU, 0};
  // 8 x 8 viewed column-major: not one compact row-major range.
  tensor.shape = {8, 8};
  tensor.strides = {1, 8};
  t.shape = tensor.shape.data();
  t.ndim = 2;
  t.strides = tensor.strides.data();
  refused("stride 8 of dimension 1 where a compact row-major tensor has 1");
  tensor.strides = {8, 1};  // compact after all: accepted
  EXPECT_EQ(from_dlpack(device(), &tensor.managed).size(), 256u);
  EXPECT_EQ(deleted, 1);
  t.strides = nullptr;
  t.dtype = DLDataType{kDLInt, 4, 1};
  refused("whole number of bytes");
  t.dtype = u32();
  tensor.shape = {8, 0};
  refused("a tensor of no elements");
  EXPECT_EQ(deleted, 1) << "a refused tensor stays the caller's: its deleter did not run";
  EXPECT_NE(test::error_text([] { from_dlpack(device(), nullptr); }).find("a null DLManagedTensor"), std::string::npos);
}
