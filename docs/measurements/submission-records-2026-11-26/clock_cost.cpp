// What one std::chrono::steady_clock::now() costs here (the read a submit no longer makes where
// it does not wait): 10^7 reads timed as one.
#include <chrono>
#include <cstdio>
int main() {
  const auto t0 = std::chrono::steady_clock::now();
  long sink = 0;
  for (int i = 0; i < 10000000; ++i) sink += std::chrono::steady_clock::now().time_since_epoch().count() & 1;
  const auto t1 = std::chrono::steady_clock::now();
  std::printf("%.1f ns per now() (%ld)\n", std::chrono::duration<double, std::nano>(t1 - t0).count() / 1e7, sink);
}
