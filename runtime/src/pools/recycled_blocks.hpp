// Recycled blocks: the objects a submit creates and a later submit frees (an AQL queue's
// AqlSubmission, and an AqlCompletion where one is made: a replayed submit makes none, it has a
// submission record; a cuda queue's CudaSubmission) come from a short per-thread list of blocks of their size instead of the
// heap. malloc and free of the two were about a sixth of a replayed one-dispatch submit's
// instructions (docs/results.md, issue 41); on cuda, after a large graph launch, malloc's code and
// its per-thread cache are pages a replayed submit would touch cold (issue 60).
//
// Per thread, so no lock: a block freed on another thread joins that thread's list. Bounded: past
// kKept blocks a thread's frees go to the heap, and a thread's blocks go back to it when the
// thread ends.
#pragma once

#include <cstddef>
#include <new>

namespace hsad::detail {

// Under ASan and TSan the submission objects come from the heap, so that a use after free of one
// is still caught (a recycled block would hide it); RecycledBlocks itself works the same.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kRecycleSubmissions = false;
#else
inline constexpr bool kRecycleSubmissions = true;
#endif

template <std::size_t Bytes>
class RecycledBlocks {
 public:
  static_assert(Bytes >= sizeof(void*));

  static void* take() {
    State& s = state_;
    if (void* p = s.head) {
      s.head = *static_cast<void**>(p);
      --s.count;
      return p;
    }
    return ::operator new(Bytes);
  }

  static void give(void* p) noexcept {
    if (!p) return;
    State& s = state_;
    if (s.gone || s.count >= kKept) return ::operator delete(p);
    if (!s.drained_at_exit) drain_at_exit();
    *static_cast<void**>(p) = s.head;
    s.head = p;
    ++s.count;
  }

 private:
  static constexpr std::size_t kKept = 64;
  // Plain data, zero at the thread's start: no guard, no destructor, readable to the thread's end.
  struct State {
    void* head;
    std::size_t count;
    bool drained_at_exit;  // a Drain is registered for this thread
    bool gone;             // it ran: later frees go to the heap
  };
  struct Drain {
    ~Drain() {
      State& s = state_;
      s.gone = true;
      while (void* p = s.head) {
        s.head = *static_cast<void**>(p);
        ::operator delete(p);
      }
      s.count = 0;
    }
  };
  static void drain_at_exit() noexcept {
    thread_local Drain drain;  // its destructor runs when the thread ends
    (void)drain;
    state_.drained_at_exit = true;
  }
  // initial-exec: one load from the thread pointer instead of a __tls_get_addr call per access
  // (the library is position-independent); a few bytes of static TLS, which dlopen allows.
  __attribute__((tls_model("initial-exec"))) static inline thread_local State state_{};
};

// Class-specific operator new and delete through RecycledBlocks, for a class made once per submit:
// `class X : public Base, public Recycled<X>`. Other sizes (a class derived from X) use the heap.
template <class T>
struct Recycled {
  static void* operator new(std::size_t bytes) {
    if (kRecycleSubmissions && bytes == sizeof(T)) return RecycledBlocks<sizeof(T)>::take();
    return ::operator new(bytes);
  }
  static void operator delete(void* p, std::size_t bytes) noexcept {
    if (kRecycleSubmissions && bytes == sizeof(T)) RecycledBlocks<sizeof(T)>::give(p);
    else ::operator delete(p);
  }
};

// A std::allocator for std::allocate_shared (the control block and the object in one block).
template <class T>
struct RecycledAllocator {
  using value_type = T;
  RecycledAllocator() = default;
  template <class U>
  RecycledAllocator(const RecycledAllocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);
    if (n != 1 || !kRecycleSubmissions) return static_cast<T*>(::operator new(n * sizeof(T)));
    return static_cast<T*>(RecycledBlocks<sizeof(T)>::take());
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (n != 1 || !kRecycleSubmissions) return ::operator delete(p);
    RecycledBlocks<sizeof(T)>::give(p);
  }
  template <class U>
  bool operator==(const RecycledAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const RecycledAllocator<U>&) const noexcept { return false; }
};

}  // namespace hsad::detail
