// AMDGPU ELF code objects: header checks, the NT_AMDGPU_METADATA note, and the kernel
// descriptor symbols. Every header field that becomes an offset is bounds-checked first.
#include "hsad/code_object.hpp"

#include <elf.h>

#include <algorithm>
#include <map>
#include <vector>

#include "codeobject/amdgpu_metadata.hpp"
#include "codeobject/byte_reader.hpp"
#include "codeobject/elf_sections.hpp"

namespace hsad {
namespace {
using codeobject::malformed;
using codeobject::read_at;
using codeobject::slice;

constexpr unsigned char kOsAbiAmdgpuHsa = 64;     // ELFOSABI_AMDGPU_HSA
constexpr std::uint32_t kNoteAmdgpuMetadata = 32;  // NT_AMDGPU_METADATA
constexpr std::uint32_t kMachMask = 0xff;          // EF_AMDGPU_MACH

// EF_AMDGPU_MACH values of the processors we build for and their neighbours, for code
// objects (v2, v3) whose metadata does not name the target.
const std::map<std::uint32_t, const char*>& machs() {
  static const std::map<std::uint32_t, const char*> m = {
      {0x2c, "gfx900"}, {0x2f, "gfx906"}, {0x30, "gfx908"}, {0x3f, "gfx90a"}, {0x40, "gfx940"},
      {0x33, "gfx1010"}, {0x36, "gfx1030"}, {0x41, "gfx1100"},
  };
  return m;
}

// "hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-" or "amdgcn-amd-amdhsa--gfx90a" -> "gfx90a".
std::string processor_of(std::string_view target) {
  const auto dashes = target.rfind("--");
  if (dashes == std::string_view::npos) return {};
  std::string_view p = target.substr(dashes + 2);
  return std::string(p.substr(0, p.find(':')));
}

using codeobject::ElfSection;

// Note entries: 4-byte aligned name and descriptor (the AMDGPU backend's alignment).
void read_notes(std::string_view notes, CodeObject& out, bool& found) {
  std::uint64_t pos = 0;
  auto align4 = [](std::uint64_t n) { return (n + 3) & ~std::uint64_t(3); };
  while (pos + sizeof(Elf64_Nhdr) <= notes.size()) {
    const auto nh = read_at<Elf64_Nhdr>(notes, pos, "note header");
    pos += sizeof(Elf64_Nhdr);
    const std::string_view name = slice(notes, pos, nh.n_namesz, "note name");
    pos += align4(nh.n_namesz);
    const std::string_view desc = slice(notes, pos, nh.n_descsz, "note descriptor");
    pos += align4(nh.n_descsz);
    if (nh.n_type == kNoteAmdgpuMetadata && name == std::string_view("AMDGPU\0", 7)) {
      // Objects linked together keep a note each (rocBLAS's Tensile libraries: one per kernel):
      // their kernels are the code object's, and they must agree on its target.
      CodeObject note;
      codeobject::parse_amdgpu_metadata(desc, note);
      if (!note.target.empty() && !out.target.empty() && note.target != out.target) {
        malformed("its NT_AMDGPU_METADATA notes name two targets, " + out.target + " and " + note.target);
      }
      if (out.target.empty()) out.target = note.target;
      for (CodeObjectKernel& k : note.kernels) out.kernels.push_back(std::move(k));
      found = true;
    }
  }
}

// The value of each symbol that names a kernel descriptor ("foo.kd").
std::map<std::string, std::uint64_t, std::less<>> descriptor_symbols(const std::vector<ElfSection>& sections) {
  std::map<std::string, std::uint64_t, std::less<>> out;
  for (const ElfSection& s : sections) {
    if (s.type != SHT_SYMTAB && s.type != SHT_DYNSYM) continue;
    if (s.link >= sections.size()) malformed("symbol table links to section " + std::to_string(s.link));
    const std::string_view strtab = sections[s.link].bytes;
    for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.bytes.size(); off += sizeof(Elf64_Sym)) {
      const auto sym = read_at<Elf64_Sym>(s.bytes, off, "symbol");
      if (sym.st_name >= strtab.size()) continue;
      const std::string_view rest = strtab.substr(sym.st_name);
      const std::string_view name = rest.substr(0, rest.find('\0'));
      if (name.size() > 3 && name.substr(name.size() - 3) == ".kd") out.emplace(std::string(name), sym.st_value);
    }
  }
  return out;
}

}  // namespace

CodeObject read_code_object(std::string_view elf) {
  const auto eh = read_at<Elf64_Ehdr>(elf, 0, "ELF header");
  if (std::string_view(reinterpret_cast<const char*>(eh.e_ident), 4) != std::string_view(ELFMAG, SELFMAG)) {
    malformed("not an ELF file");
  }
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB) malformed("not a 64-bit little-endian ELF");
  if (eh.e_machine != EM_AMDGPU) malformed("ELF machine " + std::to_string(eh.e_machine) + " is not AMDGPU (224)");
  if (eh.e_ident[EI_OSABI] != kOsAbiAmdgpuHsa) malformed("ELF OS ABI is not AMDGPU HSA");

  CodeObject out;
  out.code_object_version = eh.e_ident[EI_ABIVERSION] + 2;  // ELFABIVERSION_AMDGPU_HSA_V2 is 0
  if (out.code_object_version < 3) {
    malformed("code object v" + std::to_string(out.code_object_version) + " has no msgpack metadata (v3 and later only)");
  }

  const std::vector<ElfSection> sections = codeobject::elf_sections(elf, eh);
  bool found = false;
  for (const ElfSection& s : sections) {
    if (s.type == SHT_NOTE) read_notes(s.bytes, out, found);
  }
  if (!found && eh.e_phoff != 0) {  // no section headers (stripped): the PT_NOTE segments
    if (eh.e_phentsize != sizeof(Elf64_Phdr)) malformed("program header size " + std::to_string(eh.e_phentsize));
    for (std::uint32_t i = 0; i < eh.e_phnum; ++i) {
      const auto ph = read_at<Elf64_Phdr>(elf, eh.e_phoff + std::uint64_t(i) * sizeof(Elf64_Phdr), "program header");
      if (ph.p_type == PT_NOTE) read_notes(slice(elf, ph.p_offset, ph.p_filesz, "note segment"), out, found);
    }
  }
  if (!found) malformed("no NT_AMDGPU_METADATA note");

  if (out.target.empty()) {  // v3: the target is only in e_flags
    const auto it = machs().find(eh.e_flags & kMachMask);
    if (it != machs().end()) out.target = std::string("amdgcn-amd-amdhsa--") + it->second;
  }
  out.processor = processor_of(out.target);

  const auto symbols = descriptor_symbols(sections);
  for (CodeObjectKernel& k : out.kernels) {
    if (auto it = symbols.find(k.symbol); it != symbols.end()) k.descriptor_offset = it->second;
  }
  return out;
}

std::vector<CodeObject> read_code_objects(std::string_view bytes) {
  if (!is_offload_bundle(bytes)) return {read_code_object(bytes)};
  std::vector<CodeObject> out;
  for (const BundleEntry& e : unbundle(bytes)) {
    if (e.id.find("amdgcn-") == std::string::npos) continue;  // the (empty) host entry
    CodeObject co = read_code_object(e.bytes);
    if (co.processor.empty()) co.processor = processor_of(e.id);
    out.push_back(std::move(co));
  }
  return out;
}

namespace {
// A bundle's device entries (or the one ELF), each with the target ID it was built for.
std::vector<std::pair<TargetId, std::string_view>> device_entries(std::string_view bytes) {
  std::vector<std::pair<TargetId, std::string_view>> out;
  if (!is_offload_bundle(bytes)) {
    out.emplace_back(TargetId::parse(read_code_object(bytes).target), bytes);
    return out;
  }
  for (const BundleEntry& e : unbundle(bytes)) {
    if (e.id.find("amdgcn-") != std::string::npos) out.emplace_back(TargetId::parse(e.id), e.bytes);
  }
  return out;
}

int fixed_features(const TargetId& t) {
  return (t.sramecc != TargetId::Feature::any) + (t.xnack != TargetId::Feature::any);
}
}  // namespace

namespace {
// Of the entries compatible with `agent` whose processor is `processor`, the one that fixes the
// most features; nullptr where none is.
const std::pair<TargetId, std::string_view>* best_entry(const std::vector<std::pair<TargetId, std::string_view>>& entries,
                                                        const std::string& processor, const TargetId& agent) {
  TargetId as = agent;
  as.processor = processor;
  const std::pair<TargetId, std::string_view>* best = nullptr;
  for (const auto& e : entries) {
    if (!target_compatible(e.first, as) || (best && fixed_features(e.first) <= fixed_features(best->first))) continue;
    best = &e;
  }
  return best;
}
}  // namespace

std::string amdgpu_generic_target(std::string_view processor) {
  // LLVM's AMDGPUUsage, "generic processor" table: the members of each family.
  static const std::map<std::string_view, std::vector<std::string_view>> families = {
      {"gfx9-generic", {"gfx900", "gfx902", "gfx904", "gfx906", "gfx909", "gfx90c"}},
      {"gfx9-4-generic", {"gfx940", "gfx941", "gfx942", "gfx950"}},
      {"gfx10-1-generic", {"gfx1010", "gfx1011", "gfx1012", "gfx1013"}},
      {"gfx10-3-generic", {"gfx1030", "gfx1031", "gfx1032", "gfx1033", "gfx1034", "gfx1035", "gfx1036"}},
      {"gfx11-generic", {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1150", "gfx1151", "gfx1152", "gfx1153"}},
      {"gfx12-generic", {"gfx1200", "gfx1201"}},
  };
  for (const auto& [generic, members] : families) {
    if (std::find(members.begin(), members.end(), processor) != members.end()) return std::string(generic);
  }
  return {};
}

CodeObjectChoice choose_code_object(std::string_view bytes, std::string_view agent_isa) {
  const TargetId agent = TargetId::parse(agent_isa);
  const auto entries = device_entries(bytes);
  CodeObjectChoice c;
  if (const auto* own = best_entry(entries, agent.processor, agent)) {
    c.bytes = own->second;
    c.target = own->first.to_string();
    c.reason = "built for " + c.target;
    return c;
  }
  const std::string generic = amdgpu_generic_target(agent.processor);
  if (!generic.empty()) {
    if (const auto* family = best_entry(entries, generic, agent)) {
      c.bytes = family->second;
      c.target = family->first.to_string();
      c.reason = "no " + agent.processor + " object; " + generic + " covers " + agent.processor;
      return c;
    }
  }
  c.reason = "none for " + agent.to_string() + (generic.empty() ? "" : " or " + generic);
  return c;
}

std::string_view select_code_object(std::string_view bytes, std::string_view agent_isa) {
  return choose_code_object(bytes, agent_isa).bytes;
}

std::string code_object_targets(std::string_view bytes) {
  std::string out;
  for (const auto& entry : device_entries(bytes)) out += (out.empty() ? "" : ", ") + entry.first.to_string();
  return out;
}

}  // namespace hsad
