// CudaCompletion: a submission's signal (a pooled event or a stream memory write), handed over to
// whoever waits for it on another stream, and given back when the last of them lets go.
#include "backends/cuda/cuda_submission.hpp"

#include <utility>

namespace hsad::cuda {

CudaCompletion::CudaCompletion(std::shared_ptr<CudaQueue> queue, CudaSignal signal, SignalPool::Handle pooled,
                               bool pending, std::string failed, std::uint64_t serial)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_(signal), pooled_(pooled),
      pending_(pending), failed_(std::move(failed)), serial_(serial) {}

CudaCompletion::CudaCompletion(std::shared_ptr<CudaQueue> queue, CUevent external)
    : CompletionImpl(queue->device()), queue_(std::move(queue)), signal_{external}, pooled_(0),
      pending_(true), external_(true) {}

CudaCompletion::~CudaCompletion() {
  if (native_) queue_->destroy_event(native_);
  if ((signal_.event || signal_.flag) && !external_) queue_->give_back(signal_, pooled_);
}

std::uint64_t CudaCompletion::native_handle() {
  CudaSignal signal;
  bool pending = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (signal_.event) return reinterpret_cast<std::uint64_t>(signal_.event);
    if (native_) return reinterpret_cast<std::uint64_t>(native_);
    if (!signal_.flag && !failed_.empty()) {
      throw Error(Errc::timeout, "cuda", "native_handle", "the submission was abandoned: " + failed_,
                  "no event can complete with it; wait for it again (Submission::wait)");
    }
    signal = signal_;
    pending = pending_ && signal_.flag;
  }
  // Made without this lock: native_event takes the queue's submit mutex, and a submit that holds
  // it may ask this completion whether it ended (memory parked behind it): the two orders deadlock.
  CUevent made = queue_->native_event(signal, pending, serial_);
  std::lock_guard<std::mutex> lock(mutex_);
  if (native_) {
    queue_->destroy_event(made);  // another thread's came first
  } else {
    native_ = made;
  }
  return reinterpret_cast<std::uint64_t>(native_);
}

std::pair<CudaSignal, SignalPool::Handle> CudaCompletion::take_signal(std::string why) {
  std::lock_guard<std::mutex> lock(mutex_);
  failed_ = std::move(why);
  auto taken = std::make_pair(std::exchange(signal_, CudaSignal{}), std::exchange(pooled_, 0));
  return taken;
}

bool CudaCompletion::wait_on(CUstream stream) const {
  if (!pending_) return false;  // completed before it was shared
  CudaSignal signal;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    signal = signal_;
  }
  const Driver& d = queue_->driver();
  if (signal.flag) {
    check(d.cuStreamWaitValue32(stream, signal.flag_device, signal.target, signal.wait_flags()),
          "cuStreamWaitValue32");
  } else if (signal.event) {
    check(d.cuStreamWaitEvent(stream, signal.event, 0), "cuStreamWaitEvent");
  } else {
    return false;
  }
  return true;
}

bool CudaCompletion::ended() const {
  CudaSignal signal;
  bool abandoned;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    signal = signal_;
    abandoned = !failed_.empty();
  }
  if (!signal.event && !signal.flag) return !abandoned || !pending_;  // abandoned: it still runs
  if (!pending_) return true;
  return queue_->reached(signal) || (!external_ && !queue_->error().empty());
}

std::string CudaCompletion::failure() const {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!failed_.empty()) return failed_;
  }
  return pending_ ? queue_->error() : std::string();
}

}  // namespace hsad::cuda
