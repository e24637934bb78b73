// What the library reports of tests/modules/app_kernels.cu's kernels on the first GPU backend:
// registers, spills, static shared memory, and work-groups per CU (SM) at a few group sizes and
// dynamic shared memory. Usage: kernel_cost MODULE (app.hsaco on rocr, app.fatbin on cuda).
#include <cstdio>

#include "hsad/hsad.hpp"

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  hsad::Runtime rt = hsad::Runtime::open();
  const hsad::Device& d = rt.device();
  const hsad::Module m = d.load_module(argv[1]);
  std::printf("device,kernel,vector_registers,scalar_registers,vector_spills,private_bytes,static_shared,group,dynamic,groups_per_cu\n");
  for (const std::string& name : m.kernel_names()) {
    const hsad::Kernel k = m.kernel(name);
    const hsad::KernelInfo& i = k.info();
    for (std::uint32_t group : {64u, 256u}) {
      for (std::uint32_t dynamic : {0u, 16384u, 65536u}) {
        std::printf("%s,%s,%u,%u,%u,%u,%u,%u,%u,", d.info().name.c_str(), name.c_str(), i.vector_registers,
                    i.scalar_registers, i.vector_spills, i.private_segment_size, i.group_segment_size, group, dynamic);
        try {
          std::printf("%u\n", k.max_active_groups_per_cu(group, dynamic));
        } catch (const hsad::Error& e) {
          std::printf("\"%s\"\n", e.what());
        }
      }
    }
  }
}
