// Module formats by their magic: ELF with EM_AMDGPU or EM_CUDA, the clang offload bundle's and
// the CUDA fatbin's magic, PTX's ".version" directive.
#include "module/module_format.hpp"

#include <elf.h>

#include <algorithm>
#include <cstring>

#include "codeobject/byte_reader.hpp"
#include "hsad/code_object.hpp"
#include "hsad/error.hpp"

namespace hsad::detail {
namespace {
constexpr std::uint32_t kFatbinMagic = 0xBA55ED50;
constexpr std::uint16_t kFatbinPtx = 1;
constexpr std::uint16_t kFatbinElf = 2;
constexpr std::uint64_t kFatbinCompressed = 0x2000 | 0x8000;  // LZ4 (before CUDA 12.8), zstd
#ifndef EM_CUDA
constexpr std::uint16_t EM_CUDA = 190;
#endif

bool is_elf(std::string_view b) { return b.size() >= sizeof(Elf64_Ehdr) && std::memcmp(b.data(), ELFMAG, SELFMAG) == 0; }

std::uint16_t elf_machine(std::string_view b) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  return eh.e_machine;
}

// A cubin's SM: e_flags bits 8-15 from ELF ABI version 8 (CUDA 12.8 on), bits 0-7 before.
std::string cubin_target(std::string_view b) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, b.data(), sizeof eh);
  const unsigned sm = eh.e_ident[EI_ABIVERSION] >= 8 ? (eh.e_flags >> 8) & 0xff : eh.e_flags & 0xff;
  return "sm_" + std::to_string(sm);
}

std::string ptx_target(std::string_view text) {
  const auto at = text.find(".target");
  if (at == std::string_view::npos) return "PTX";
  auto begin = text.find_first_not_of(" \t", at + 7);
  auto end = text.find_first_of(" \t\r\n,", begin);
  std::string t(text.substr(begin, end - begin));
  if (t.rfind("sm_", 0) == 0) t.replace(0, 3, "compute_");
  return t + " (PTX)";
}
}  // namespace

ModuleFormat detect_module_format(std::string_view b) {
  if (b.empty()) return ModuleFormat::empty;
  if (is_offload_bundle(b)) return ModuleFormat::amd_bundle;
  if (is_elf(b)) {
    const std::uint16_t machine = elf_machine(b);
    if (machine == EM_AMDGPU) return ModuleFormat::amd_elf;
    if (machine == EM_CUDA) return ModuleFormat::cuda_cubin;
    return ModuleFormat::unknown;
  }
  if (b.size() >= 4) {
    std::uint32_t magic;
    std::memcpy(&magic, b.data(), 4);
    if (magic == kFatbinMagic) return ModuleFormat::cuda_fatbin;
  }
  // PTX is text: comments, then ".version". Look in its first few KiB only.
  const std::string_view head = b.substr(0, 8192);
  if (head.find(".version") != std::string_view::npos && head.find('\0') == std::string_view::npos) return ModuleFormat::ptx;
  return ModuleFormat::unknown;
}

bool is_amd(ModuleFormat f) { return f == ModuleFormat::amd_elf || f == ModuleFormat::amd_bundle; }
bool is_cuda(ModuleFormat f) {
  return f == ModuleFormat::cuda_cubin || f == ModuleFormat::cuda_fatbin || f == ModuleFormat::ptx;
}

const char* describe(ModuleFormat f) {
  switch (f) {
    case ModuleFormat::empty: return "empty";
    case ModuleFormat::amd_elf: return "an AMD code object";
    case ModuleFormat::amd_bundle: return "a clang offload bundle of AMD code objects";
    case ModuleFormat::cuda_cubin: return "a CUDA cubin";
    case ModuleFormat::cuda_fatbin: return "a CUDA fatbin";
    case ModuleFormat::ptx: return "PTX";
    default: return "not a code object (neither AMD: ELF or offload bundle, nor CUDA: cubin, fatbin or PTX)";
  }
}

std::string cuda_image_targets(std::string_view b) {
  switch (detect_module_format(b)) {
    case ModuleFormat::cuda_cubin: return cubin_target(b);
    case ModuleFormat::ptx: return ptx_target(b);
    case ModuleFormat::cuda_fatbin: break;
    default: return {};
  }
  std::string out;
  for (const FatbinImage& image : fatbin_images(b)) {
    if (image.kind == FatbinImage::Kind::cubin) out += (out.empty() ? "" : ", ") + std::string("sm_") + std::to_string(image.sm);
    if (image.kind == FatbinImage::Kind::ptx) {
      out += (out.empty() ? "" : ", ") + std::string("compute_") + std::to_string(image.sm) + " (PTX)";
    }
  }
  return out;
}

std::vector<FatbinImage> fatbin_images(std::string_view b) {
  // The fatbin header (magic, version, header size, size of the entries), then entries, each
  // with its own header: kind, version, header size, payload size, compressed size, ..., the SM
  // at offset 28, flags at 40 (0x2000: LZ4, 0x8000: zstd).
  using codeobject::read_at;
  const auto header_size = read_at<std::uint16_t>(b, 6, "fatbin header");
  const auto fat_size = read_at<std::uint64_t>(b, 8, "fatbin header");
  if (header_size < 16 || fat_size > b.size() - std::min<std::uint64_t>(b.size(), header_size)) {
    throw Error("module", "load", "truncated CUDA fatbin: it declares " + std::to_string(fat_size) + " bytes of entries, " +
                                      std::to_string(b.size()) + " bytes in all");
  }
  std::vector<FatbinImage> out;
  for (std::uint64_t at = header_size; at + 32 <= header_size + fat_size;) {
    const auto kind = read_at<std::uint16_t>(b, at, "fatbin entry");
    const auto entry_header = read_at<std::uint32_t>(b, at + 4, "fatbin entry");
    const auto payload = read_at<std::uint64_t>(b, at + 8, "fatbin entry");
    if (entry_header == 0 || !codeobject::in_bounds(at + entry_header, payload, b.size())) break;
    FatbinImage image;
    image.kind = kind == kFatbinElf ? FatbinImage::Kind::cubin : kind == kFatbinPtx ? FatbinImage::Kind::ptx : FatbinImage::Kind::other;
    image.sm = read_at<std::uint32_t>(b, at + 28, "fatbin entry");
    if (entry_header >= 48) image.compressed = (read_at<std::uint64_t>(b, at + 40, "fatbin entry") & kFatbinCompressed) != 0;
    image.payload = b.substr(at + entry_header, payload);
    out.push_back(image);
    at += entry_header + payload;
  }
  return out;
}

}  // namespace hsad::detail
