// isa_library_walk: every instruction of the AMD code objects inside host programs and libraries
// (the offload bundles of their .hip_fatbin sections), or in an offload bundle file itself (the
// library's kernels.hsaco), or a code object on its own (rocBLAS's Tensile kernels, `.co` and
// `.hsaco` files loaded at run time), decoded for one target, and each checked against what the
// interpreter implements. Code its authors did not write: Debian's rocRAND and rocSPARSE, and the test
// programs hipcc built from rocPRIM's headers.
//   isa_library_walk --target gfx90a FILE...
// Prints per file the code objects found, the distinct instructions and those the interpreter
// lacks; exits 1 when any file has no code object for the target or an instruction is unknown, 2
// on bad usage.
#include <elf.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "codeobject/elf_sections.hpp"
#include "hsad/code_object.hpp"
#include "program.hpp"
#include "semantics.hpp"

namespace {
using namespace hsad;

std::string read_file(const char* path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

bool is_elf(std::string_view bytes) { return bytes.size() >= sizeof(Elf64_Ehdr) && bytes.compare(0, 4, "\x7f" "ELF") == 0; }

// The executable segment of a code object, and the address it is loaded at.
std::string_view code_of(std::string_view elf, std::uint64_t* address) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph;
    std::memcpy(&ph, elf.data() + eh.e_phoff + std::size_t(i) * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) {
      *address = ph.p_vaddr;
      return elf.substr(ph.p_offset, ph.p_filesz);
    }
  }
  return {};
}

// "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" is a code object of gfx90a (any feature settings).
bool for_target(const std::string& id, const std::string& target) {
  const std::string key = "--" + target;
  const auto at = id.find(key);
  if (at == std::string::npos) return false;
  const auto end = at + key.size();
  return end == id.size() || id[end] == ':';
}

struct Walk {
  int code_objects = 0;
  int generic = 0;  // of them, the family's generic object (the bundle had none for the target)
  std::set<std::string> used, unknown;
  void add(std::string_view elf, const std::string& target) {
    std::uint64_t address = 0;
    const std::string_view code = code_of(elf, &address);
    if (code.empty()) return;
    const isa::Program program(isa::target_for(target), address, code);
    ++code_objects;
    for (const auto& [mnemonic, implemented] : program.mnemonics()) {
      used.insert(mnemonic);
      if (!implemented) unknown.insert(mnemonic);
    }
  }
};

// An AMDGPU code object itself (EM_AMDGPU) for `target`, whatever its features.
bool is_code_object_for(std::string_view file, const std::string& target) {
  if (!is_elf(file)) return false;
  Elf64_Ehdr eh;
  std::memcpy(&eh, file.data(), sizeof eh);
  if (eh.e_machine != EM_AMDGPU) return false;
  try {
    return read_code_object(file).processor == target;
  } catch (const std::exception&) {
    return false;
  }
}

// Every offload bundle in the .hip_fatbin section (a library has one per translation unit).
Walk walk(std::string_view file, const std::string& target) {
  Walk w;
  if (is_code_object_for(file, target)) {
    w.add(file, target);
    return w;
  }
  std::string_view fatbin;
  if (is_offload_bundle(file)) {
    fatbin = file;  // a bundle on its own
  } else {
    Elf64_Ehdr eh;
    std::memcpy(&eh, file.data(), sizeof eh);
    for (const auto& s : codeobject::elf_sections(file, eh)) {
      if (s.name == ".hip_fatbin") fatbin = s.bytes;
    }
  }
  const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
  for (std::size_t at = fatbin.find(magic); at != std::string_view::npos; at = fatbin.find(magic, at + 1)) {
    std::vector<BundleEntry> entries;
    try {
      entries = unbundle(fatbin.substr(at));
    } catch (const std::exception&) {
      continue;  // the magic inside another bundle's bytes
    }
    // The target's own objects, else its family's generic one, as a loader chooses (rocSOLVER 6.4
    // ships gfx90a and gfx908 objects but gfx10-3-generic for gfx1030 and gfx9-4-generic for gfx942).
    bool own = false;
    for (const BundleEntry& e : entries) {
      if (for_target(e.id, target) && is_elf(e.bytes)) w.add(e.bytes, target), own = true;
    }
    const std::string family = hsad::amdgpu_generic_target(target);
    if (own || family.empty()) continue;
    for (const BundleEntry& e : entries) {
      if (for_target(e.id, family) && is_elf(e.bytes)) w.add(e.bytes, target), ++w.generic;
    }
  }
  return w;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || std::string(argv[1]) != "--target") {
    std::fprintf(stderr, "usage: isa_library_walk --target gfx90a|gfx908|gfx1030|... FILE...\n");
    return 2;
  }
  const std::string target = argv[2];
  hsad::isa::register_all_ops();
  int failures = 0;
  for (int a = 3; a < argc; ++a) {
    const std::string bytes = read_file(argv[a]);
    if (!is_elf(bytes) && !is_offload_bundle(bytes)) {
      std::printf("%s: not an ELF file or an offload bundle, or not readable\n", argv[a]);
      ++failures;
      continue;
    }
    const Walk w = walk(bytes, target);
    if (w.code_objects == 0) {
      std::printf("%s: no %s code object, nor its family's generic one (in a .hip_fatbin section, the bundle, or the file itself)\n", argv[a], target.c_str());
      ++failures;
      continue;
    }
    std::string unknown;
    for (const std::string& m : w.unknown) unknown += " " + m;
    const std::string through =
        w.generic ? " (" + std::to_string(w.generic) + " of them " + hsad::amdgpu_generic_target(target) + ")" : "";
    std::printf("%s: %s: %d code objects%s, %zu distinct instructions, unknown:%s\n", argv[a], target.c_str(),
                w.code_objects, through.c_str(), w.used.size(), unknown.empty() ? " none" : unknown.c_str());
    failures += !w.unknown.empty();
  }
  return failures == 0 ? 0 : 1;
}
