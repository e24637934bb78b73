// The code-object reader against the toolchain's own view: every kernel of every embedded code
// object, as `llvm-readelf --notes` prints it, must be what the reader yields. Then malformed
// input, which must be an hsad::Error naming the problem.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "hsad/code_object.hpp"
#include "hsad/error.hpp"

using namespace hsad;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

const std::string& bundle() {
  static const std::string b = slurp(HSAD_AMD_BUNDLE);
  return b;
}

// The targets the bundle was built for: those of HSAD_AMDGPU_TARGETS that hipcc or a newer clang knows.
std::vector<std::string> built_targets() {
  std::vector<std::string> out;
  std::istringstream in(HSAD_AMDGPU_BUILT_TARGETS);
  for (std::string t; std::getline(in, t, ',');) out.push_back(t);
  return out;
}

// llvm-readelf's YAML rendering of the metadata, read back line by line: just enough structure
// (kernels, their scalar keys, their args' keys) to compare with.
struct YamlKernel {
  std::map<std::string, std::string> keys;
  std::vector<std::map<std::string, std::string>> args;
};

std::vector<YamlKernel> readelf_kernels(std::string_view elf) {
  char path[] = "/tmp/hsad_co_XXXXXX";
  const int fd = mkstemp(path);
  EXPECT_GE(fd, 0);
  close(fd);
  std::ofstream(path, std::ios::binary).write(elf.data(), std::streamsize(elf.size()));
  const std::string cmd = std::string(HSAD_LLVM_READELF) + " --notes " + path;
  FILE* p = popen(cmd.c_str(), "r");
  std::string text;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  EXPECT_EQ(pclose(p), 0) << cmd;
  std::remove(path);

  std::vector<YamlKernel> out;
  std::istringstream in(text);
  std::string line;
  bool in_args = false;
  while (std::getline(in, line)) {
    const auto dot = line.find('.');
    const auto colon = line.find(':', dot == std::string::npos ? 0 : dot);
    if (line.rfind("  - .", 0) == 0) {  // a new kernel (2 spaces: the kernel list)
      out.emplace_back();
      in_args = false;
    }
    if (out.empty() || dot == std::string::npos || colon == std::string::npos) continue;
    const std::size_t indent = line.find_first_not_of(" -");
    std::string key = line.substr(dot, colon - dot);
    std::string value = line.substr(colon + 1);
    value.erase(0, value.find_first_not_of(' '));
    if (indent == 4 && key != ".args") in_args = false;
    if (key == ".args") {
      in_args = value != "[]";
      continue;
    }
    if (in_args && indent >= 8) {
      if (line.find("- .") != std::string::npos) out.back().args.emplace_back();
      out.back().args.back()[key] = value;
    } else if (indent == 4) {
      out.back().keys[key] = value;
    }
  }
  return out;
}

}  // namespace

TEST(CodeObject, BundleHasOneCodeObjectPerTarget) {
  ASSERT_FALSE(bundle().empty()) << "no bundle at " << HSAD_AMD_BUNDLE;
  std::map<std::string, std::uint32_t> wave;
  for (const CodeObject& co : read_code_objects(bundle())) {
    wave[co.processor] = co.kernels.at(0).info.wavefront_size;
    EXPECT_GE(co.code_object_version, 4u) << co.target;
    EXPECT_EQ(co.kernels.size(), 32u) << co.target;
  }
  // Every target built (HSAD_AMDGPU_BUILT_TARGETS), in HIP's default wavefront: 32 on RDNA (gfx10+).
  std::map<std::string, std::uint32_t> expected;
  for (const std::string& t : built_targets()) expected[t] = t.rfind("gfx1", 0) == 0 && t.size() >= 7 ? 32 : 64;
  EXPECT_EQ(wave, expected);
}

TEST(CodeObject, ReaderAgreesWithLlvmReadelfOnEveryEmbeddedKernel) {
  std::size_t kernels = 0, args = 0;
  for (const BundleEntry& e : unbundle(bundle())) {
    if (e.id.find("amdgcn") == std::string::npos) continue;
    const CodeObject co = read_code_object(e.bytes);
    const std::vector<YamlKernel> yaml = readelf_kernels(e.bytes);
    ASSERT_EQ(yaml.size(), co.kernels.size()) << e.id;
    for (std::size_t i = 0; i < yaml.size(); ++i) {
      const YamlKernel& y = yaml[i];
      const CodeObjectKernel& k = co.kernels[i];
      SCOPED_TRACE(e.id + " " + k.info.name);
      EXPECT_EQ(y.keys.at(".name"), k.info.name);
      EXPECT_EQ(y.keys.at(".symbol"), k.symbol);
      EXPECT_EQ(std::stoul(y.keys.at(".kernarg_segment_size")), k.info.kernarg_segment_size);
      EXPECT_EQ(std::stoul(y.keys.at(".kernarg_segment_align")), k.info.kernarg_segment_align);
      EXPECT_EQ(std::stoul(y.keys.at(".group_segment_fixed_size")), k.info.group_segment_size);
      EXPECT_EQ(std::stoul(y.keys.at(".private_segment_fixed_size")), k.info.private_segment_size);
      EXPECT_EQ(std::stoul(y.keys.at(".wavefront_size")), k.info.wavefront_size);
      EXPECT_EQ(std::stoul(y.keys.at(".max_flat_workgroup_size")), k.info.max_workgroup_size);
      // What the kernel costs (KernelInfo's registers and spills); .agpr_count only where the
      // target has AGPRs.
      EXPECT_EQ(std::stoul(y.keys.at(".vgpr_count")), k.info.vector_registers);
      EXPECT_EQ(std::stoul(y.keys.at(".sgpr_count")), k.info.scalar_registers);
      EXPECT_EQ(std::stoul(y.keys.at(".vgpr_spill_count")), k.info.vector_spills);
      EXPECT_EQ(std::stoul(y.keys.at(".sgpr_spill_count")), k.info.scalar_spills);
      EXPECT_EQ(y.keys.count(".agpr_count") ? std::stoul(y.keys.at(".agpr_count")) : 0ul, k.info.accum_registers);
      // Whole work-groups assumed: hipcc 7 (clang 21) says so of every HIP kernel; hipcc 5.2 never.
      EXPECT_EQ(y.keys.count(".uniform_work_group_size") && y.keys.at(".uniform_work_group_size") == "1",
                k.info.uniform_work_group_size);
      EXPECT_NE(k.descriptor_offset, 0u) << "the .kd symbol was not found";
      ASSERT_EQ(y.args.size(), k.info.args.size());
      for (std::size_t a = 0; a < y.args.size(); ++a) {
        EXPECT_EQ(std::stoul(y.args[a].at(".offset")), k.info.args[a].offset);
        EXPECT_EQ(std::stoul(y.args[a].at(".size")), k.info.args[a].size);
        EXPECT_EQ(y.args[a].at(".value_kind"), k.info.args[a].value_kind);
        ++args;
      }
      ++kernels;
    }
  }
  EXPECT_EQ(kernels, 32u * built_targets().size());  // 32 kernels per target
  EXPECT_GT(args, 200u);
}

TEST(CodeObject, V5ObjectAgreesWithLlvmReadelf) {
  const std::string elf = slurp(HSAD_V5_FIXTURE);
  const CodeObject co = read_code_object(elf);
  EXPECT_EQ(co.code_object_version, 5u);
  EXPECT_EQ(co.processor, "gfx90a");
  const std::vector<YamlKernel> yaml = readelf_kernels(elf);
  ASSERT_EQ(yaml.size(), 1u);
  ASSERT_EQ(yaml[0].args.size(), co.kernels[0].info.args.size());
  for (std::size_t a = 0; a < yaml[0].args.size(); ++a) {
    EXPECT_EQ(yaml[0].args[a].at(".value_kind"), co.kernels[0].info.args[a].value_kind);
    EXPECT_EQ(std::stoul(yaml[0].args[a].at(".offset")), co.kernels[0].info.args[a].offset);
  }
  EXPECT_EQ(co.kernels[0].info.explicit_arg_count(), 1u);
}

TEST(CodeObject, SelectsTheEntryForAProcessor) {
  for (const std::string& p : built_targets()) {
    const std::string_view bytes = select_code_object(bundle(), p);
    ASSERT_FALSE(bytes.empty()) << p;
    EXPECT_EQ(read_code_object(bytes).processor, p);
  }
  EXPECT_TRUE(select_code_object(bundle(), "gfx803").empty());
  EXPECT_TRUE(select_code_object(bundle(), "gfx90").empty());  // a prefix is not a match
}

// Every GPU the default targets name gets a code object: its own where a compiler knew it, else
// its family's generic one (a gfx1103 laptop part runs gfx11-generic's where that was built).
TEST(CodeObject, EveryBuiltTargetsFamilyMemberFindsAnObject) {
  const auto built = built_targets();
  auto has = [&](const std::string& t) { return std::find(built.begin(), built.end(), t) != built.end(); };
  for (const char* p : {"gfx1103", "gfx1150", "gfx1034", "gfx1200", "gfx950"}) {
    const std::string generic = amdgpu_generic_target(p);
    const CodeObjectChoice c = choose_code_object(bundle(), p);
    if (!has(p) && !has(generic)) {
      EXPECT_TRUE(c.bytes.empty()) << p;
      continue;
    }
    ASSERT_FALSE(c.bytes.empty()) << p << ": " << c.reason;
    EXPECT_EQ(read_code_object(c.bytes).processor, has(p) ? std::string(p) : generic) << c.reason;
  }
}

// Malformed input: each case is a real code object with one thing broken.
namespace {
std::string gfx90a() { return std::string(select_code_object(bundle(), "gfx90a")); }

void expect_malformed(const std::string& bytes, const std::string& words) {
  try {
    (void)read_code_objects(bytes);
    ADD_FAILURE() << "accepted; expected an error containing '" << words << "'";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

template <typename T>
void poke(std::string& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof value);
}

// The offset of the metadata note's descriptor in an ELF from our toolchain.
std::size_t metadata_offset(const std::string& elf) {
  const std::size_t at = elf.find(std::string("AMDGPU\0", 7));
  EXPECT_NE(at, std::string::npos);
  return at + 8;
}
}  // namespace

TEST(CodeObject, RefusesEmptyAndTruncatedInput) {
  expect_malformed("", "ELF header");
  expect_malformed(gfx90a().substr(0, 40), "ELF header");
  expect_malformed(gfx90a().substr(0, 2000), "outside");
  expect_malformed(bundle().substr(0, 30), "bundle entry count");
  expect_malformed(bundle().substr(0, 100), "bundle entry");
}

// Objects linked together keep a metadata note each (rocBLAS's Tensile code objects: one per
// kernel): the code object's kernels are all of theirs, as llvm-readelf lists them.
TEST(CodeObject, LinkedObjectsKernelsComeFromEveryNote) {
  const std::string elf = slurp(HSAD_LINKED_FIXTURE);
  std::size_t notes = 0;
  for (std::size_t at = elf.find(std::string("AMDGPU\0", 7)); at != std::string::npos;
       at = elf.find(std::string("AMDGPU\0", 7), at + 1)) {
    ++notes;
  }
  ASSERT_GE(notes, 2u) << "the fixture should hold two metadata notes";
  const CodeObject co = read_code_object(elf);
  EXPECT_EQ(co.processor, "gfx90a");
  std::set<std::string> names, want;
  for (const CodeObjectKernel& k : co.kernels) names.insert(k.info.name);
  for (const YamlKernel& k : readelf_kernels(elf)) want.insert(k.keys.at(".name"));
  EXPECT_EQ(names, want);
  EXPECT_GE(names.size(), 2u);
  for (const CodeObjectKernel& k : co.kernels) EXPECT_NE(k.descriptor_offset, 0u) << k.info.name;
}

// ... and must agree on the target: one note naming another processor is a malformed object.
TEST(CodeObject, RefusesLinkedNotesNamingTwoTargets) {
  std::string elf = slurp(HSAD_LINKED_FIXTURE);
  const std::string target = "amdgcn-amd-amdhsa--gfx90a";
  const std::size_t first = elf.find(target), second = elf.find(target, first + 1);
  ASSERT_NE(second, std::string::npos) << "each note names its target";
  elf.replace(second + target.size() - 2, 2, "08");  // gfx90a -> gfx908
  expect_malformed(elf, "name two targets");
}

TEST(CodeObject, RefusesAnotherMachine) {
  std::string elf = gfx90a();
  poke<std::uint16_t>(elf, 18, 62);  // e_machine = x86-64
  expect_malformed(elf, "not AMDGPU");
}

TEST(CodeObject, RefusesAnAbsurdBundleEntryCount) {
  std::string b = bundle();
  poke<std::uint64_t>(b, 24, ~0ull);
  expect_malformed(b, "claims");
}

TEST(CodeObject, RefusesABundleEntryOutsideTheFile) {
  std::string b = bundle();
  std::uint64_t first_id = 0;  // the first entry's id length ("host-x86_64-unknown-linux--": 27)
  std::memcpy(&first_id, b.data() + 32 + 16, 8);
  poke<std::uint64_t>(b, 32 + 24 + first_id + 8, ~0ull - 4);  // second entry's size, after the first's id
  expect_malformed(b, "outside");
}

TEST(CodeObject, RefusesANoteLongerThanItsSection) {
  std::string elf = gfx90a();
  poke<std::uint32_t>(elf, metadata_offset(elf) - 8 - 12 + 4, 0x7fffffff);  // n_descsz
  expect_malformed(elf, "note descriptor");
}

TEST(CodeObject, RefusesMetadataThatIsNotMsgpack) {
  std::string elf = gfx90a();
  const std::size_t at = metadata_offset(elf);
  elf[at] = char(0xc1);  // the one byte msgpack never uses
  expect_malformed(elf, "not valid msgpack");
}

TEST(CodeObject, RefusesAnArgumentOutsideTheKernargSegment) {
  std::string elf = gfx90a();
  // bitonic_step's kernarg segment is 24 bytes (280 with v5's hidden arguments); make it 2 so its
  // arguments overflow it.
  const std::size_t key = elf.find(".kernarg_segment_size", metadata_offset(elf));
  ASSERT_NE(key, std::string::npos);
  const std::size_t value = key + std::string(".kernarg_segment_size").size();
  // msgpack's unsigned forms: a positive fixint (v4: 24), or uint8/uint16 (v5+: 280 with the hidden
  // arguments); the same width, now 2.
  const auto tag = static_cast<unsigned char>(elf[value]);
  if (tag == 0xcc) {
    elf[value + 1] = 2;
  } else if (tag == 0xcd) {
    elf[value + 1] = 0;
    elf[value + 2] = 2;
  } else {
    ASSERT_LT(tag, 0x80u) << "kernarg_segment_size in an unexpected msgpack form";
    elf[value] = 2;
  }
  expect_malformed(elf, "outside the kernarg segment");
}
