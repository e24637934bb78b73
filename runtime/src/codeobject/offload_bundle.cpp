// Clang offload bundles: a magic string, an entry count, then (offset, size, id) per entry.
// hipcc --genco writes one with a host entry and one code object per --offload-arch.
#include <string>

#include "codeobject/byte_reader.hpp"
#include "hsad/code_object.hpp"

namespace hsad {

namespace {
constexpr std::string_view kBundleMagic = "__CLANG_OFFLOAD_BUNDLE__";
constexpr std::uint64_t kMaxEntries = 1024;  // no real bundle is near this; a corrupt count is
}  // namespace

bool is_offload_bundle(std::string_view bytes) { return bytes.substr(0, kBundleMagic.size()) == kBundleMagic; }

std::vector<BundleEntry> unbundle(std::string_view bundle) {
  using codeobject::malformed;
  using codeobject::read_at;
  if (!is_offload_bundle(bundle)) malformed("not a clang offload bundle (no __CLANG_OFFLOAD_BUNDLE__ magic)");
  std::uint64_t pos = kBundleMagic.size();
  const auto count = read_at<std::uint64_t>(bundle, pos, "bundle entry count");
  pos += 8;
  if (count > kMaxEntries) malformed("bundle claims " + std::to_string(count) + " entries");
  std::vector<BundleEntry> entries;
  for (std::uint64_t i = 0; i < count; ++i) {
    const auto offset = read_at<std::uint64_t>(bundle, pos, "bundle entry offset");
    const auto size = read_at<std::uint64_t>(bundle, pos + 8, "bundle entry size");
    const auto id_size = read_at<std::uint64_t>(bundle, pos + 16, "bundle entry id length");
    pos += 24;
    const std::string_view id = codeobject::slice(bundle, pos, id_size, "bundle entry id");
    pos += id_size;
    entries.push_back({std::string(id), codeobject::slice(bundle, offset, size, "bundle entry")});
  }
  return entries;
}

}  // namespace hsad
