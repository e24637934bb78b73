#include "sim_cache_report.hpp"

#include <atomic>
#include <cstdio>

#include "l2_cache.hpp"
#include "sim_config.hpp"
#include "sim_memory.hpp"

namespace hsad::sim {
namespace {

constexpr std::uint64_t kReportedInFull = 10;
std::atomic<std::uint64_t> reports{0};

void say(const std::string& what) {
  const std::uint64_t n = reports.fetch_add(1, std::memory_order_relaxed);
  if (n < kReportedInFull) std::fprintf(stderr, "hsad-sim: cache report: %s\n", what.c_str());
  if (n == kReportedInFull) std::fprintf(stderr, "hsad-sim: cache report: more reports are counted, not printed\n");
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// The GPU whose L2 holds dirty bytes in [lo, hi), if any: its node, the line and its last writer.
bool dirty_anywhere(std::uint64_t lo, std::uint64_t hi, std::uint32_t* node, std::uint64_t* line, std::uint16_t* writer) {
  std::uint64_t base = 0, size = 0;
  if (hi <= lo || !find_allocation(lo, &base, &size)) return false;
  for (std::uint32_t g = 1; g <= config().gpus; ++g) {
    const isa::CachedRange* r = cached_range(g, base);
    if (r && r->dirty_in(lo, hi, line, writer)) {
      *node = g;
      return true;
    }
  }
  return false;
}

}  // namespace

void report_engine_copy(std::uint32_t node, std::uint64_t dst, std::uint64_t src, std::uint64_t bytes) {
  if (!config().cache_report) return;
  std::uint32_t owner = 0;
  std::uint64_t line = 0;
  std::uint16_t writer = 0;
  if (src != 0 && dirty_anywhere(src, src + bytes, &owner, &line, &writer)) {
    say("a copy on GPU " + std::to_string(node) + "'s engine reads memory at " + hex(line) + " that GPU " +
        std::to_string(owner) + "'s L2 holds dirty (last written by " + isa::writer_name(writer) +
        "), never released at system scope: the copy reads stale bytes (is a system-scope release missing on "
        "the packet before the copy?)");
  }
  if (dirty_anywhere(dst, dst + bytes, &owner, &line, &writer)) {
    say("a copy on GPU " + std::to_string(node) + "'s engine writes memory at " + hex(line) + " that GPU " +
        std::to_string(owner) + "'s L2 holds dirty (last written by " + isa::writer_name(writer) +
        "): a later write-back will write over the copy");
  }
}

void report_signal_release(std::uint32_t node, const char* scope) {
  if (!config().cache_report) return;
  isa::L2Cache* l2 = l2_of(node);
  std::uint16_t writer = 0;
  const std::uint64_t lines = l2 ? l2->dirty_lines(&writer) : 0;
  if (lines == 0) return;
  say("a packet on GPU " + std::to_string(node) + " completed its signal with a release at " + scope + " scope while the L2 holds " + std::to_string(lines) +
      " dirty lines (the first last written by " + isa::writer_name(writer) +
      "): the host, a copy or another GPU that waits for this signal and reads them reads stale memory");
}

void report_remote_access(std::uint32_t node, std::uint64_t base) {
  if (!config().cache_report) return;
  for (std::uint32_t g = 1; g <= config().gpus; ++g) {
    if (g == node) continue;
    const isa::CachedRange* r = cached_range(g, base);
    if (!r || r->listed_lines() == 0) continue;
    say("a kernel on GPU " + std::to_string(node) + " reaches memory at " + hex(base) + " of which GPU " +
        std::to_string(g) + "'s L2 holds " + std::to_string(r->listed_lines()) +
        " lines written since its last system-scope release (the latest by " + isa::writer_name(r->last_writer()) +
        "): what it reads there may be stale (is a system-scope release missing on the packet that wrote them?)");
  }
}

std::uint64_t cache_reports() { return reports.load(std::memory_order_relaxed); }

}  // namespace hsad::sim
