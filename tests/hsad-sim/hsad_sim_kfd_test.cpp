// hsad-sim's door at the kernel's interface, spoken to as the thunk speaks to KFD (raw ioctls on
// /dev/kfd, which the door answers): what the simulated GPUs then reach, asked through the
// door's own query (hsad_sim_memory_at). Run under hsad-sim.
#include <gtest/gtest.h>

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/kfd_ioctl.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

namespace {

struct Reach {
  std::uint64_t base = 0, size = 0, node = 0;
};

// The allocation the simulated GPUs find at `address`; none where they reach nothing.
bool reach(std::uint64_t address, Reach* r) {
  using Fn = int (*)(std::uint64_t, std::uint64_t*);
  static const auto fn = reinterpret_cast<Fn>(dlsym(RTLD_DEFAULT, "hsad_sim_memory_at"));
  std::uint64_t out[3] = {0, 0, 0};
  if (!fn || !fn(address, out)) return false;
  *r = Reach{out[0], out[1], out[2]};
  return true;
}

// User memory unmapped behind the door's back, as glibc's free unmaps a large block (the raw
// system call), and its addresses reserved again as the thunk reserves them for a buffer object.
bool unmap_unseen_and_reserve(std::uint64_t va, std::uint64_t bytes) {
  if (syscall(SYS_munmap, va, bytes) != 0) return false;
  const int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE;
  return syscall(SYS_mmap, va, bytes, PROT_NONE, flags, -1, 0) == long(va);
}

class Kfd {
 public:
  Kfd() : fd_(open("/dev/kfd", O_RDWR | O_CLOEXEC)) {
    std::ifstream id("/sys/devices/virtual/kfd/kfd/topology/nodes/1/gpu_id");
    id >> gpu_id_;
  }
  ~Kfd() {
    if (fd_ >= 0) close(fd_);
  }
  Kfd(const Kfd&) = delete;
  Kfd& operator=(const Kfd&) = delete;
  bool ready() const { return fd_ >= 0 && gpu_id_ != 0; }

  // SVM: the GPU may reach [start, start + bytes) of this process's memory, at its own address.
  int grant(std::uint64_t start, std::uint64_t bytes) const {
    std::vector<std::uint8_t> raw(sizeof(kfd_ioctl_svm_args) + sizeof(kfd_ioctl_svm_attribute));
    auto* a = reinterpret_cast<kfd_ioctl_svm_args*>(raw.data());
    a->start_addr = start;
    a->size = bytes;
    a->op = KFD_IOCTL_SVM_OP_SET_ATTR;
    a->nattr = 1;
    a->attrs[0].type = KFD_IOCTL_SVM_ATTR_ACCESS;
    a->attrs[0].value = gpu_id_;
    return ioctl(fd_, AMDKFD_IOC_SVM, a);
  }
  // A buffer object of device memory at `va` (the thunk has reserved the addresses); its handle.
  std::uint64_t alloc_vram(std::uint64_t va, std::uint64_t bytes) const {
    kfd_ioctl_alloc_memory_of_gpu_args a{};
    a.va_addr = va;
    a.size = bytes;
    a.gpu_id = gpu_id_;
    a.flags = KFD_IOC_ALLOC_MEM_FLAGS_VRAM | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
    return ioctl(fd_, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a) == 0 ? a.handle : 0;
  }
  // User memory at its own address as a USERPTR buffer object (ROCm 6's thunk registers so).
  std::uint64_t register_user(std::uint64_t va, std::uint64_t bytes) const {
    kfd_ioctl_alloc_memory_of_gpu_args a{};
    a.va_addr = va;
    a.size = bytes;
    a.mmap_offset = va;
    a.gpu_id = gpu_id_;
    a.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | KFD_IOC_ALLOC_MEM_FLAGS_WRITABLE;
    return ioctl(fd_, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &a) == 0 ? a.handle : 0;
  }
  int free(std::uint64_t handle) const {
    kfd_ioctl_free_memory_of_gpu_args a{};
    a.handle = handle;
    return ioctl(fd_, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &a);
  }

 private:
  int fd_ = -1;
  std::uint32_t gpu_id_ = 0;
};

}  // namespace

// ROCm 6's ROCr registers user memory it copies from through SVM, and the registration lasts until
// the memory is unmapped (KFD's MMU notifier drops it then). glibc's free unmaps a large block
// without calling munmap, where the door would see it, as the raw system call below does. The
// thunk may then place a buffer object there: the GPU must find that object, not the dead
// registration (which once made a code object loaded there a "ROCr blit": the sid stage's
// intermittent BitonicSort failure).
TEST(HsadSimKfd, ABufferObjectWhereRegisteredMemoryWasFreedIsWhatTheGpuReaches) {
  const Kfd kfd;
  ASSERT_TRUE(kfd.ready()) << "run under hsad-sim: /dev/kfd and node 1's gpu_id";
  Reach r;
  const std::uint64_t page = 4096, bytes = 16 * page;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const auto va = reinterpret_cast<std::uint64_t>(p);
  // Registered from the fifth page on: a later base than the object's, which the lookup prefers.
  ASSERT_EQ(kfd.grant(va + 4 * page, 8 * page), 0);
  ASSERT_TRUE(reach(va + 4 * page, &r)) << "hsad_sim_memory_at: not under hsad-sim?";
  EXPECT_EQ(r.base, va + 4 * page);
  EXPECT_EQ(r.node, 0u);

  ASSERT_TRUE(unmap_unseen_and_reserve(va, bytes));
  const std::uint64_t handle = kfd.alloc_vram(va, bytes);
  ASSERT_NE(handle, 0u);
  for (std::uint64_t at : {va, va + 4 * page, va + 15 * page}) {
    ASSERT_TRUE(reach(at, &r)) << std::hex << at;
    EXPECT_EQ(r.base, va) << std::hex << at;
    EXPECT_EQ(r.size, bytes);
    EXPECT_EQ(r.node, 1u);
  }
  EXPECT_EQ(kfd.free(handle), 0);
  EXPECT_FALSE(reach(va + 4 * page, &r)) << "freed, and its registration gone with the memory";
  munmap(p, bytes);
}

// The same with user memory registered as a USERPTR object and unregistered only after the buffer
// object took its addresses (a registration an application, or a library's cache of them, undoes
// after freeing the memory): the GPU reaches the object, and the late unregistration leaves it be.
TEST(HsadSimKfd, ABufferObjectWhereAUserptrObjectsMemoryWasFreedOutlivesItsUnregistration) {
  const Kfd kfd;
  ASSERT_TRUE(kfd.ready()) << "run under hsad-sim: /dev/kfd and node 1's gpu_id";
  Reach r;
  const std::uint64_t page = 4096, bytes = 16 * page;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const auto va = reinterpret_cast<std::uint64_t>(p);
  const std::uint64_t user = kfd.register_user(va + 4 * page, 8 * page);
  ASSERT_NE(user, 0u);
  ASSERT_TRUE(reach(va + 4 * page, &r));
  EXPECT_EQ(r.base, va + 4 * page);

  ASSERT_TRUE(unmap_unseen_and_reserve(va, bytes));
  const std::uint64_t handle = kfd.alloc_vram(va, bytes);
  ASSERT_NE(handle, 0u);
  ASSERT_TRUE(reach(va + 4 * page, &r));
  EXPECT_EQ(r.base, va);
  EXPECT_EQ(r.node, 1u);
  EXPECT_EQ(kfd.free(user), 0);  // the late unregistration
  ASSERT_TRUE(reach(va + 4 * page, &r)) << "the object is still there";
  EXPECT_EQ(r.base, va);
  EXPECT_EQ(r.size, bytes);
  EXPECT_EQ(kfd.free(handle), 0);
  munmap(p, bytes);

  // Again with the object exactly where the user memory was (the same base and size).
  p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  const auto at = reinterpret_cast<std::uint64_t>(p);
  const std::uint64_t same = kfd.register_user(at, bytes);
  ASSERT_NE(same, 0u);
  ASSERT_TRUE(unmap_unseen_and_reserve(at, bytes));
  const std::uint64_t object = kfd.alloc_vram(at, bytes);
  ASSERT_NE(object, 0u);
  EXPECT_EQ(kfd.free(same), 0);
  ASSERT_TRUE(reach(at, &r)) << "the late unregistration of the same addresses took the object's range";
  EXPECT_EQ(r.node, 1u);
  EXPECT_EQ(kfd.free(object), 0);
  munmap(p, bytes);
}
