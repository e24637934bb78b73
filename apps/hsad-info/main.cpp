// hsad-info: every backend with its availability (and why not), the devices of the available
// ones, or, with --code-object FILE, the kernels of an AMD code object or offload bundle, or, with
// --module FILE, an application's kernels as the first device loads them, with what each costs.
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <system_error>

#include "cli.hpp"
#include "hsad/hsad.hpp"
#include "report.hpp"

namespace po = boost::program_options;
using namespace hsad;
using bench::json_escape;

namespace {

std::string quoted(const std::string& s) { return "\"" + json_escape(s) + "\""; }

struct Listing {
  std::vector<BackendStatus> backends;
  std::vector<DeviceInfo> devices;
};

Listing list_devices() {
  Listing l;
  l.backends = Runtime::probe();
  for (BackendStatus& b : l.backends) {
    if (!b.available) continue;
    try {
      const Runtime rt = Runtime::open(b.name);
      for (const Device& d : rt.devices()) l.devices.push_back(d.info());
    } catch (const Error& e) {  // probed fine, failed to open: say so rather than hide it
      b.available = false;
      b.reason = e.what();
    }
  }
  return l;
}

void print_devices_json(std::ostream& out, const Listing& l) {
  out << "{\"version\":" << quoted(version()) << ",\"backends\":[";
  for (std::size_t i = 0; i < l.backends.size(); ++i) {
    const BackendStatus& b = l.backends[i];
    out << (i ? "," : "") << "{\"name\":" << quoted(b.name) << ",\"available\":" << (b.available ? "true" : "false")
        << ",\"reason\":" << quoted(b.reason) << "}";
  }
  out << "],\"devices\":[";
  for (std::size_t i = 0; i < l.devices.size(); ++i) {
    const DeviceInfo& d = l.devices[i];
    out << (i ? "," : "") << "{\"backend\":" << quoted(d.backend) << ",\"name\":" << quoted(d.name)
        << ",\"isa\":" << quoted(d.isa) << ",\"wavefront_size\":" << d.wavefront_size
        << ",\"compute_units\":" << d.compute_units << ",\"last_level_cache_bytes\":"
        << (d.last_level_cache_bytes ? std::to_string(*d.last_level_cache_bytes) : "null")
        << ",\"last_level_cache_source\":" << quoted(d.last_level_cache_source)
        << ",\"memory_bytes\":" << d.memory_bytes << ",\"max_queue_packets\":" << d.max_queue_packets
        << ",\"max_group_memory_bytes\":" << d.limits.max_group_memory_bytes;
    if (!d.code_object.empty()) out << ",\"code_object\":" << quoted(d.code_object);
    out << "}";
  }
  out << "]}\n";
}

void print_devices_table(std::ostream& out, const Listing& l) {
  out << "libhsadispatch " << version() << "\n";
  out << "backends:\n";
  for (const BackendStatus& b : l.backends) {
    out << "  " << b.name << ": " << (b.available ? "available" : "unavailable") << " (" << b.reason << ")\n";
  }
  out << "devices:\n";
  if (l.devices.empty()) out << "  none\n";
  for (std::size_t i = 0; i < l.devices.size(); ++i) {
    const DeviceInfo& d = l.devices[i];
    out << "  [" << i << "] " << d.backend << ": " << d.name << "\n"
        << "      isa " << d.isa << ", wavefront " << d.wavefront_size << ", compute units " << d.compute_units
        << ", last-level cache "
        << (d.last_level_cache_bytes ? std::to_string(*d.last_level_cache_bytes >> 10) + " KiB (" + d.last_level_cache_source + ")"
                                     : "unknown (" + d.last_level_cache_source + ")")
        << ", memory " << (d.memory_bytes >> 20)
        << " MiB, max queue " << d.max_queue_packets << " packets, group memory "
        << (d.limits.max_group_memory_bytes >> 10) << " KiB per work-group\n";
    if (!d.code_object.empty()) out << "      code object " << d.code_object << "\n";
  }
}

// What one compute unit holds of the kernel in work-groups of 256 (or its limit, if lower), by
// CLR's model; nullopt for a target the model does not cover.
std::pair<std::uint32_t, std::optional<std::uint32_t>> groups_per_cu(const CodeObject& co, const KernelInfo& k) {
  const std::uint32_t group = k.max_workgroup_size ? std::min<std::uint32_t>(256, k.max_workgroup_size) : 256;
  return {group, amdgpu_groups_per_cu(co.processor, k, group, 0)};
}

void print_code_object_json(std::ostream& out, const CodeObject& co) {
  out << "{\"target\":" << quoted(co.target) << ",\"kernels\":[";
  for (std::size_t i = 0; i < co.kernels.size(); ++i) {
    const CodeObjectKernel& k = co.kernels[i];
    out << (i ? "," : "") << "{\"name\":" << quoted(k.info.name) << ",\"symbol\":" << quoted(k.symbol)
        << ",\"kernarg_segment_size\":" << k.info.kernarg_segment_size
        << ",\"kernarg_segment_align\":" << k.info.kernarg_segment_align
        << ",\"group_segment_size\":" << k.info.group_segment_size
        << ",\"private_segment_size\":" << k.info.private_segment_size
        << ",\"wavefront_size\":" << k.info.wavefront_size << ",\"vector_registers\":" << k.info.vector_registers
        << ",\"accum_registers\":" << k.info.accum_registers << ",\"scalar_registers\":" << k.info.scalar_registers
        << ",\"vector_spills\":" << k.info.vector_spills << ",\"scalar_spills\":" << k.info.scalar_spills;
    const auto occupancy = groups_per_cu(co, k.info);
    out << ",\"occupancy_group_size\":" << occupancy.first << ",\"groups_per_cu\":"
        << (occupancy.second ? std::to_string(*occupancy.second) : "null") << ",\"args\":[";
    for (std::size_t a = 0; a < k.info.args.size(); ++a) {
      const ArgInfo& arg = k.info.args[a];
      out << (a ? "," : "") << "{\"offset\":" << arg.offset << ",\"size\":" << arg.size
          << ",\"kind\":" << quoted(arg.value_kind) << "}";
    }
    out << "]}";
  }
  out << "]}";
}

void print_code_object_table(std::ostream& out, const CodeObject& co) {
  out << co.target << " (code object v" << co.code_object_version << ", " << co.kernels.size() << " kernels)\n";
  for (const CodeObjectKernel& k : co.kernels) {
    out << "  " << k.info.name << "  kernarg " << k.info.kernarg_segment_size << " B (align "
        << k.info.kernarg_segment_align << "), group " << k.info.group_segment_size << " B, private "
        << k.info.private_segment_size << " B, wave" << k.info.wavefront_size << "\n";
    out << "      registers " << k.info.vector_registers << " vector";
    if (k.info.accum_registers) out << " + " << k.info.accum_registers << " accumulation";
    out << ", " << k.info.scalar_registers << " scalar; spills " << k.info.vector_spills << " vector, "
        << k.info.scalar_spills << " scalar; ";
    const auto occupancy = groups_per_cu(co, k.info);
    if (occupancy.second) {
      out << *occupancy.second << " groups of " << occupancy.first << " per CU (CLR's occupancy model)\n";
    } else {
      out << "occupancy not modelled for " << co.processor << "\n";
    }
    for (const ArgInfo& a : k.info.args) {
      out << "      +" << a.offset << "  " << a.size << " B  " << a.value_kind << "\n";
    }
  }
}

int show_code_object(const std::string& path, const std::string& target, const std::string& format) {
  std::error_code not_a_directory;
  if (std::filesystem::is_directory(path, not_a_directory)) {
    throw Error("hsad-info", "--code-object", "cannot read '" + path + "': it is a directory");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error("hsad-info", "--code-object", "cannot open '" + path + "'");
  std::string bytes;
  try {  // libstdc++'s stream throws from a read that fails (a directory: EISDIR)
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  } catch (const std::ios_base::failure& e) {
    throw Error("hsad-info", "--code-object", "cannot read '" + path + "': " + e.what());
  }
  std::vector<CodeObject> objects = read_code_objects(bytes);
  std::string why;
  if (!target.empty()) {
    // The objects built for the processor (every feature variant), else those of its family's
    // generic target: what the rocr backend would choose among (choose_code_object).
    std::string have;
    for (const CodeObject& co : objects) have += (have.empty() ? "" : ", ") + co.processor;
    const std::string processor = TargetId::parse(target).processor;
    const std::string generic = amdgpu_generic_target(processor);
    std::vector<CodeObject> chosen;
    for (const std::string& p : {processor, generic}) {
      if (p.empty() || !chosen.empty()) continue;
      for (CodeObject& co : objects) {
        if (co.processor == p) chosen.push_back(std::move(co));
      }
    }
    if (chosen.empty()) {
      throw Error("hsad-info", "--target", "'" + path + "' has no code object for " + target +
                  (generic.empty() ? "" : " or " + generic), "it has: " + have);
    }
    why = choose_code_object(bytes, target).reason;
    objects = std::move(chosen);
  }
  if (format == "json") {
    // One code object (an ELF, or a bundle narrowed with --target): the object itself.
    if (objects.size() == 1) {
      print_code_object_json(std::cout, objects[0]);
    } else {
      std::cout << "{\"code_objects\":[";
      for (std::size_t i = 0; i < objects.size(); ++i) {
        if (i) std::cout << ",";
        print_code_object_json(std::cout, objects[i]);
      }
      std::cout << "]}";
    }
    std::cout << "\n";
  } else {
    if (!why.empty()) std::cout << "for " << target << ": " << why << "\n";
    for (const CodeObject& co : objects) print_code_object_table(std::cout, co);
  }
  return 0;
}

// --module: an application's module loaded on the first device of the best backend present, each
// kernel with what it costs there (the driver's view on cuda, the code object's on rocr) and how
// many of its work-groups of `group` work-items one compute unit holds.
int show_module(const std::string& path, std::uint32_t group, const std::string& format) {
  const Runtime rt = Runtime::open();
  const Device& d = rt.device();
  const Module m = d.load_module(path);
  const std::vector<std::string> names = m.kernel_names();
  if (format == "json") std::cout << "{\"device\":" << quoted(d.info().name) << ",\"group_size\":" << group << ",\"kernels\":[";
  else std::cout << path << " on " << d.info().name << " (" << d.info().backend << ", " << d.info().isa << ")\n";
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Kernel k = m.kernel(names[i]);
    const KernelInfo& info = k.info();
    std::string occupancy, why;
    try {
      occupancy = std::to_string(k.max_active_groups_per_cu(group));
    } catch (const Error& e) {
      occupancy = "null";
      why = e.status();
    }
    if (format == "json") {
      std::cout << (i ? "," : "") << "{\"name\":" << quoted(info.name) << ",\"kernarg_segment_size\":" << info.kernarg_segment_size
                << ",\"group_segment_size\":" << info.group_segment_size << ",\"private_segment_size\":"
                << info.private_segment_size << ",\"vector_registers\":" << info.vector_registers
                << ",\"accum_registers\":" << info.accum_registers << ",\"scalar_registers\":" << info.scalar_registers
                << ",\"vector_spills\":" << info.vector_spills << ",\"scalar_spills\":" << info.scalar_spills
                << ",\"groups_per_cu\":" << occupancy << "}";
    } else {
      std::cout << "  " << info.name << "  kernarg " << info.kernarg_segment_size << " B, group " << info.group_segment_size
                << " B, private " << info.private_segment_size << " B; registers " << info.vector_registers << " vector";
      if (info.accum_registers) std::cout << " + " << info.accum_registers << " accumulation";
      std::cout << ", " << info.scalar_registers << " scalar; spills " << info.vector_spills << " vector, "
                << info.scalar_spills << " scalar; ";
      if (why.empty()) std::cout << occupancy << " groups of " << group << " per CU\n";
      else std::cout << "groups of " << group << " per CU: " << why << "\n";
    }
  }
  if (format == "json") std::cout << "]}\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string format, code_object, target, module;
  std::uint32_t group_size = 256;
  po::options_description desc(
      "hsad-info: the backends (available or why not) and their devices; or the kernels of a code object");
  desc.add_options()("help,h", "this text")
      ("version", "the library's version, and nothing else")
      ("format", po::value(&format)->default_value("table"), "table | json")
      ("code-object", po::value(&code_object), "an AMD code object (ELF) or clang offload bundle to describe")
      ("target", po::value(&target), "with --code-object: only the code object for this processor (gfx90a, ...)")
      ("module", po::value(&module), "an application's module (code object, bundle, cubin, fatbin, PTX) to load on the first device: each kernel's registers, spills, segments and occupancy")
      ("group-size", po::value(&group_size)->default_value(256), "with --module: the work-group size the occupancy is for");
  if (auto status = bench::parse_cli(argc, argv, desc, "hsad-info")) return *status;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--version") {
      std::cout << "hsad-info (libhsadispatch) " << version() << '\n';
      return 0;
    }
  }
  try {
    if (format != "table" && format != "json") {
      throw Error("hsad-info", "--format", "unknown format '" + format + "'", "valid: table, json");
    }
    if (!target.empty() && code_object.empty()) throw Error("hsad-info", "--target", "--target needs --code-object");
    if (!code_object.empty()) return show_code_object(code_object, target, format);
    if (!module.empty()) {
      if (group_size == 0) throw Error("hsad-info", "--group-size", "a work-group of 0 work-items");
      return show_module(module, group_size, format);
    }
    const Listing l = list_devices();
    if (format == "json") print_devices_json(std::cout, l);
    else print_devices_table(std::cout, l);
    return 0;
  } catch (const Error& e) {
    std::cerr << "hsad-info: " << e.what() << '\n';
    return 1;
  }
}
