#include "codeobject/elf_sections.hpp"

#include <string>

#include "codeobject/byte_reader.hpp"

namespace hsad::codeobject {

std::vector<ElfSection> elf_sections(std::string_view elf, const Elf64_Ehdr& eh) {
  std::vector<ElfSection> out;
  if (eh.e_shoff == 0 || eh.e_shnum == 0) return out;
  if (eh.e_shentsize != sizeof(Elf64_Shdr)) malformed("section header size " + std::to_string(eh.e_shentsize));
  slice(elf, eh.e_shoff, std::uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr), "section header table");
  std::vector<std::uint32_t> name_offsets;
  for (std::uint32_t i = 0; i < eh.e_shnum; ++i) {
    const auto sh = read_at<Elf64_Shdr>(elf, eh.e_shoff + std::uint64_t(i) * sizeof(Elf64_Shdr), "section header");
    ElfSection s;
    s.type = sh.sh_type;
    s.link = sh.sh_link;
    s.entsize = sh.sh_entsize;
    if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL) s.bytes = slice(elf, sh.sh_offset, sh.sh_size, "section");
    out.push_back(s);
    name_offsets.push_back(sh.sh_name);
  }
  if (eh.e_shstrndx == SHN_UNDEF || eh.e_shstrndx >= out.size()) return out;
  const std::string_view names = out[eh.e_shstrndx].bytes;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (name_offsets[i] >= names.size()) continue;
    const std::string_view rest = names.substr(name_offsets[i]);
    out[i].name = rest.substr(0, rest.find('\0'));
  }
  return out;
}

}  // namespace hsad::codeobject
