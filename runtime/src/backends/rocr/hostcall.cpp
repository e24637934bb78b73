// HostcallService: the ockl hostcall buffer and its listener, printf and device memory.
#include "backends/rocr/hostcall.hpp"

#include <atomic>
#include <cstring>
#include <new>

#include "hsad/error.hpp"

namespace hsad::rocr {

namespace {
constexpr std::uint32_t kServicePrintf = 2;  // SERVICE_PRINTF (and SERVICE_FPRINTF)
constexpr std::uint32_t kServiceDevmem = 3;  // SERVICE_DEVMEM: malloc and free
constexpr std::int64_t kSignalDone = 0;      // the doorbell's value that stops the listener
constexpr std::int64_t kSignalInit = 1;

struct Header {
  std::uint64_t next;        // tagged index of the next packet on its stack
  std::uint64_t activemask;  // the lanes that asked
  std::uint32_t service;
  std::uint32_t control;     // bit 0: ready (set by the device, cleared by the host once answered)
};
static_assert(sizeof(Header) == 24);

struct Payload {
  std::uint64_t slots[64][8];
};

// A message's descriptor, the first qword of each lane's slot: begin and end flags, how many of
// the seven qwords after it carry data, the message's number.
bool begins(std::uint64_t d) { return (d & 1) != 0; }
bool ends(std::uint64_t d) { return (d & 2) != 0; }
unsigned length(std::uint64_t d) { return unsigned((d >> 5) & 7); }
std::uint64_t message_id(std::uint64_t d) { return d >> 8; }

// A C string packed into qwords from data[at]; `at` moves past the qwords it took.
std::string take_string(const std::vector<std::uint64_t>& data, std::size_t& at) {
  std::string s;
  while (at < data.size()) {
    const std::uint64_t q = data[at++];
    for (int b = 0; b < 8; ++b) {
      const char c = char((q >> (8 * b)) & 0xff);
      if (c == '\0') return s;
      s.push_back(c);
    }
  }
  return s;
}
}  // namespace

// The device library's buffer_t, field for field.
struct HostcallService::Buffer {
  Header* headers;
  Payload* payloads;
  hsa_signal_t doorbell;
  std::uint64_t free_stack;
  std::uint64_t ready_stack;
  std::uint64_t index_mask;
};

HostcallService::HostcallService(const Api& api, hsa_agent_t agent, hsa_amd_memory_pool_t fine,
                                 hsa_amd_memory_pool_t device, std::uint32_t packets)
    : api_(api), agent_(agent), device_pool_(device) {
  std::uint64_t mask = 1;
  while (mask + 1 < packets) mask = mask * 2 + 1;
  const std::uint64_t count = mask + 1;
  const std::size_t bytes = sizeof(Buffer) + 64 + count * sizeof(Header) + 4096 + count * sizeof(Payload);
  check(api_.hsa_amd_memory_pool_allocate(fine, bytes, 0, &memory_), "hsa_amd_memory_pool_allocate(hostcall buffer)");
  if (hsa_status_t s = api_.hsa_amd_agents_allow_access(1, &agent_, nullptr, memory_); s != HSA_STATUS_SUCCESS) {
    api_.hsa_amd_memory_pool_free(memory_);
    check(s, "hsa_amd_agents_allow_access(hostcall buffer)");
  }
  std::memset(memory_, 0, bytes);
  auto* base = static_cast<unsigned char*>(memory_);
  buffer_ = new (base) Buffer{};
  auto* headers = reinterpret_cast<Header*>(base + 64);
  const std::uintptr_t payload_at = (reinterpret_cast<std::uintptr_t>(headers + count) + 4095) & ~std::uintptr_t(4095);
  buffer_->headers = headers;
  buffer_->payloads = reinterpret_cast<Payload*>(payload_at);
  buffer_->index_mask = mask;
  // Every packet on the free stack, tagged 1 so that no pointer is 0 (0 is the empty stack).
  for (std::uint64_t i = 0; i < count; ++i) headers[i].next = i + 1 < count ? (mask + 1) | (i + 1) : 0;
  buffer_->free_stack = (mask + 1) | 0;
  buffer_->ready_stack = 0;
  if (hsa_status_t s = api_.hsa_signal_create(kSignalInit, 0, nullptr, &doorbell_); s != HSA_STATUS_SUCCESS) {
    api_.hsa_amd_memory_pool_free(memory_);
    check(s, "hsa_signal_create(hostcall doorbell)");
  }
  buffer_->doorbell = doorbell_;
  listener_ = std::thread([this] { listen(); });
}

HostcallService::~HostcallService() {
  api_.hsa_signal_store_screlease(doorbell_, kSignalDone);
  listener_.join();
  for (void* p : allocated_) api_.hsa_amd_memory_pool_free(p);
  api_.hsa_signal_destroy(doorbell_);
  api_.hsa_amd_memory_pool_free(memory_);
}

void HostcallService::listen() {
  std::int64_t seen = kSignalInit;
  for (;;) {
    // The device adds 1 to the doorbell after each packet it readies; a slice bounds the wait for
    // a doorbell a device store left unchanged by a wrap.
    seen = api_.hsa_signal_wait_scacquire(doorbell_, HSA_SIGNAL_CONDITION_NE, seen, api_.timestamp_hz / 1000,
                                          HSA_WAIT_STATE_BLOCKED);
    const std::uint64_t ready = __atomic_exchange_n(&buffer_->ready_stack, 0, __ATOMIC_ACQUIRE);
    if (ready) serve(ready);
    if (seen == kSignalDone) return;
  }
}

void HostcallService::serve(std::uint64_t ready) {
  // The stack is last in, first out: served in the order the waves asked.
  std::vector<std::uint64_t> order;
  for (std::uint64_t p = ready; p; p = buffer_->headers[p & buffer_->index_mask].next) order.push_back(p);
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const std::uint64_t index = *it & buffer_->index_mask;
    Header& h = buffer_->headers[index];
    Payload& payload = buffer_->payloads[index];
    for (unsigned lane = 0; lane < 64; ++lane) {
      if (h.activemask & (std::uint64_t(1) << lane)) handle(h.service, payload.slots[lane]);
    }
    __atomic_store_n(&h.control, h.control & ~1u, __ATOMIC_RELEASE);
  }
}

void HostcallService::handle(std::uint32_t service, std::uint64_t* slot) {
  switch (service) {
    case kServicePrintf: printf_message(slot); return;
    case kServiceDevmem: device_memory(slot); return;
    default:
      std::fprintf(stderr, "hsadispatch: a kernel asked hostcall service %u, which the library does not provide\n",
                   service);
      slot[0] = slot[1] = 0;
  }
}

void HostcallService::printf_message(std::uint64_t* slot) {
  const std::uint64_t d = slot[0];
  std::uint64_t id = message_id(d);
  if (begins(d)) id = next_message_++;
  std::vector<std::uint64_t>& m = messages_[id];
  m.insert(m.end(), slot + 1, slot + 1 + length(d));
  if (!ends(d)) {
    slot[0] = id << 8;  // what the lane's next part names
    slot[1] = 0;
    return;
  }
  const std::string text = format_printf(m);
  std::FILE* out = !m.empty() && (m[0] & 1) ? stderr : stdout;  // the control word: fprintf(stderr, ...)
  std::fwrite(text.data(), 1, text.size(), out);
  std::fflush(out);
  messages_.erase(id);
  slot[0] = text.size();  // printf's return value
  slot[1] = 0;
}

void HostcallService::device_memory(std::uint64_t* slot) {
  if (slot[0]) {  // free
    auto* p = reinterpret_cast<void*>(slot[0]);
    if (allocated_.erase(p)) api_.hsa_amd_memory_pool_free(p);
    else std::fprintf(stderr, "hsadispatch: a kernel freed %p, which device malloc did not give it\n", p);
    slot[0] = slot[1] = 0;
    return;
  }
  void* p = nullptr;
  if (slot[1] && api_.hsa_amd_memory_pool_allocate(device_pool_, slot[1], 0, &p) == HSA_STATUS_SUCCESS) {
    allocated_.insert(p);
  } else {
    p = nullptr;  // malloc returns null
  }
  slot[0] = reinterpret_cast<std::uint64_t>(p);
  slot[1] = 0;
}

std::string HostcallService::format_printf(const std::vector<std::uint64_t>& m) {
  std::size_t at = 1;  // m[0]: the control word
  const std::string fmt = take_string(m, at);
  std::string out;
  const auto next_arg = [&]() -> std::uint64_t { return at < m.size() ? m[at++] : 0; };
  for (std::size_t i = 0; i < fmt.size(); ++i) {
    if (fmt[i] != '%') {
      out.push_back(fmt[i]);
      continue;
    }
    if (i + 1 < fmt.size() && fmt[i + 1] == '%') {
      out.push_back('%');
      ++i;
      continue;
    }
    // %[flags][width][.precision][length]conversion; a * takes an argument.
    std::string spec = "%";
    std::size_t j = i + 1;
    while (j < fmt.size() && std::strchr("-+ #0", fmt[j])) spec.push_back(fmt[j++]);
    if (j < fmt.size() && fmt[j] == '*') {
      spec += std::to_string(int(next_arg()));
      ++j;
    }
    while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') spec.push_back(fmt[j++]);
    if (j < fmt.size() && fmt[j] == '.') {
      spec.push_back(fmt[j++]);
      if (j < fmt.size() && fmt[j] == '*') {
        spec += std::to_string(int(next_arg()));
        ++j;
      }
      while (j < fmt.size() && fmt[j] >= '0' && fmt[j] <= '9') spec.push_back(fmt[j++]);
    }
    std::string len;
    while (j < fmt.size() && std::strchr("hlLjzt", fmt[j])) len.push_back(fmt[j++]);
    if (j >= fmt.size()) {
      out += fmt.substr(i);
      break;
    }
    const char conv = fmt[j];
    char buf[512];
    int n = 0;
    switch (conv) {
      case 'd':
      case 'i': {
        const std::uint64_t v = next_arg();
        long long x = len == "hh" ? (long long)(signed char)v
                      : len == "h" ? (long long)(short)v
                      : len.empty() ? (long long)(int)v
                                    : (long long)v;
        n = std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), x);
        break;
      }
      case 'u':
      case 'o':
      case 'x':
      case 'X': {
        const std::uint64_t v = next_arg();
        unsigned long long x = len == "hh" ? (unsigned char)v
                               : len == "h" ? (unsigned short)v
                               : len.empty() ? (unsigned)v
                                             : v;
        n = std::snprintf(buf, sizeof buf, (spec + "ll" + conv).c_str(), x);
        break;
      }
      case 'c': n = std::snprintf(buf, sizeof buf, (spec + conv).c_str(), int(next_arg())); break;
      case 'f':
      case 'F':
      case 'e':
      case 'E':
      case 'g':
      case 'G':
      case 'a':
      case 'A': {
        const std::uint64_t v = next_arg();
        double x;
        std::memcpy(&x, &v, sizeof x);
        n = std::snprintf(buf, sizeof buf, (spec + conv).c_str(), x);
        break;
      }
      case 's': {
        const std::string s = take_string(m, at);
        n = std::snprintf(buf, sizeof buf, (spec + conv).c_str(), s.c_str());
        break;
      }
      case 'p': n = std::snprintf(buf, sizeof buf, (spec + conv).c_str(), reinterpret_cast<void*>(next_arg())); break;
      default: out += fmt.substr(i, j - i + 1); i = j; continue;
    }
    if (n > 0) out.append(buf, std::size_t(n) < sizeof buf ? std::size_t(n) : sizeof buf - 1);
    i = j;
  }
  return out;
}

}  // namespace hsad::rocr
