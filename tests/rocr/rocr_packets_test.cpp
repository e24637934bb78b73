// "The same packet-building code as the CPU agent, byte for byte": the 120-dispatch bitonic sort
// goes through the shared AQL submit path twice, once with the cpu agent's host kernel and once
// with the gfx90a code object's kernel (as the rocr backend loads it), into a ring that records
// every packet and its kernarg bytes. Under every flag the two recordings must be identical
// except for what names the kernel (kernel_object) and where memory lives.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <mutex>

#include "aql_packets/hidden_args.hpp"
#include "backends/aql/aql_queue.hpp"
#include "agent/signal_ops.hpp"
#include "hsad/hsad.hpp"

using namespace hsad;

namespace {

struct Recorded {
  std::uint16_t header = 0, setup = 0;
  std::uint16_t workgroup[3] = {};
  std::uint32_t grid[3] = {};
  std::uint32_t private_segment = 0, group_segment = 0;
  bool has_signal = false;
  std::vector<unsigned char> kernarg;  // the explicit arguments' bytes

  bool operator==(const Recorded& o) const {
    return header == o.header && setup == o.setup && std::memcmp(workgroup, o.workgroup, sizeof workgroup) == 0 &&
           std::memcmp(grid, o.grid, sizeof grid) == 0 && private_segment == o.private_segment &&
           group_segment == o.group_segment && has_signal == o.has_signal && kernarg == o.kernarg;
  }
};

// A ring whose "processor" runs at the doorbell: it records each packet, then completes it.
class RecordingRing : public detail::AqlRing {
 public:
  explicit RecordingRing(std::uint32_t explicit_kernarg_bytes) : explicit_bytes_(explicit_kernarg_bytes) {
    base_ = std::aligned_alloc(64, kSize * 64);
    std::memset(base_, 0, kSize * 64);
    for (std::uint32_t i = 0; i < kSize; ++i) invalidate(i);
  }
  ~RecordingRing() override { std::free(base_); }
  std::uint32_t size() const override { return kSize; }
  void* base() const override { return base_; }
  std::uint64_t add_write_index(std::uint64_t n) override { return write_.fetch_add(n); }
  std::uint64_t load_read_index() const override { return read_.load(); }
  void ring_doorbell(std::uint64_t index) override {
    std::lock_guard<std::mutex> lock(mutex_);
    for (std::uint64_t i = read_.load(); i <= index; ++i) consume(i);
  }
  void throw_if_failed() const override {}
  bool failed() const override { return false; }
  std::string error() const override { return {}; }
  void enable_profiling() override {}
  std::uint64_t failed_packet() const override { return UINT64_MAX; }
  bool shut_down(const std::string&) override { return true; }

  std::vector<Recorded> records;

 private:
  static constexpr std::uint32_t kSize = 64;
  void invalidate(std::uint64_t i) {
    *reinterpret_cast<std::uint16_t*>(static_cast<unsigned char*>(base_) + (i % kSize) * 64) =
        HSA_PACKET_TYPE_INVALID << HSA_PACKET_HEADER_TYPE;
  }
  void consume(std::uint64_t i) {
    auto* p = reinterpret_cast<hsa_kernel_dispatch_packet_t*>(static_cast<unsigned char*>(base_) + (i % kSize) * 64);
    ASSERT_NE(aql::load_header_acquire(p) & 0xff, HSA_PACKET_TYPE_INVALID) << "doorbell rung past a published packet";
    Recorded r;
    r.header = p->header;
    r.setup = p->setup;
    if ((p->header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH) {
      r.workgroup[0] = p->workgroup_size_x, r.workgroup[1] = p->workgroup_size_y, r.workgroup[2] = p->workgroup_size_z;
      r.grid[0] = p->grid_size_x, r.grid[1] = p->grid_size_y, r.grid[2] = p->grid_size_z;
      r.private_segment = p->private_segment_size;
      r.group_segment = p->group_segment_size;
      const auto* k = static_cast<const unsigned char*>(p->kernarg_address);
      r.kernarg.assign(k, k + explicit_bytes_);
    }
    const hsa_signal_t s = (p->header & 0xff) == HSA_PACKET_TYPE_KERNEL_DISPATCH
                               ? p->completion_signal
                               : reinterpret_cast<hsa_barrier_and_packet_t*>(p)->completion_signal;
    r.has_signal = s.handle != 0;
    records.push_back(std::move(r));
    invalidate(i);
    read_.store(i + 1);
    if (s.handle) agent::signal_subtract(s, 1);
  }

  void* base_;
  std::uint32_t explicit_bytes_;
  std::atomic<std::uint64_t> write_{0}, read_{0};
  std::mutex mutex_;
};

class RecordingAgent : public detail::AqlAgent {
 public:
  hsa_signal_t create_signal(std::int64_t initial) override { return agent::create_soft_signal(initial); }
  void destroy_signal(hsa_signal_t s) noexcept override { agent::destroy_soft_signal(s); }
  void store_signal(hsa_signal_t s, std::int64_t v) override { agent::signal_store(s, v); }
  std::int64_t load_signal(hsa_signal_t s) override { return agent::signal_load(s); }
  bool wait_signal_zero(hsa_signal_t s, detail::Clock::time_point deadline, const std::function<void()>&) override {
    return agent::signal_wait_zero(s, deadline, [] {});
  }
  void* alloc_kernarg(std::size_t bytes) override { return std::aligned_alloc(64, (bytes + 63) & ~std::size_t(63)); }
  void free_kernarg(void* p) noexcept override { std::free(p); }
  const char* backend_name() const override { return "recording"; }
  bool copies_in_ring() const override { return true; }
  void async_copy(const detail::Copy&, const hsa_signal_t*, std::uint32_t, hsa_signal_t, std::vector<void*>&) override {}
  void unlock_host(void*) noexcept override {}
  void command_times(hsa_signal_t, bool, std::uint64_t*, std::uint64_t*) override {}
};

// The gfx90a kernel as RocrDevice::load_kernel makes it, without a GPU to load it on.
Kernel code_object_kernel(const std::string& name) {
  std::ifstream in(HSAD_AMD_BUNDLE, std::ios::binary);
  const std::string bundle((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  for (const CodeObjectKernel& k : read_code_object(select_code_object(bundle, "gfx90a")).kernels) {
    if (k.info.name != name) continue;
    auto impl = std::make_shared<detail::KernelImpl>();
    impl->info = k.info;
    impl->kernel_object = k.descriptor_offset;
    impl->hidden_args = aql::plan_hidden_args(k.info);
    return Kernel(impl);
  }
  return Kernel();
}

std::vector<Recorded> record(const Device& owner, const Kernel& kernel, const Options& o) {
  RecordingAgent agent;
  auto ring = std::make_unique<RecordingRing>(24);  // bitonic_step: pointer + four u32
  RecordingRing& rec = *ring;
  auto queue = std::make_shared<detail::AqlQueue>(owner.impl().shared_from_this(), agent, std::move(ring),
                                                  detail::AqlQueue::Config{});
  Batch batch;
  const std::uint64_t keys = 0x7f0000001000;  // never dereferenced: the ring only records
  const std::uint32_t n = 1u << 15;
  for (std::uint32_t stage = 0; stage < 15; ++stage) {
    for (std::uint32_t pass = 0; pass <= stage; ++pass) batch.exec(kernel, Dim3{n / 2}, Dim3{256}, {Arg::unchecked(reinterpret_cast<const void*>(keys)), stage, pass, 1u, n});
  }
  EXPECT_EQ(batch.size(), 120u);
  const auto deadline = detail::Clock::now() + std::chrono::seconds(10);
  queue->submit(batch, o, deadline, {})->wait(deadline);  // the batch has no waits to resolve
  return rec.records;
}

}  // namespace

TEST(RocrPackets, EqualTheCpuAgentsUnderEveryFlag) {
  const Runtime rt = Runtime::open("cpu");
  const Device& cpu_device = rt.device();
  const Kernel host = cpu_device.kernel("bitonic_step");
  const Kernel gfx90a = code_object_kernel("bitonic_step");
  ASSERT_TRUE(gfx90a);
  // Same explicit arguments at the same offsets (the host build's segment is its padded struct,
  // 24 bytes; code object v4's ends at the last argument, 20; v5 and later add hidden arguments).
  ASSERT_EQ(host.info().args.size(), gfx90a.info().explicit_arg_count());
  for (std::size_t i = 0; i < host.info().args.size(); ++i) {
    EXPECT_EQ(host.info().args[i].offset, gfx90a.info().args[i].offset);
    EXPECT_EQ(host.info().args[i].size, gfx90a.info().args[i].size);
  }
  for (const char* flags : {"none", "signal", "signal,kernarg", "signal,kernarg,nosync", "all", "all,replay"}) {
    SCOPED_TRACE(flags);
    const Options o = Options::parse(flags);
    const std::vector<Recorded> a = record(cpu_device, host, o);
    const std::vector<Recorded> b = record(cpu_device, gfx90a, o);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_GE(a.size(), 120u);
    for (std::size_t i = 0; i < a.size(); ++i) EXPECT_TRUE(a[i] == b[i]) << "packet " << i << " differs";
  }
}

TEST(RocrPackets, CarryTheCodeObjectsSegmentSizes) {
  const Runtime rt = Runtime::open("cpu");
  const Kernel gfx90a = code_object_kernel("bitonic_step");
  const std::vector<Recorded> r = record(rt.device(), gfx90a, Options::parse("all"));
  ASSERT_FALSE(r.empty());
  EXPECT_EQ(r[0].private_segment, gfx90a.info().private_segment_size);
  EXPECT_EQ(r[0].group_segment, gfx90a.info().group_segment_size);
  EXPECT_EQ(r[0].workgroup[0], 256u);
  EXPECT_EQ(r[0].grid[0], (1u << 15) / 2);
}
