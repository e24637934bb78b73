// What a Batch holds, as the library's backends read it: the commands in order, each dispatch's
// shape and arguments, each copy's ranges, each wait's target, the arena of kernarg images. Kept
// out of the public headers so that a field added here changes nothing an application built against.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hsad/batch.hpp"

namespace hsad::detail {

class CompletionImpl;
class QueueImpl;

struct Dispatch {
  Kernel kernel;
  Dim3 grid;   // in work-items, as encoded: whole work-groups unless partial_groups
  Dim3 group;  // work-group size
  bool partial_groups = false;  // recorded by exec_partial_groups (AQL backends only)
  std::uint32_t args_offset = 0;  // where this dispatch's explicit kernarg image starts in the arena
  std::uint64_t args_version = 0;  // Batch::args_version() at its last set_args; 0: as recorded
  LaunchConfig config;             // set_launch_config changes it as set_args the arguments
  // Group memory the dispatch gets: the kernel's static use and config's dynamic bytes (what an
  // AQL packet's group_segment_size says; cuda asks only the dynamic part).
  std::uint32_t group_memory() const { return kernel.info().group_segment_size + config.dynamic_shared_bytes; }
};

enum class CopyKind : std::uint8_t { to_device, to_host, device_to_device };

struct Copy {
  CopyKind kind = CopyKind::to_device;
  void* dst = nullptr;
  const void* src = nullptr;
  std::size_t bytes = 0;
  DeviceImpl* dst_device = nullptr;  // the device owning dst (nullptr: host memory)
  DeviceImpl* src_device = nullptr;  // the device owning src (nullptr: host memory)
  bool host_pinned = false;          // the host side is pinned memory of its buffer's device: no staging
};

// Either one submission's completion, kept alive, or a point on another queue's timeline: its
// submission number k + offset, where k counts the submissions the waiting queue made before.
struct Wait {
  std::shared_ptr<CompletionImpl> completion;  // set: wait for this submission
  std::shared_ptr<QueueImpl> queue;            // else: wait for this queue's submission k + offset
  std::int64_t offset = 0;
  std::uint64_t native = 0;  // else: the application's own signal or event (Batch::wait_native)
};

// A device-run loop (Batch::loop_begin, loop_while): commands [first_command, end_command) are its
// body, all dispatches: [first_dispatch, end_dispatch) of dispatches().
struct Loop {
  std::uint32_t first_command = 0, end_command = 0;
  std::uint32_t first_dispatch = 0, end_dispatch = 0;
  std::uint32_t* condition = nullptr;  // device address of the 32-bit value
  std::uint64_t max_iterations = 0;
  std::uint32_t check_every = 1;  // iterations between two reads of the condition
};

enum class CommandKind : std::uint8_t { exec, copy, wait };
struct Command {
  CommandKind kind;
  std::uint32_t index;  // into dispatches(), copies() or waits()
};

struct BatchData {
  // First, in one cache line: what every submit reads of a batch it has seen before.
  std::vector<Wait> waits;
  std::vector<Loop> loops;        // closed loops, in recording order
  std::int64_t open_loop = -1;    // the command a loop_begin() without its loop_while() starts at
  std::vector<Command> commands;
  std::vector<Dispatch> dispatches;
  std::vector<Copy> copies;
  std::vector<unsigned char> arena;  // every dispatch's explicit-argument kernarg image
  DeviceImpl* device = nullptr;
  std::shared_ptr<const void> code;
  std::shared_ptr<std::vector<std::string>> labels;  // copy-on-write: submissions hold the old one
  std::vector<std::uint32_t> args_changes;           // the last set_args calls' dispatches (at most kArgsChanges)
  std::uint32_t cooperative_dispatches = 0;          // recorded with LaunchConfig::cooperative
  static constexpr std::size_t kArgsChanges = 1024;
};

}  // namespace hsad::detail
