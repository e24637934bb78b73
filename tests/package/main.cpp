// Sorts 1024 keys through the installed library on the cpu agent.
#include <hsad/hsad.hpp>

#include <algorithm>
#include <cstdio>
#include <vector>

int main() {
  hsad::Runtime rt = hsad::Runtime::open("cpu");
  const hsad::Device& dev = rt.device();
  const std::uint32_t n = 1024;
  std::vector<std::uint32_t> keys(n);
  for (std::uint32_t i = 0; i < n; ++i) keys[i] = (i * 2654435761u) >> 7;
  hsad::Buffer buf = dev.alloc(n * 4);
  dev.copy_to_device(buf, keys.data(), n * 4);
  hsad::Batch batch;
  const hsad::Kernel step = dev.kernel("bitonic_step");
  for (std::uint32_t stage = 0; (2u << stage) <= n; ++stage)
    for (std::uint32_t pass = 0; pass <= stage; ++pass) batch.exec(step, {n / 2}, {256}, {buf, stage, pass, 1u, n});
  dev.create_queue().run(batch, hsad::Options{});
  dev.copy_to_host(keys.data(), buf, n * 4);
  const bool ok = std::is_sorted(keys.begin(), keys.end());
  std::printf("consumer: %s\n", ok ? "sorted" : "NOT sorted");
  return ok ? 0 : 1;
}
