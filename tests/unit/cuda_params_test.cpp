// A CUDA kernel's parameter count read from its image: cubin, PTX, fatbin and compressed fatbin
// built by nvcc from tests/modules/param_kernels.cu; every kernel of the library's embedded fatbin
// against the host kernel of the same name; and malformed input.
#include <gtest/gtest.h>

#include <elf.h>

#include <cstring>
#include <fstream>

#include "codeobject/elf_sections.hpp"
#include "file_bytes.hpp"
#include "hsad/error.hpp"
#include "hsad/host_kernel.hpp"
#include "module/cuda_params.hpp"
#include "module/module_format.hpp"

extern "C" const unsigned char hsad_cuda_fatbin[];
extern "C" const unsigned long long hsad_cuda_fatbin_size;

using namespace hsad;
using detail::cuda_param_count;

namespace {
bool have_param_modules() { return std::ifstream(std::string(HSAD_MODULES_DIR) + "/params.cubin").good(); }

// The kernels of a cubin: the names of its ".nv.info.<kernel>" sections.
std::vector<std::string> cubin_kernels(std::string_view elf) {
  Elf64_Ehdr eh;
  std::memcpy(&eh, elf.data(), sizeof eh);
  std::vector<std::string> out;
  const std::string_view prefix = ".nv.info.";
  for (const auto& s : codeobject::elf_sections(elf, eh)) {
    if (s.name.substr(0, prefix.size()) == prefix) out.emplace_back(s.name.substr(prefix.size()));
  }
  return out;
}
}  // namespace

TEST(CudaParams, CountedInEveryImageKind) {
  if (!have_param_modules()) GTEST_SKIP() << "built without nvcc";
  for (const char* file : {"params.cubin", "params.ptx", "params.fatbin"}) {
    SCOPED_TRACE(file);
    const std::string image = test::test_module(file);
    EXPECT_EQ(cuda_param_count(image, "params_none"), 0u);
    EXPECT_EQ(cuda_param_count(image, "params_scalars"), 3u);
    EXPECT_EQ(cuda_param_count(image, "params_struct"), 4u);
    EXPECT_EQ(cuda_param_count(image, "params_absent"), std::nullopt);
    EXPECT_EQ(cuda_param_count(image, "params"), std::nullopt);  // a prefix of every name is no name
  }
}

TEST(CudaParams, AFatbinOfCompressedImagesCannotTell) {
  if (!have_param_modules()) GTEST_SKIP() << "built without nvcc";
  const std::string image = test::test_module("params-compressed.fatbin");
  const auto images = detail::fatbin_images(image);
  ASSERT_EQ(images.size(), 3u);  // sm_80, sm_90, compute_90
  for (const auto& i : images) EXPECT_TRUE(i.compressed);
  EXPECT_EQ(cuda_param_count(image, "params_scalars"), std::nullopt);
  // nvcc's default fatbin compresses its PTX and leaves the cubins readable.
  for (const auto& i : detail::fatbin_images(test::test_module("params.fatbin"))) {
    EXPECT_EQ(i.compressed, i.kind == detail::FatbinImage::Kind::ptx) << "sm " << i.sm;
  }
}

TEST(CudaParams, TheEmbeddedKernelsTakeWhatTheirHostTwinsTake) {
  if (hsad_cuda_fatbin_size == 0) GTEST_SKIP() << "built without nvcc";
  const std::string_view fatbin(reinterpret_cast<const char*>(hsad_cuda_fatbin), hsad_cuda_fatbin_size);
  std::vector<std::string> kernels;
  for (const auto& i : detail::fatbin_images(fatbin)) {
    if (i.kind == detail::FatbinImage::Kind::cubin && !i.compressed) kernels = cubin_kernels(i.payload);
  }
  std::size_t compared = 0;
  for (const std::string& name : kernels) {
    const HostKernel* host = find_host_kernel(name);
    if (!host) continue;
    EXPECT_EQ(cuda_param_count(fatbin, name), host->info.args.size()) << name;
    ++compared;
  }
  // The sort's three kernels, the empty kernel, the copy, Kernels 5-8 for each M, memory-bench's.
  EXPECT_GE(compared, 20u) << "of " << kernels.size() << " kernels in the fatbin";
}

TEST(CudaParams, PtxListsAreReadWithTheirBracketsAndAligns) {
  const std::string ptx = ".version 8.0\n.target sm_80\n.address_size 64\n"
                          ".visible .entry a(\n\t.param .align 8 .b8 a_param_0[16],\n\t.param .u64 a_param_1\n)\n{ ret; }\n"
                          ".visible .entry b()\n{ ret; }\n.visible .entry c\n{ ret; }\n"
                          ".visible .entry d(\n\t.param .u32 d_param_0\n";
  EXPECT_EQ(cuda_param_count(ptx, "a"), 2u);
  EXPECT_EQ(cuda_param_count(ptx, "b"), 0u);
  EXPECT_EQ(cuda_param_count(ptx, "c"), 0u);
  EXPECT_EQ(cuda_param_count(ptx, "d"), std::nullopt);  // the list never closes
}

TEST(CudaParams, AMalformedCubinIsAnError) {
  if (!have_param_modules()) GTEST_SKIP() << "built without nvcc";
  std::string cubin = test::test_module("params.cubin");
  // A KPARAM_INFO attribute whose length runs past its section.
  const std::string kparam("\x04\x17\x0c\x00", 4);
  const auto at = cubin.find(kparam);
  ASSERT_NE(at, std::string::npos);
  cubin[at + 2] = '\xff';
  cubin[at + 3] = '\x7f';
  try {
    cuda_param_count(cubin, "params_struct");
    cuda_param_count(cubin, "params_scalars");
    FAIL() << "a cubin with a broken attribute was read";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("nv.info attribute value"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cuda_param_count(std::string_view(cubin).substr(0, 16), "params_none"), std::nullopt);  // not even an ELF header
}
