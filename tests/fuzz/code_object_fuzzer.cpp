// libFuzzer target for the code-object reader: any bytes in, either kernels or hsad::Error out.
// Anything else (a crash, an ASan report, another exception, a huge allocation) is a finding.
// Built and run by scripts/fuzz.sh; tests/fuzz/corpus_replay_test.cpp replays the seeds in CI.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "aql_packets/hidden_args.hpp"
#include "hsad/code_object.hpp"
#include "hsad/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    for (const hsad::CodeObject& co : hsad::read_code_objects(bytes)) {
      for (const hsad::CodeObjectKernel& k : co.kernels) {
        try {
          (void)hsad::aql::plan_hidden_args(k.info);
        } catch (const hsad::Error&) {
        }
      }
    }
    (void)hsad::select_code_object(bytes, "gfx90a");
  } catch (const hsad::Error&) {
  }
  return 0;
}
