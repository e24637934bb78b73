// What the interpreter lacks in a library: every gfx90a, gfx908 and gfx1030 code object in its
// .hip_fatbin section decoded (isa::Program), the mnemonics it does not implement listed per target.
// Build and run (from the repository root, after building build/default):
//   g++ -O1 -std=c++17 -Iruntime/include -Ibuild/default/include -Iruntime/src -Isim/isa \
//     docs/measurements/amd-libraries-2026-11-25/isa_walk.cpp build/default/sim/isa/libhsad_isa.a \
//     build/default/runtime/libhsadispatch_static.a /usr/lib/llvm-15/lib/libLLVM-15.so -lpthread -ldl -o /tmp/isa_walk
//   /tmp/isa_walk /usr/lib/x86_64-linux-gnu/librocrand.so.1 /usr/lib/x86_64-linux-gnu/librocsparse.so.0
#include <elf.h>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include "hsad/code_object.hpp"
#include "codeobject/elf_sections.hpp"
#include "program.hpp"
using namespace hsad;
static std::string_view text_of(std::string_view elf, std::uint64_t* vaddr) {
  Elf64_Ehdr eh; std::memcpy(&eh, elf.data(), sizeof eh);
  for (int i = 0; i < eh.e_phnum; ++i) {
    Elf64_Phdr ph; std::memcpy(&ph, elf.data() + eh.e_phoff + i * sizeof ph, sizeof ph);
    if (ph.p_type == PT_LOAD && (ph.p_flags & PF_X)) { *vaddr = ph.p_vaddr; return elf.substr(ph.p_offset, ph.p_filesz); }
  }
  return {};
}
int main(int argc, char** argv) {
  for (int a = 1; a < argc; ++a) {
    std::ifstream f(argv[a], std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), {});
    if (bytes.size() < sizeof(Elf64_Ehdr) || bytes.compare(0, 4, "\x7f" "ELF") != 0) {
      std::fprintf(stderr, "%s: not an ELF file (or not readable)\n", argv[a]);
      return 1;
    }
    Elf64_Ehdr eh; std::memcpy(&eh, bytes.data(), sizeof eh);
    std::string_view fat;
    for (auto& s : codeobject::elf_sections(bytes, eh)) if (s.name == ".hip_fatbin") fat = s.bytes;
    if (fat.empty()) std::fprintf(stderr, "%s: no .hip_fatbin section\n", argv[a]);
    std::map<std::string, std::map<std::string, int>> unknown;  // target -> mnemonic -> code objects
    std::map<std::string, int> objects, mnems;
    const std::string magic = "__CLANG_OFFLOAD_BUNDLE__";
    for (size_t pos = fat.find(magic); pos != std::string_view::npos; pos = fat.find(magic, pos + 1)) {
      std::vector<BundleEntry> entries;
      try { entries = unbundle(fat.substr(pos)); } catch (const std::exception& e) { continue; }
      for (auto& e : entries) {
        for (const char* t : {"gfx90a", "gfx908", "gfx1030"}) {
          const std::string id = e.id;
          const auto at = id.find(std::string("--") + t);
          if (at == std::string::npos || (id.size() > at + 2 + strlen(t) && id[at + 2 + strlen(t)] != ':')) continue;
          std::uint64_t vaddr = 0;
          auto text = text_of(e.bytes, &vaddr);
          if (text.empty()) continue;
          isa::Program p(isa::target_for(t), vaddr, text);
          ++objects[t];
          for (auto& [m, ok] : p.mnemonics()) { ++mnems[t]; if (!ok) ++unknown[t][m]; }
        }
      }
    }
    std::printf("%s:\n", argv[a]);
    for (auto& [t, n] : objects) {
      std::printf("  %s: %d code objects, unknown:", t.c_str(), n);
      for (auto& [m, c] : unknown[t]) std::printf(" %s", m.c_str());
      std::printf("\n");
    }
  }
}
