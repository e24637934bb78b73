#include "sim_code_object.hpp"

#include <elf.h>

#include <cstring>

#include "sim_memory.hpp"

namespace hsad::sim {

std::optional<LoadedCodeObject> LoadedCodeObject::at(std::uint64_t address) {
  LoadedCodeObject c;
  if (!find_allocation(address, &c.base_, &c.size_) || c.size_ < sizeof(Elf64_Ehdr)) return std::nullopt;
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(c.base_);
  if (std::memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_machine != EM_AMDGPU) return std::nullopt;
  if (!c.inside(eh->e_phoff, std::uint64_t(eh->e_phnum) * sizeof(Elf64_Phdr))) return std::nullopt;
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(c.base_ + eh->e_phoff);
  std::uint64_t hash = 0;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_DYNAMIC || !c.inside(ph[i].p_vaddr, ph[i].p_memsz)) continue;
    const auto* d = reinterpret_cast<const Elf64_Dyn*>(c.base_ + ph[i].p_vaddr);
    const std::uint64_t n = ph[i].p_memsz / sizeof(Elf64_Dyn);
    for (std::uint64_t k = 0; k < n && d[k].d_tag != DT_NULL; ++k) {
      if (d[k].d_tag == DT_SYMTAB) c.symtab_ = d[k].d_un.d_ptr;
      if (d[k].d_tag == DT_STRTAB) c.strtab_ = d[k].d_un.d_ptr;
      if (d[k].d_tag == DT_HASH) hash = d[k].d_un.d_ptr;
    }
  }
  if (c.symtab_ && c.strtab_ && hash && c.inside(hash, 8)) {
    const std::uint32_t count = reinterpret_cast<const std::uint32_t*>(c.base_ + hash)[1];  // nchain
    if (c.inside(c.symtab_, std::uint64_t(count) * sizeof(Elf64_Sym))) c.symbols_ = count;
  }
  return c;
}

std::string LoadedCodeObject::kernel_at(std::uint64_t descriptor) const {
  const auto* syms = reinterpret_cast<const Elf64_Sym*>(base_ + symtab_);
  for (std::uint64_t i = 0; i < symbols_; ++i) {
    if (base_ + syms[i].st_value != descriptor || !inside(strtab_ + syms[i].st_name, 1)) continue;
    const char* s = reinterpret_cast<const char*>(base_ + strtab_ + syms[i].st_name);
    const std::string name(s, strnlen(s, size_ - (strtab_ + syms[i].st_name)));
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) return name.substr(0, name.size() - 3);
  }
  return {};
}

bool LoadedCodeObject::function(const std::string& name, std::uint64_t* address, std::uint64_t* bytes) const {
  const auto* syms = reinterpret_cast<const Elf64_Sym*>(base_ + symtab_);
  for (std::uint64_t i = 0; i < symbols_; ++i) {
    if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC || !inside(strtab_ + syms[i].st_name, name.size() + 1)) continue;
    if (std::memcmp(reinterpret_cast<const char*>(base_ + strtab_ + syms[i].st_name), name.c_str(), name.size() + 1) != 0) continue;
    if (!inside(syms[i].st_value, syms[i].st_size)) return false;
    *address = base_ + syms[i].st_value;
    *bytes = syms[i].st_size;
    return true;
  }
  return false;
}

bool LoadedCodeObject::code_segment(std::uint64_t* address, std::uint64_t* bytes) const {
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(base_);
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(base_ + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) || !inside(ph[i].p_vaddr, ph[i].p_memsz)) continue;
    *address = base_ + ph[i].p_vaddr;
    *bytes = ph[i].p_memsz;
    return true;
  }
  return false;
}

}  // namespace hsad::sim
