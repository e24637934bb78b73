// The host side of the AMD device libraries' hostcall (ROCm 5's ockl): the buffer a kernel finds
// through its hidden_hostcall_buffer argument, and a listener thread serving what the waves ask
// through it: printf (service 2) and device memory for malloc and free (service 3). The layout and
// the protocol are the device library's: a pool of packets (a header and 64 lanes x 8 qwords each)
// on two lock-free stacks of tagged indices, a doorbell signal the device adds 1 to after pushing
// a packet on the ready stack, a ready bit the host clears once it wrote the answer.
#pragma once

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#include <cstdint>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "backends/rocr/hsa_api.hpp"

namespace hsad::rocr {

class HostcallService {
 public:
  // `packets`: at least the waves that may ask at once (the device library has no empty check);
  // `fine` holds the buffer (both sides reach it coherently), `device` what malloc asks for.
  HostcallService(const Api& api, hsa_agent_t agent, hsa_amd_memory_pool_t fine, hsa_amd_memory_pool_t device,
                  std::uint32_t packets);
  ~HostcallService();  // stops the listener once it served what was asked; frees what malloc left
  HostcallService(const HostcallService&) = delete;
  HostcallService& operator=(const HostcallService&) = delete;

  std::uint64_t buffer() const { return reinterpret_cast<std::uint64_t>(buffer_); }

  // printf's text from one finished message: [control word, format string, arguments], each a
  // qword, strings packed 8 bytes a qword (exposed for the unit tests).
  static std::string format_printf(const std::vector<std::uint64_t>& message);

 private:
  struct Buffer;
  void listen();
  void serve(std::uint64_t ready);
  void handle(std::uint32_t service, std::uint64_t* slot);
  void printf_message(std::uint64_t* slot);
  void device_memory(std::uint64_t* slot);

  const Api& api_;
  hsa_agent_t agent_;
  hsa_amd_memory_pool_t device_pool_;
  Buffer* buffer_ = nullptr;
  void* memory_ = nullptr;  // the buffer, its headers and payloads, in one allocation
  hsa_signal_t doorbell_{0};
  std::thread listener_;
  std::map<std::uint64_t, std::vector<std::uint64_t>> messages_;  // listener thread only
  std::uint64_t next_message_ = 1;
  std::set<void*> allocated_;  // what device malloc was given and has not freed
};

}  // namespace hsad::rocr
