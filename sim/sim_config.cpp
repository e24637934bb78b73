// The simulated machine, read once from hsad-sim's environment.
#include "sim_config.hpp"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hsad::sim {
namespace {
Config load() {
  Config c;
  const char* target = std::getenv("HSAD_SIM_TARGET");
  if (!target || !*target) target = "gfx90a";
  const Target* t = find_target(target);
  if (!t) {
    std::fprintf(stderr, "hsad-sim: unknown HSAD_SIM_TARGET '%s' (valid: %s)\n", target, target_names().c_str());
    std::exit(2);
  }
  c.target = *t;
  if (const char* g = std::getenv("HSAD_SIM_GPUS"); g && *g) c.gpus = std::uint32_t(std::strtoul(g, nullptr, 10));
  if (c.gpus < 1 || c.gpus > 8) {
    std::fprintf(stderr, "hsad-sim: HSAD_SIM_GPUS must be 1 to 8\n");
    std::exit(2);
  }
  if (const char* e = std::getenv("HSAD_SIM_EXEC"); e && *e) {
    if (std::strcmp(e, "isa") == 0) c.exec = Exec::isa;
    else if (std::strcmp(e, "host") == 0) c.exec = Exec::host;
    else {
      std::fprintf(stderr, "hsad-sim: HSAD_SIM_EXEC must be isa or host, not '%s'\n", e);
      std::exit(2);
    }
  }
  if (const char* t = std::getenv("HSAD_SIM_TRACE")) c.trace_path = t;
  if (const char* st = std::getenv("HSAD_SIM_STATS")) c.stats = *st && std::strcmp(st, "0") != 0;
  if (const char* st = std::getenv("HSAD_SIM_STRICT_LDS")) c.strict_lds = *st && std::strcmp(st, "0") != 0;
  if (const char* f = std::getenv("HSAD_SIM_FAULT"); f && *f) {
    char* end = nullptr;
    errno = 0;
    c.fault_at = std::strtoull(f, &end, 10);
    // strtoull reads "abc" as 0, " -1" as 2^64 - 1 and a number past 2^64 as 2^64 - 1 (ERANGE).
    if (*end || !std::isdigit(static_cast<unsigned char>(*f)) || errno == ERANGE) {
      std::fprintf(stderr, "hsad-sim: HSAD_SIM_FAULT must be a number, not '%s'\n", f);
      std::exit(2);
    }
  }
  if (const char* m = std::getenv("HSAD_SIM_CACHE"); m && *m) {
    if (std::strcmp(m, "on") == 0 || std::strcmp(m, "1") == 0) c.cache_model = true;
    else if (std::strcmp(m, "report") == 0) c.cache_model = c.cache_report = true;
    else if (std::strcmp(m, "off") == 0 || std::strcmp(m, "0") == 0) c.cache_model = false;
    else {
      std::fprintf(stderr, "hsad-sim: HSAD_SIM_CACHE must be on, off or report, not '%s'\n", m);
      std::exit(2);
    }
  }
  if (c.exec == Exec::host) c.cache_model = c.cache_report = false;
  if (const char* s = std::getenv("HSAD_SIM_SDMA"); s && *s) c.sdma = std::strcmp(s, "off") != 0 && std::strcmp(s, "0") != 0;
  c.blits_as_copy_engine = !c.sdma;
  if (const char* b = std::getenv("HSAD_SIM_BLITS"); b && *b) {
    if (std::strcmp(b, "engine") == 0) c.blits_as_copy_engine = true;
    else if (std::strcmp(b, "shader") == 0) c.blits_as_copy_engine = false;
    else {
      std::fprintf(stderr, "hsad-sim: HSAD_SIM_BLITS must be engine or shader, not '%s'\n", b);
      std::exit(2);
    }
  }
  return c;
}
}  // namespace

const Config& config() {
  static const Config c = load();
  return c;
}

void check_config() { (void)load(); }

}  // namespace hsad::sim
