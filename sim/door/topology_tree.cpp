// The topology tree: every file's text made first, then written once into a folder named for a
// hash of it (so processes describing the same machine share one, written atomically by rename),
// under $TMPDIR/hsad-sim-<uid>/.
#include "door/topology_tree.hpp"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "agent/host_machine.hpp"
#include "sim_config.hpp"

namespace hsad::sim::door {
namespace {

constexpr std::uint64_t kFrameBufferBytes = 16ull << 30;
constexpr std::uint32_t kGws = 64;  // what a cooperative launch's grid barrier needs (isa::GlobalWaveSync)

// KFD's capability bits (hsakmttypes.h's HSA_CAPABILITY): 64-bit doorbells, as on gfx9 and later;
// the SVM API (ROCm 6 registers user memory through it, at its own address); the debugger's
// firmware (ROCm 6 enables exception reporting only where every GPU has it).
constexpr std::uint32_t kDoorbellType2 = 2u << 12;
constexpr std::uint32_t kSvmApiSupported = 1u << 27;
// SRAM ECC active, as on the Instinct GPUs: ROCr names the agent "gfx90a:sramecc+" (it reads the
// bit only where the ISA has the feature: not gfx1030), and d16 loads zero the register's other
// half there (isa::Target::sramecc).
constexpr std::uint32_t kSramEdcSupport = 1u << 26;
constexpr std::uint32_t kDebugSupportedFirmware = 1u << 29;

using Files = std::map<std::string, std::string>;  // path under the topology folder -> text

struct Props {
  std::string text;
  Props& add(const char* key, unsigned long long value) {
    text += std::string(key) + " " + std::to_string(value) + "\n";
    return *this;
  }
};

std::uint64_t host_memory_bytes() {
  return std::uint64_t(sysconf(_SC_PHYS_PAGES)) * std::uint64_t(sysconf(_SC_PAGESIZE));
}

void cpu_node(Files& f) {
  const std::uint32_t gpus = config().gpus;
  const std::string n = "nodes/0/";
  f[n + "gpu_id"] = "0\n";
  f[n + "name"] = "\n";
  Props p;
  p.add("cpu_cores_count", agent::usable_cpus())
      .add("simd_count", 0)
      .add("mem_banks_count", 1)
      .add("caches_count", 1)
      .add("io_links_count", gpus)
      .add("cpu_core_id_base", 0)
      .add("simd_id_base", 0)
      .add("max_waves_per_simd", 0)
      .add("lds_size_in_kb", 0)
      .add("gds_size_in_kb", 0)
      .add("num_gws", 0)
      .add("wave_front_size", 0)
      .add("array_count", 0)
      .add("simd_arrays_per_engine", 0)
      .add("cu_per_simd_array", 0)
      .add("simd_per_cu", 0)
      .add("max_slots_scratch_cu", 0)
      .add("gfx_target_version", 0)
      .add("vendor_id", 0)
      .add("device_id", 0)
      .add("location_id", 0)
      .add("domain", 0)
      .add("drm_render_minor", 0)
      .add("hive_id", 0)
      .add("num_sdma_engines", 0)
      .add("num_sdma_xgmi_engines", 0)
      .add("num_sdma_queues_per_engine", 0)
      .add("num_cp_queues", 0)
      .add("max_engine_clk_ccompute", 2000)
      .add("local_mem_size", 0)
      .add("fw_version", 0)
      .add("capability", 0)
      .add("debug_prop", 0)
      .add("sdma_fw_version", 0)
      .add("unique_id", 0)
      .add("num_xcc", 0);
  f[n + "properties"] = p.text;
  f[n + "mem_banks/0/properties"] =
      Props{}.add("heap_type", 0).add("size_in_bytes", host_memory_bytes()).add("flags", 0).add("width", 64)
          .add("mem_clk_max", 3200).text;
  // One data cache, as small as any host's first level: ROCr's CPU agent expects a cache, and the
  // thunk then reads no cache folders of the host's sysfs (which a VM may not have).
  f[n + "caches/0/properties"] = Props{}
                                     .add("processor_id_low", 0)
                                     .add("level", 1)
                                     .add("size", 32)
                                     .add("cache_line_size", 64)
                                     .add("cache_lines_per_tag", 1)
                                     .add("association", 8)
                                     .add("latency", 1)
                                     .add("type", 1 | 4)  // data, CPU
                                     .add("sibling_map", 1)
                                     .text;
  for (std::uint32_t g = 1; g <= gpus; ++g) {
    f[n + "io_links/" + std::to_string(g - 1) + "/properties"] = Props{}
                                                                   .add("type", 2)  // PCIe
                                                                   .add("version_major", 0)
                                                                   .add("version_minor", 0)
                                                                   .add("node_from", 0)
                                                                   .add("node_to", g)
                                                                   .add("weight", 20)
                                                                   .add("min_latency", 0)
                                                                   .add("max_latency", 0)
                                                                   .add("min_bandwidth", 0)
                                                                   .add("max_bandwidth", 16000)
                                                                   .add("recommended_transfer_size", 0)
                                                                   .add("flags", 1)
                                                                   .text;
  }
}

void gpu_node(Files& f, std::uint32_t node) {
  const Target& t = config().target;
  const std::uint32_t gpus = config().gpus;
  const std::string n = "nodes/" + std::to_string(node) + "/";
  f[n + "gpu_id"] = std::to_string(gpu_id_of(node)) + "\n";
  f[n + "name"] = std::string(t.name) + "\n";
  const std::uint32_t arrays = t.shader_engines;
  Props p;
  p.add("cpu_cores_count", 0)
      .add("simd_count", std::uint64_t(t.compute_units) * t.simds_per_cu)
      .add("mem_banks_count", 1)
      .add("caches_count", 1)
      .add("io_links_count", gpus)  // the host and every other GPU
      .add("cpu_core_id_base", 0)
      .add("simd_id_base", 0x80000000ull + node * 0x1000ull)
      .add("max_waves_per_simd", t.max_waves_per_simd)
      .add("lds_size_in_kb", t.lds_kib)
      .add("gds_size_in_kb", 0)
      .add("num_gws", t.major >= 12 ? 0 : kGws)  // RDNA4 has no GWS: its grid barriers live in memory
      .add("wave_front_size", t.wavefront)
      .add("array_count", arrays)
      .add("simd_arrays_per_engine", 1)
      .add("cu_per_simd_array", t.compute_units / arrays)
      .add("simd_per_cu", t.simds_per_cu)
      .add("max_slots_scratch_cu", 32)
      .add("gfx_target_version", t.gfx_target_version())
      .add("vendor_id", 0x1002)
      .add("device_id", t.device_id)
      .add("location_id", node << 8)
      .add("domain", 0)
      .add("drm_render_minor", render_minor_of(node))
      // GPUs joined by XGMI form a hive, as an MI250's do: ROCr then offers each one's memory
      // fine-grained too (a second pool), which the other GPUs' stores reach while kernels run.
      .add("hive_id", gpus > 1 ? 0x5157000000000001ull : 0)
      .add("num_sdma_engines", 2)
      .add("num_sdma_xgmi_engines", gpus > 1 ? 2 : 0)
      .add("num_sdma_queues_per_engine", 8)
      .add("num_cp_queues", 24)
      .add("max_engine_clk_fcompute", 1700)
      .add("max_engine_clk_ccompute", 0)
      .add("local_mem_size", kFrameBufferBytes)
      .add("fw_version", t.fw_version)
      .add("capability", kDoorbellType2 | kSvmApiSupported | kDebugSupportedFirmware | kSramEdcSupport)
      .add("debug_prop", 0)
      .add("sdma_fw_version", t.fw_version)
      .add("unique_id", 0x5157000000000000ull + node)
      .add("num_xcc", t.xccs);
  f[n + "properties"] = p.text;
  f[n + "mem_banks/0/properties"] = Props{}
                                        .add("heap_type", 1)  // FRAME_BUFFER_PUBLIC: ROCr maps it for the host
                                        .add("size_in_bytes", kFrameBufferBytes)
                                        .add("flags", 0)
                                        .add("width", 4096)
                                        .add("mem_clk_max", 1600)
                                        .text;
  f[n + "caches/0/properties"] = Props{}
                                     .add("processor_id_low", 0x80000000ull + node * 0x1000ull)
                                     .add("level", 2)
                                     .add("size", t.l2_kib)
                                     .add("cache_line_size", 128)
                                     .add("cache_lines_per_tag", 1)
                                     .add("association", 16)
                                     .add("latency", 1)
                                     .add("type", 1 | 8)  // data, HSA compute unit
                                     .add("sibling_map", 1)
                                     .text;
  // Every node links to every other: the host over PCIe, the other GPUs over XGMI, one hop each,
  // so ROCr lets a GPU reach a peer's memory once asked (HIP's peer access).
  std::uint32_t k = 0;
  for (std::uint32_t to = 0; to <= gpus; ++to) {
    if (to == node) continue;
    const bool xgmi = to != 0;
    f[n + "io_links/" + std::to_string(k++) + "/properties"] = Props{}
                                                                 .add("type", xgmi ? 11 : 2)
                                                                 .add("version_major", 0)
                                                                 .add("version_minor", 0)
                                                                 .add("node_from", node)
                                                                 .add("node_to", to)
                                                                 .add("weight", xgmi ? 15 : 20)
                                                                 .add("min_latency", 0)
                                                                 .add("max_latency", 0)
                                                                 .add("min_bandwidth", xgmi ? 50000 : 16000)
                                                                 .add("max_bandwidth", xgmi ? 50000 : 16000)
                                                                 .add("recommended_transfer_size", 0)
                                                                 .add("flags", 1)
                                                                 .text;
  }
}

Files tree() {
  Files f;
  f["topology/generation_id"] = "1\n";
  f["topology/system_properties"] = Props{}.add("platform_oem", 0).add("platform_id", 0).add("platform_rev", 0).text;
  Files nodes;
  cpu_node(nodes);
  for (std::uint32_t g = 1; g <= config().gpus; ++g) gpu_node(nodes, g);
  for (auto& [path, text] : nodes) f["topology/" + path] = std::move(text);
  // What the amdgpu module shows in /sys/module/amdgpu: loaded and live (rocminfo 7 checks).
  f["module/amdgpu/initstate"] = "live\n";
  f["module/amdgpu/version"] = "hsad-sim\n";
  return f;
}

std::uint64_t fnv1a(const Files& f) {
  std::uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](const std::string& s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0xff) * 1099511628211ull;
  };
  for (const auto& [path, text] : f) mix(path), mix(text);
  return h;
}

bool make_dirs(const std::string& path) {
  for (std::size_t at = 1; at != std::string::npos; at = path.find('/', at + 1)) {
    const std::string dir = path.substr(0, at);
    if (!dir.empty() && mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) return false;
  }
  return mkdir(path.c_str(), 0755) == 0 || errno == EEXIST;
}

std::string write_tree() {
  const Files f = tree();
  const char* tmp = std::getenv("TMPDIR");
  const std::string top = std::string(tmp && *tmp ? tmp : "/tmp") + "/hsad-sim-" + std::to_string(getuid());
  char name[32];
  std::snprintf(name, sizeof name, "kfd-%016llx", static_cast<unsigned long long>(fnv1a(f)));
  const std::string root = top + "/" + name;
  struct stat st{};
  if (stat((root + "/topology/generation_id").c_str(), &st) == 0) return root;
  const std::string staging = root + ".tmp." + std::to_string(getpid());
  for (const auto& [path, text] : f) {
    const std::string file = staging + "/" + path;
    if (!make_dirs(file.substr(0, file.rfind('/')))) return {};
    FILE* out = std::fopen(file.c_str(), "w");
    if (!out) return {};
    std::fwrite(text.data(), 1, text.size(), out);
    std::fclose(out);
  }
  // Another process may have written the same tree meanwhile: then its folder stands.
  if (rename(staging.c_str(), root.c_str()) != 0) {
    nftw(staging.c_str(), [](const char* path, const struct stat*, int, struct FTW*) { return remove(path); }, 16,
         FTW_DEPTH | FTW_PHYS);
  }
  return stat((root + "/topology/generation_id").c_str(), &st) == 0 ? root : std::string();
}
}  // namespace

std::uint32_t gpu_id_of(std::uint32_t node) { return node ? 0x5100 + node : 0; }

std::uint32_t node_of(std::uint32_t gpu_id) {
  if (gpu_id <= 0x5100 || gpu_id > 0x5100 + config().gpus) return 0;
  return gpu_id - 0x5100;
}

const std::string& kfd_sysfs_root() {
  static const std::string& root = *new std::string(write_tree());  // never destroyed: read at exit too
  return root;
}

const char* redirect(const char* path, std::string& storage) {
  if (!path) return path;
  const auto under = [path](const char* folder) {
    const std::size_t n = std::strlen(folder);
    return std::strncmp(path, folder, n) == 0 && (path[n] == '/' || path[n] == 0) ? n : 0;
  };
  std::size_t n = under(kKfdSysfs);
  const char* there = "";
  if (!n && (n = under(kAmdgpuModuleSysfs))) there = "/module/amdgpu";
  if (!n) return path;
  const std::string& root = kfd_sysfs_root();
  if (root.empty()) return path;
  storage = root + there + (path + n);
  return storage.c_str();
}

}  // namespace hsad::sim::door
