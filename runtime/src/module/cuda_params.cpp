// .nv.info attributes: a sequence on a 4-byte grid of (u8 format, u8 attribute, value), where
// the value of EIFMT_SVAL (4) is a u16 length and that many bytes, and every other format's value
// fits the entry's remaining 2 bytes. An EIATTR_KPARAM_INFO (0x17) value is u32 index, u16
// ordinal, u16 offset, u32 flags and size.
#include "module/cuda_params.hpp"

#include <elf.h>

#include <algorithm>
#include <cctype>
#include <string>

#include "codeobject/byte_reader.hpp"
#include "codeobject/elf_sections.hpp"
#include "module/module_format.hpp"

namespace hsad::detail {
namespace {
constexpr std::uint8_t kFormatSized = 0x04;     // EIFMT_SVAL
constexpr std::uint8_t kAttrParamInfo = 0x17;  // EIATTR_KPARAM_INFO

std::optional<std::size_t> cubin_param_count(std::string_view elf, std::string_view kernel) {
  using codeobject::read_at;
  const auto eh = read_at<Elf64_Ehdr>(elf, 0, "cubin ELF header");
  const std::string wanted = ".nv.info." + std::string(kernel);
  for (const codeobject::ElfSection& s : codeobject::elf_sections(elf, eh)) {
    if (s.name != wanted) continue;
    std::size_t count = 0;
    for (std::uint64_t at = 0; at + 4 <= s.bytes.size();) {
      const auto format = read_at<std::uint8_t>(s.bytes, at, "nv.info attribute");
      const auto attribute = read_at<std::uint8_t>(s.bytes, at + 1, "nv.info attribute");
      if (format != kFormatSized) {
        at += 4;
        continue;
      }
      const auto length = read_at<std::uint16_t>(s.bytes, at + 2, "nv.info attribute");
      const std::string_view value = codeobject::slice(s.bytes, at + 4, length, "nv.info attribute value");
      if (attribute == kAttrParamInfo) {
        const auto ordinal = read_at<std::uint16_t>(value, 4, "EIATTR_KPARAM_INFO");
        count = std::max<std::size_t>(count, std::size_t(ordinal) + 1);
      }
      at += 4 + ((length + 3u) & ~3u);
    }
    return count;
  }
  return std::nullopt;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' || c == '.'; }

// ".visible .entry name(\n .param .u64 name_param_0,\n ...)": the commas at depth 0 of the list.
// An entry with no parameters has no list, or an empty one.
std::optional<std::size_t> ptx_param_count(std::string_view ptx, std::string_view kernel) {
  for (std::size_t at = ptx.find(".entry"); at != std::string_view::npos; at = ptx.find(".entry", at + 6)) {
    std::size_t name = ptx.find_first_not_of(" \t\r\n", at + 6);
    if (name == std::string_view::npos) break;
    std::size_t end = name;
    while (end < ptx.size() && is_name_char(ptx[end])) ++end;
    if (ptx.substr(name, end - name) != kernel) continue;
    const std::size_t open = ptx.find_first_not_of(" \t\r\n", end);
    if (open == std::string_view::npos || ptx[open] != '(') return 0;
    std::size_t count = 0;
    bool any = false;
    int depth = 0;
    for (std::size_t i = open + 1; i < ptx.size(); ++i) {
      const char c = ptx[i];
      if (c == ')' && depth == 0) return any ? count + 1 : 0;
      if (c == '(' || c == '[') ++depth;
      if (c == ')' || c == ']') --depth;
      if (c == ',' && depth == 0) ++count;
      if (!std::isspace(static_cast<unsigned char>(c))) any = true;
    }
    return std::nullopt;  // the list never closes
  }
  return std::nullopt;
}
}  // namespace

std::optional<std::size_t> cuda_param_count(std::string_view image, std::string_view kernel) {
  switch (detect_module_format(image)) {
    case ModuleFormat::cuda_cubin: return cubin_param_count(image, kernel);
    case ModuleFormat::ptx: return ptx_param_count(image, kernel);
    case ModuleFormat::cuda_fatbin: break;
    default: return std::nullopt;
  }
  const std::vector<FatbinImage> images = fatbin_images(image);
  for (const auto kind : {FatbinImage::Kind::cubin, FatbinImage::Kind::ptx}) {
    for (const FatbinImage& i : images) {
      if (i.kind != kind || i.compressed) continue;
      if (auto n = cuda_param_count(i.payload, kernel)) return n;
    }
  }
  return std::nullopt;
}

}  // namespace hsad::detail
