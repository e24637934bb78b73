#include "loaded_code.hpp"

#include <elf.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "aql_packets/hidden_args.hpp"

namespace hsad::isa::testing {

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool HostMemory::allocation(std::uint64_t address, std::uint64_t* base, std::uint64_t* size, std::uint64_t* host_base) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = ranges_.upper_bound(address);
  if (it == ranges_.begin()) return false;
  --it;
  if (address >= it->first + it->second) return false;
  *base = *host_base = it->first;
  *size = it->second;
  return true;
}

void HostMemory::add(const void* p, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_[reinterpret_cast<std::uint64_t>(p)] = bytes;
}

void HostMemory::remove(const void* p) {
  std::lock_guard<std::mutex> lock(mutex_);
  ranges_.erase(reinterpret_cast<std::uint64_t>(p));
}

LoadedCode::LoadedCode(const std::string& elf) : code_object_(read_code_object(elf)) {
  const auto* eh = reinterpret_cast<const Elf64_Ehdr*>(elf.data());
  const auto* ph = reinterpret_cast<const Elf64_Phdr*>(elf.data() + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type == PT_LOAD) image_bytes_ = std::max<std::uint64_t>(image_bytes_, ph[i].p_vaddr + ph[i].p_memsz);
  }
  storage_.reset(new std::uint8_t[image_bytes_ + 256]());
  image_ = reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(storage_.get()) + 255) & ~std::uintptr_t(255));
  const Elf64_Phdr* code = nullptr;
  for (int i = 0; i < eh->e_phnum; ++i) {
    if (ph[i].p_type != PT_LOAD) continue;
    std::memcpy(image_ + ph[i].p_vaddr, elf.data() + ph[i].p_offset, ph[i].p_filesz);
    if (ph[i].p_flags & PF_X) code = &ph[i];
  }
  if (!code) throw std::runtime_error("the code object has no executable segment");
  // gfx10 code is decoded for the wave size its kernels were built for.
  target_ = target_for(code_object_.processor);
  if (target_.gfx10 && !code_object_.kernels.empty()) {
    const auto kd = read_kernel_descriptor(image_ + code_object_.kernels.front().descriptor_offset, target_);
    target_ = target_for(code_object_.processor, !kd.wave32);
  }
  program_ = std::make_unique<Program>(
      target_, base() + code->p_vaddr,
      std::string_view(reinterpret_cast<const char*>(image_ + code->p_vaddr), code->p_memsz));
}

void LoadedCode::run(const std::string& name, Dim3 grid, Dim3 group, const std::vector<Arg>& args, HostMemory& memory,
                     unsigned threads, GlobalWaveSync* cooperative, const std::atomic<bool>* cancel) const {
  const CodeObjectKernel* k = nullptr;
  for (const auto& c : code_object_.kernels) {
    if (c.info.name == name) k = &c;
  }
  if (!k) throw std::runtime_error("no kernel " + name);
  const KernelDescriptor kd = read_kernel_descriptor(image_ + k->descriptor_offset, target_);

  // The kernarg block: explicit arguments at their offsets, hidden ones filled as a dispatcher does.
  // Rounded up as a kernarg pool's blocks are: the compiler's scalar loads may read past the
  // segment's last argument (a dwordx4 load over a 20-byte segment).
  const std::uint32_t kernarg_bytes = (std::max<std::uint32_t>(k->info.kernarg_segment_size, 16) + 255) & ~255u;
  std::vector<std::uint8_t> kernarg(kernarg_bytes + 64, 0);
  auto* block = reinterpret_cast<std::uint8_t*>((reinterpret_cast<std::uintptr_t>(kernarg.data()) + 63) & ~std::uintptr_t(63));
  std::size_t next = 0;
  for (const ArgInfo& a : k->info.args) {
    if (a.kind == ArgKind::hidden) continue;
    if (next >= args.size()) throw std::runtime_error(name + ": too few arguments");
    if (args[next].size() != a.size) throw std::runtime_error(name + ": argument '" + a.name + "' has the wrong size");
    std::memcpy(block + a.offset, args[next].data(), a.size);
    ++next;
  }
  if (next != args.size()) throw std::runtime_error(name + ": too many arguments");
  // hipcc 5.2 lists the hostcall buffer, the heap and the queue pointer in every v5 kernel; these
  // kernels use none of them, so they read zeros here (the library refuses to dispatch them).
  KernelInfo fillable = k->info;
  for (ArgInfo& a : fillable.args) {
    if (a.value_kind == "hidden_hostcall_buffer" || a.value_kind == "hidden_heap_v1" || a.value_kind == "hidden_queue_ptr") {
      a.value_kind = "hidden_none";
    }
  }
  aql::fill_hidden_args(aql::plan_hidden_args(fillable), block, grid, group, aql::HiddenContext{});
  memory.add(block, kernarg_bytes);

  DispatchPacket packet{};
  packet.setup = std::uint16_t(grid.dimensions());
  packet.workgroup_size_x = std::uint16_t(group.x);
  packet.workgroup_size_y = std::uint16_t(group.y);
  packet.workgroup_size_z = std::uint16_t(group.z);
  packet.grid_size_x = grid.x, packet.grid_size_y = grid.y, packet.grid_size_z = grid.z;
  packet.group_segment_size = k->info.group_segment_size;
  packet.private_segment_size = k->info.private_segment_size;
  packet.kernel_object = base() + k->descriptor_offset;
  packet.kernarg_address = reinterpret_cast<std::uint64_t>(block);
  Dispatch dispatch{name, &packet, 0, 0, cancel};
  if (cooperative) {
    dispatch.gws = cooperative;
    try {
      run_grid(*program_, kd, packet.kernel_object, dispatch, memory);
    } catch (...) {
      memory.remove(block);
      throw;
    }
    memory.remove(block);
    return;
  }

  const Dim3 groups{(grid.x + group.x - 1) / group.x, (grid.y + group.y - 1) / group.y, (grid.z + group.z - 1) / group.z};
  std::atomic<std::uint64_t> next_group{0};
  std::mutex error_mutex;
  std::string error;
  auto work = [&] {
    for (;;) {
      const std::uint64_t g = next_group.fetch_add(1);
      if (g >= groups.volume()) return;
      const std::uint32_t id[3] = {std::uint32_t(g % groups.x), std::uint32_t((g / groups.x) % groups.y),
                                   std::uint32_t(g / (std::uint64_t(groups.x) * groups.y))};
      try {
        run_work_group(*program_, kd, packet.kernel_object, dispatch, id, memory);
      } catch (const Fault& f) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (error.empty()) error = f.what();
        next_group.store(groups.volume());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
  memory.remove(block);
  if (!error.empty()) throw Fault(error);
}

std::string project_code_object(const std::string& processor) {
  // A target the library's bundle no longer carries has its own build here (tests/hsad-sim/isa).
  const std::string own = std::string(HSAD_ISA_KERNELS_DIR) + "/project_" + processor + ".co";
  if (std::ifstream(own).good()) return read_file(own);
  const std::string bundle = read_file(HSAD_AMD_BUNDLE);
  const std::string_view entry = select_code_object(bundle, processor);
  if (entry.empty()) throw std::runtime_error("the project's bundle has no code object for " + processor);
  return std::string(entry);
}

}  // namespace hsad::isa::testing
