// What a module's bytes are, from their first bytes; the targets a CUDA image holds; AMD target
// IDs and ROCr's compatibility rule, and the bundle entry picked for an agent's ISA.
#include <gtest/gtest.h>

#include <fstream>

#include "file_bytes.hpp"
#include "hsad/code_object.hpp"
#include "hsad/error.hpp"
#include "module/module_format.hpp"

using namespace hsad;
using detail::ModuleFormat;

namespace {
std::string module(const char* name) { return test::test_module(name); }
bool have_cuda_modules() { return std::ifstream(std::string(HSAD_MODULES_DIR) + "/module.fatbin").good(); }
}  // namespace

TEST(ModuleFormat, TellsAmdCodeObjectsApart) {
  EXPECT_EQ(detail::detect_module_format(module("bundle.hsaco")), ModuleFormat::amd_bundle);
  EXPECT_EQ(detail::detect_module_format(module("gfx908.hsaco")), ModuleFormat::amd_elf);
  EXPECT_EQ(detail::detect_module_format(test::file_bytes(HSAD_V5_FIXTURE)), ModuleFormat::amd_elf);
}

TEST(ModuleFormat, TellsCudaImagesApartAndListsTheirTargets) {
  if (!have_cuda_modules()) GTEST_SKIP() << "built without nvcc";
  EXPECT_EQ(detail::detect_module_format(module("module.cubin")), ModuleFormat::cuda_cubin);
  EXPECT_EQ(detail::detect_module_format(module("module.fatbin")), ModuleFormat::cuda_fatbin);
  EXPECT_EQ(detail::detect_module_format(module("module.ptx")), ModuleFormat::ptx);
  EXPECT_EQ(detail::cuda_image_targets(module("module.cubin")), "sm_90");
  EXPECT_EQ(detail::cuda_image_targets(module("module.fatbin")), "sm_80, sm_90, compute_90 (PTX)");
  EXPECT_EQ(detail::cuda_image_targets(module("module.ptx")), "compute_80 (PTX)");
}

TEST(ModuleFormat, ATruncatedFatbinIsAnError) {
  if (!have_cuda_modules()) GTEST_SKIP() << "built without nvcc";
  const std::string fatbin = module("module.fatbin");
  EXPECT_THROW(detail::cuda_image_targets(fatbin.substr(0, fatbin.size() / 2)), Error);
}

TEST(ModuleFormat, AnythingElseIsNamedAsSuch) {
  EXPECT_EQ(detail::detect_module_format(""), ModuleFormat::empty);
  EXPECT_EQ(detail::detect_module_format("hello, world"), ModuleFormat::unknown);
  EXPECT_EQ(detail::detect_module_format(test::file_bytes("/bin/sh")), ModuleFormat::unknown);  // an x86 ELF
  EXPECT_NE(std::string(detail::describe(ModuleFormat::unknown)).find("not a code object"), std::string::npos);
}

TEST(TargetId, ParsesFullAndShortNames) {
  const TargetId a = TargetId::parse("amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-");
  EXPECT_EQ(a.processor, "gfx90a");
  EXPECT_EQ(a.sramecc, TargetId::Feature::on);
  EXPECT_EQ(a.xnack, TargetId::Feature::off);
  EXPECT_EQ(a.to_string(), "gfx90a:sramecc+:xnack-");
  const TargetId b = TargetId::parse("hipv4-amdgcn-amd-amdhsa--gfx1030");
  EXPECT_EQ(b.processor, "gfx1030");
  EXPECT_EQ(b.xnack, TargetId::Feature::any);
  EXPECT_EQ(TargetId::parse("gfx908:xnack+").to_string(), "gfx908:xnack+");
}

TEST(TargetId, CompatibleAsROCrMatchesThem) {
  const TargetId agent = TargetId::parse("gfx90a:sramecc+:xnack-");
  EXPECT_TRUE(target_compatible(TargetId::parse("gfx90a"), agent));          // any fits
  EXPECT_TRUE(target_compatible(TargetId::parse("gfx90a:xnack-"), agent));
  EXPECT_FALSE(target_compatible(TargetId::parse("gfx90a:xnack+"), agent));  // fixed the other way
  EXPECT_FALSE(target_compatible(TargetId::parse("gfx908"), agent));
  EXPECT_TRUE(target_compatible(TargetId::parse("gfx90a:xnack+"), TargetId::parse("gfx90a")));  // agent unknown
}

TEST(SelectCodeObject, PicksTheXnackVariantOfTheAgent) {
  const std::string bundle = module("xnack.hsaco");
  EXPECT_EQ(TargetId::parse(read_code_object(select_code_object(bundle, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-")).target).xnack,
            TargetId::Feature::off);
  EXPECT_EQ(TargetId::parse(read_code_object(select_code_object(bundle, "gfx90a:xnack+")).target).xnack,
            TargetId::Feature::on);
  EXPECT_TRUE(select_code_object(bundle, "gfx908").empty());
  EXPECT_EQ(code_object_targets(bundle), "gfx90a:xnack+, gfx90a:xnack-");
}

namespace {
// A clang offload bundle of the given (id, bytes) entries: magic, count, then offset, size,
// id length and id per entry, then the entries' bytes.
std::string make_bundle(const std::vector<std::pair<std::string, std::string>>& entries) {
  std::string head = "__CLANG_OFFLOAD_BUNDLE__";
  auto u64 = [](std::uint64_t v) { return std::string(reinterpret_cast<const char*>(&v), 8); };
  std::size_t header = head.size() + 8;
  for (const auto& e : entries) header += 24 + e.first.size();
  head += u64(entries.size());
  std::string body;
  for (const auto& e : entries) {
    head += u64(header + body.size()) + u64(e.second.size()) + u64(e.first.size()) + e.first;
    body += e.second;
  }
  return head + body;
}
}  // namespace

TEST(SelectCodeObject, PrefersTheEntryThatFixesMoreFeatures) {
  const std::string bundle = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", "generic"},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack-", "fixed"},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx90a:xnack+", "other"}});
  EXPECT_EQ(select_code_object(bundle, "amdgcn-amd-amdhsa--gfx90a:sramecc+:xnack-"), "fixed");
  EXPECT_EQ(select_code_object(bundle, "gfx90a:xnack+"), "other");
  EXPECT_EQ(select_code_object(bundle, "gfx90a"), "fixed");  // agent features unknown: the first most specific
  EXPECT_EQ(select_code_object(make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx90a", "generic"}}), "gfx90a:xnack+"), "generic");
  // The simulated targets' (today's GPUs follow where ROCr 6 runs the tests: gfx942, gfx1100 ...).
  const std::string targets = ", " + code_object_targets(module("bundle.hsaco")) + ",";
  for (const char* t : {"gfx1030", "gfx908", "gfx90a"}) {
    EXPECT_NE(targets.find(std::string(", ") + t + ","), std::string::npos) << t << " in" << targets;
  }
}

TEST(SelectCodeObject, FallsBackToTheFamilysGenericObjectAndSaysWhy) {
  const std::string bundle = make_bundle({{"hipv4-amdgcn-amd-amdhsa--gfx1100", "rx7900"},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx11-generic", "rdna3"},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx9-4-generic:xnack-", "cdna3"},
                                          {"hipv4-amdgcn-amd-amdhsa--gfx90a", "mi200"}});
  // The processor's own object wins over its family's.
  CodeObjectChoice c = choose_code_object(bundle, "amdgcn-amd-amdhsa--gfx1100");
  EXPECT_EQ(c.bytes, "rx7900");
  EXPECT_EQ(c.reason, "built for gfx1100");
  // A family member with no object of its own (a gfx1103 laptop part) runs the generic one.
  c = choose_code_object(bundle, "amdgcn-amd-amdhsa--gfx1103");
  EXPECT_EQ(c.bytes, "rdna3");
  EXPECT_EQ(c.target, "gfx11-generic");
  EXPECT_EQ(c.reason, "no gfx1103 object; gfx11-generic covers gfx1103");
  EXPECT_EQ(select_code_object(bundle, "gfx1151"), "rdna3");
  // The generic object's features must fit as a specific one's would.
  EXPECT_EQ(select_code_object(bundle, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-"), "cdna3");
  EXPECT_TRUE(select_code_object(bundle, "amdgcn-amd-amdhsa--gfx942:sramecc+:xnack+").empty());
  // No family object (gfx908 has none; gfx1201's family has none here): empty, and the reason names both.
  EXPECT_TRUE(select_code_object(bundle, "gfx908").empty());
  c = choose_code_object(bundle, "gfx1201");
  EXPECT_TRUE(c.bytes.empty());
  EXPECT_TRUE(c.target.empty());
  EXPECT_EQ(c.reason, "none for gfx1201 or gfx12-generic");
  // A generic name is not itself a family member.
  EXPECT_EQ(amdgpu_generic_target("gfx11-generic"), "");
  EXPECT_EQ(amdgpu_generic_target("gfx950"), "gfx9-4-generic");
  EXPECT_EQ(amdgpu_generic_target("gfx1036"), "gfx10-3-generic");
  EXPECT_EQ(amdgpu_generic_target("gfx90a"), "");
}
