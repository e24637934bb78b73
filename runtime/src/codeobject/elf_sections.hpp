// The section table of a 64-bit little-endian ELF (an AMDGPU code object or an NVIDIA cubin),
// every offset bounds-checked, with each section's name from the section-name string table.
#pragma once

#include <elf.h>

#include <cstdint>
#include <string_view>
#include <vector>

namespace hsad::codeobject {

struct ElfSection {
  std::string_view name;   // empty where the ELF has no section-name table
  std::string_view bytes;  // empty for SHT_NOBITS and SHT_NULL
  std::uint32_t type = 0;
  std::uint32_t link = 0;
  std::uint64_t entsize = 0;
};

std::vector<ElfSection> elf_sections(std::string_view elf, const Elf64_Ehdr& eh);

}  // namespace hsad::codeobject
