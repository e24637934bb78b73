// saxpy-pipeline: an application dispatching kernels of its own through libhsadispatch. One
// batch copies two vectors in, runs saxpy then square, and copies the result out: one
// submission, one wait, on the best device present. On a GPU the kernels come from the code
// this project built (an AMD code object bundle, a CUDA fatbin); on the cpu agent from host
// functions registered under the same names.
//
//   saxpy-pipeline [auto|rocr|cuda|cpu]
#include <hsad/hsad.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace {
constexpr unsigned kN = 1u << 20;
constexpr float kA = 2.5f;

// The cpu agent's builds of the two kernels: one call per work-group, arguments read from the
// dispatch's kernarg memory exactly as the GPU kernels read them.
struct SaxpyArgs {
  float* y;
  const float* x;
  float a;
  unsigned n;
};
struct SquareArgs {
  float* y;
  unsigned n;
};

void saxpy_host(const hsad::WorkGroup& wg) {
  const auto& a = wg.args<SaxpyArgs>();
  for (unsigned i = wg.first_x(); i < wg.end_x() && i < a.n; ++i) a.y[i] = a.a * a.x[i] + a.y[i];
}

void square_host(const hsad::WorkGroup& wg) {
  const auto& a = wg.args<SquareArgs>();
  for (unsigned i = wg.first_x(); i < wg.end_x() && i < a.n; ++i) a.y[i] = a.y[i] * a.y[i];
}

std::string program_dir() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  std::string path = n > 0 ? std::string(buf, std::size_t(n)) : std::string(".");
  return path.substr(0, path.find_last_of('/'));
}

// The kernels for this device: loaded from the code this project built, or the host builds.
struct Kernels {
  hsad::Module module;  // empty on the cpu agent
  hsad::Kernel saxpy, square;
};

Kernels kernels_for(const hsad::Device& device) {
  const std::string& backend = device.info().backend;
  if (backend == "cpu") {
    hsad::register_host_kernel(hsad::make_host_kernel<SaxpyArgs>(
        "saxpy", &saxpy_host,
        {hsad::host_arg("y", &SaxpyArgs::y), hsad::host_arg("x", &SaxpyArgs::x), hsad::host_arg("a", &SaxpyArgs::a),
         hsad::host_arg("n", &SaxpyArgs::n)}));
    hsad::register_host_kernel(hsad::make_host_kernel<SquareArgs>(
        "square", &square_host, {hsad::host_arg("y", &SquareArgs::y), hsad::host_arg("n", &SquareArgs::n)}));
    return {{}, device.kernel("saxpy"), device.kernel("square")};
  }
  // The build puts the code objects next to the program.
  const std::string path = program_dir() + (backend == "rocr" ? "/saxpy.hsaco" : "/saxpy.fatbin");
  hsad::Module m = device.load_module(path);
  std::printf("module %s: %s\n", path.c_str(), m.target().c_str());
  return {m, m.kernel("saxpy"), m.kernel("square")};
}
}  // namespace

int main(int argc, char** argv) {
  try {
    const hsad::Runtime rt = hsad::Runtime::open(argc > 1 ? argv[1] : "auto");
    const hsad::Device& device = rt.device();
    std::printf("device: %s (%s)\n", device.info().name.c_str(), rt.backend().c_str());
    const Kernels k = kernels_for(device);

    std::vector<float> x(kN), y(kN), out(kN);
    for (unsigned i = 0; i < kN; ++i) x[i] = float(i % 1000) * 0.001f, y[i] = float(i % 7);
    hsad::Buffer dx = device.alloc(kN * sizeof(float)), dy = device.alloc(kN * sizeof(float));

    hsad::Batch batch;  // recorded once; submitted as often as wanted
    batch.copy_to_device(dx, x.data(), kN * sizeof(float))
        .copy_to_device(dy, y.data(), kN * sizeof(float))
        .exec(k.saxpy, {kN}, {256}, {dy, dx, kA, kN})
        .exec(k.square, {kN}, {256}, {dy, kN})
        .copy_to_host(out.data(), dy, kN * sizeof(float));
    hsad::Queue queue = device.create_queue();
    hsad::Options options = hsad::Options{};
    options.profile = true;
    hsad::Submission s = queue.submit(batch, options);
    s.wait();

    unsigned wrong = 0;
    for (unsigned i = 0; i < kN; ++i) {
      const float expect = (kA * x[i] + y[i]) * (kA * x[i] + y[i]);
      wrong += std::fabs(out[i] - expect) > 1e-4f * std::fabs(expect) + 1e-6f;
    }
    for (const hsad::CommandTime& t : s.timestamps()) {
      std::printf("  %-15s %9.1f us\n", t.what.c_str(), double(t.end_ns - t.start_ns) / 1e3);
    }
    const hsad::Stats st = device.stats();
    std::printf("%u values, %u wrong; %llu host wait(s), %llu doorbell(s)\n", kN, wrong,
                static_cast<unsigned long long>(st.host_waits), static_cast<unsigned long long>(st.doorbells));
    return wrong == 0 ? 0 : 1;
  } catch (const hsad::Error& e) {
    std::fprintf(stderr, "saxpy-pipeline: %s\n", e.what());
    return 2;
  }
}
