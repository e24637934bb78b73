// A HIP program that uses hsadispatch beside its own HIP work, run under hsad-sim (one ROCr in
// the process for both): its hipMalloc'd memory adopted and used by a batch, a batch held on the
// device by the application's own hsa_signal until the application sets it to 0, the application
// waiting through HSA on a submission's native signal, native handles that ROCr recognises, and
// DLPack tensors of kDLROCM memory. With two GPUs: the other GPU's memory refused until peer
// access allows it. Every result checked exactly.
//   interop_test MODULE.hsaco    (the tests' module: its module_add_one kernel)
#include <hip/hip_runtime.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "hip_checks.hpp"
#include "hsad/dlpack.hpp"
#include "hsad/hsad.hpp"

namespace {
using hip_checks::check;

constexpr unsigned kN = 1000;

std::string error_text(const std::function<void()>& f) {
  try {
    f();
  } catch (const hsad::Error& e) {
    return e.what();
  }
  return "no error";
}

bool says(const std::string& text, const char* expected) { return text.find(expected) != std::string::npos; }

std::vector<unsigned> read(const unsigned* d) {
  std::vector<unsigned> v(kN);
  HIP(hipMemcpy(v.data(), d, kN * 4, hipMemcpyDeviceToHost));
  return v;
}

bool all(const std::vector<unsigned>& v, unsigned expected) {
  for (unsigned x : v) {
    if (x != expected) return false;
  }
  return true;
}

struct Setup {
  hsad::Runtime rt;
  hsad::Device device;
  hsad::Kernel add_one;
};

void adopted_memory(Setup& s) {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  std::vector<unsigned> ones(kN, 1);
  HIP(hipMemcpy(d, ones.data(), kN * 4, hipMemcpyHostToDevice));
  {
    hsad::Buffer b = s.device.adopt(d, kN * 4);
    check(b.adopted() && b.kind() == hsad::Memory::device && b.device_ptr() == d,
          "hipMalloc'd memory adopted as device memory");
    hsad::Batch batch;
    batch.exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN}).exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    s.device.create_queue().run(batch, hsad::Options{});
    check(all(read(d), 3), "a batch ran on the adopted memory: HIP reads 3 everywhere");
    // A sub-range inside the allocation is a Buffer too; one past its end is refused.
    check(s.device.adopt(d + 10, 40).size() == 40, "a range inside the allocation is adopted");
    // Allocations are rounded up (to pages, or a pool's granule): far past the end is past it.
    const std::string past = error_text([&] { s.device.adopt(d + 10, std::size_t(64) << 20); });
    check(says(past, "overrun the allocation at"), "a range past the allocation is refused: " + past);
  }  // the Buffers go; the memory is still HIP's
  check(hipFree(d) == hipSuccess, "the application frees its memory after the Buffers went");

  std::vector<unsigned> pageable(kN);
  const std::string unknown = error_text([&] { s.device.adopt(pageable.data(), kN * 4); });
  check(says(unknown, "is not memory ROCr knows"), "pageable memory is refused: " + unknown);

  unsigned* pinned = nullptr;
  if (HIP(hipHostMalloc(&pinned, kN * 4))) {
    for (unsigned i = 0; i < kN; ++i) pinned[i] = i;
    hsad::Buffer p = s.device.adopt(pinned, kN * 4);
    check(p.kind() == hsad::Memory::pinned_host && p.host_ptr() == pinned, "hipHostMalloc'd memory adopted as pinned");
    hsad::Batch batch;
    batch.exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {p, kN});
    s.device.create_queue().run(batch, hsad::Options{});
    check(pinned[0] == 1 && pinned[kN - 1] == kN, "a batch ran on the adopted pinned memory");
    HIP(hipHostFree(pinned));
  }
}

void the_applications_signal_holds_a_batch(Setup& s) {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  HIP(hipMemset(d, 0, kN * 4));
  HIP(hipDeviceSynchronize());  // hipMemset returns before it ran (HIP 6): done before the library reads
  hsa_signal_t gate{};
  if (hsa_signal_create(1, 0, nullptr, &gate) != HSA_STATUS_SUCCESS) {
    check(false, "hsa_signal_create");
    return;
  }
  {
    const hsad::Buffer b = s.device.adopt(d, kN * 4);
    hsad::Batch batch;
    batch.wait_native(gate.handle).exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    hsad::Queue q = s.device.create_queue();
    const hsad::Stats before = s.device.stats();
    hsad::Submission sub = q.submit(batch, hsad::Options{});
    check((s.device.stats() - before).device_waits == 1 && (s.device.stats() - before).host_waits == 0,
          "the wait is on the device: one barrier-AND packet, no host wait");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    check(all(read(d), 0), "nothing ran while the application's signal was 1");
    hsa_signal_store_screlease(gate, 0);
    sub.wait();
    check(all(read(d), 1), "the batch ran once the application set its signal to 0");
  }
  hsa_signal_destroy(gate);
  HIP(hipFree(d));
}

void the_application_waits_for_a_submission(Setup& s) {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  HIP(hipMemset(d, 0, kN * 4));
  HIP(hipDeviceSynchronize());  // hipMemset returns before it ran (HIP 6): done before the library reads
  {
    const hsad::Buffer b = s.device.adopt(d, kN * 4);
    hsad::Batch batch;
    for (int i = 0; i < 5; ++i) batch.exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    hsad::Submission sub = s.device.create_queue().submit(batch, hsad::Options{});
    const hsa_signal_t done{sub.native_handle()};
    const hsa_signal_value_t v =
        hsa_signal_wait_scacquire(done, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    check(v == 0, "hsa_signal_wait_scacquire on the submission's native signal returns at 0");
    check(all(read(d), 5), "every dispatch had completed when the application's wait returned");
    sub.wait();
    check(hsa_signal_load_scacquire(done) == 0, "the handle still reads 0 after Submission::wait");
  }
  HIP(hipFree(d));
}

hsa_status_t find_gpus(hsa_agent_t agent, void* data) {
  hsa_device_type_t type;
  hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type);
  if (type == HSA_DEVICE_TYPE_GPU) static_cast<std::vector<std::uint64_t>*>(data)->push_back(agent.handle);
  return HSA_STATUS_SUCCESS;
}

void native_handles(Setup& s) {
  const hsad::NativeDevice n = s.device.native();
  std::vector<std::uint64_t> gpus;
  hsa_iterate_agents(find_gpus, &gpus);
  check(n.backend == "rocr" && !gpus.empty() && n.device == gpus[0] && n.ordinal == 0,
        "Device::native's agent is ROCr's first GPU agent");
  std::uint32_t segment = 0;
  hsa_amd_memory_pool_get_info(hsa_amd_memory_pool_t{n.device_pool}, HSA_AMD_MEMORY_POOL_INFO_SEGMENT, &segment);
  check(segment == HSA_AMD_SEGMENT_GLOBAL && n.host_pool && n.kernarg_pool && n.host_agent,
        "the memory pools are ROCr's (the device pool is a global segment)");
  hsad::Queue q = s.device.create_queue(256);
  const auto* hq = reinterpret_cast<const hsa_queue_t*>(q.native().queue);
  check(hq && hq->size == 256 && hq->type == HSA_QUEUE_TYPE_MULTI,
        "Queue::native is the hsa_queue_t, of the size asked for");
}

void dlpack(Setup& s) {
  unsigned* d = nullptr;
  if (!HIP(hipMalloc(&d, kN * 4))) return;
  HIP(hipMemset(d, 0, kN * 4));
  HIP(hipDeviceSynchronize());  // hipMemset returns before it ran (HIP 6): done before the library reads
  static int deleted = 0;
  DLManagedTensor t{};
  std::int64_t shape[] = {kN};
  t.dl_tensor.data = d;
  t.dl_tensor.device = {kDLROCM, 0};
  t.dl_tensor.ndim = 1;
  t.dl_tensor.dtype = {kDLUInt, 32, 1};
  t.dl_tensor.shape = shape;
  t.deleter = [](DLManagedTensor*) { ++deleted; };
  {
    hsad::Buffer b = hsad::from_dlpack(s.device, &t);
    hsad::Batch batch;
    batch.exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    s.device.create_queue().run(batch, hsad::Options{});
    check(all(read(d), 1) && deleted == 0, "a kDLROCM tensor adopted and used by a batch");
  }
  check(deleted == 1, "its deleter ran when the Buffer went");
  t.dl_tensor.device = {kDLCUDA, 0};
  const std::string cuda = error_text([&] { hsad::from_dlpack(s.device, &t); });
  check(says(cuda, "a tensor on kDLCUDA cannot be adopted by a rocr device") && deleted == 1,
        "a kDLCUDA tensor is refused and left to the caller: " + cuda);
  HIP(hipFree(d));

  DLManagedTensor* out = hsad::to_dlpack(s.device.alloc(64), {16}, {kDLFloat, 32, 1});
  check(out->dl_tensor.device.device_type == kDLROCM && out->dl_tensor.device.device_id == 0,
        "a Buffer goes out as a kDLROCM tensor of device 0");
  out->deleter(out);
}

void another_gpus_memory(Setup& s) {
  int count = 0;
  HIP(hipGetDeviceCount(&count));
  if (count < 2) return;
  unsigned* theirs = nullptr;
  HIP(hipSetDevice(1));
  HIP(hipMalloc(&theirs, kN * 4));
  const std::string refused = error_text([&] { s.device.adopt(theirs, kN * 4); });
  check(says(refused, "another GPU's memory"), "GPU 1's memory is refused on GPU 0: " + refused);
  HIP(hipSetDevice(0));
  HIP(hipDeviceEnablePeerAccess(1, 0));
  HIP(hipSetDevice(1));
  unsigned* shared = nullptr;
  HIP(hipMalloc(&shared, kN * 4));
  HIP(hipMemset(shared, 0, kN * 4));
  HIP(hipDeviceSynchronize());  // hipMemset returns before it ran (HIP 6): done before the library reads
  HIP(hipSetDevice(0));
  bool adopted = false;
  try {
    hsad::Buffer b = s.device.adopt(shared, kN * 4);
    hsad::Batch batch;
    batch.exec(s.add_one, hsad::Dim3{kN}, hsad::Dim3{256}, {b, kN});
    s.device.create_queue().run(batch, hsad::Options{});
    adopted = true;
  } catch (const hsad::Error& e) {
    check(false, std::string("after hipDeviceEnablePeerAccess: ") + e.what());
  }
  if (adopted) check(all(read(shared), 1), "after hipDeviceEnablePeerAccess GPU 1's memory is adopted and written by GPU 0");
  HIP(hipFree(theirs));
  HIP(hipFree(shared));
}
}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  if (argc != 2) {
    std::fprintf(stderr, "usage: interop_test MODULE.hsaco\n");
    return 2;
  }
  int count = 0;
  if (!HIP(hipGetDeviceCount(&count))) return hip_checks::finish("interop_test");  // HIP first: it initializes ROCr
  try {
    Setup s{hsad::Runtime::open("rocr"), {}, {}};
    s.device = s.rt.device();
    s.add_one = s.device.load_module(argv[1]).kernel("module_add_one");
    adopted_memory(s);
    the_applications_signal_holds_a_batch(s);
    the_application_waits_for_a_submission(s);
    native_handles(s);
    dlpack(s);
    another_gpus_memory(s);
  } catch (const std::exception& e) {
    check(false, std::string("unexpected: ") + e.what());
  }
  return hip_checks::finish("interop_test");
}
