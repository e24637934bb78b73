// The project's own kernels (the library's embedded bundle), run by the interpreter on host
// memory for every target: the bitonic sort, the Laplacian Kernels 5 to 8 at every m, the copy
// and the empty kernel (kernel_checks.cpp holds the checks).
#include <gtest/gtest.h>

#include "loaded_code.hpp"

namespace hsad::isa::testing {
namespace {

class ProjectKernels : public ::testing::TestWithParam<const char*> {
 protected:
  static const LoadedCode& code_for(const std::string& processor) {
    static std::map<std::string, std::unique_ptr<LoadedCode>> cache;
    auto& c = cache[processor];
    if (!c) c = std::make_unique<LoadedCode>(project_code_object(processor));
    return *c;
  }
  HostRunner runner{code_for(GetParam())};
};

TEST_P(ProjectKernels, BitonicSortOf32768KeysIn120Dispatches) { check_bitonic(runner); }
TEST_P(ProjectKernels, CopyAndEmpty) { check_copy_and_empty(runner); }
TEST_P(ProjectKernels, EveryLaplacianKernelMatchesTheReferenceBitForBit) { check_laplacian(runner); }

INSTANTIATE_TEST_SUITE_P(Targets, ProjectKernels, ::testing::ValuesIn(project_targets()), TargetName());

}  // namespace
}  // namespace hsad::isa::testing
