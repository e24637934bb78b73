// AqlPacketImage: a recorded batch's AQL packets encoded once, for Options::replay. Each packet's
// 64 bytes are ready but for what differs per submission: the completion signal of the last
// packet, the dependency signal of each wait (a barrier-AND packet), and where the agent copies
// outside the ring (rocr), the signals that order its async copies with the ring: the packet
// before a copy signals an edge the copy waits for, and a barrier-AND after it waits for the
// copy's own signal (the batch is split around its copies, as the cuda backend splits graphs).
// Under Options::profile every dispatch's completion is a signal of its own, patched per submit.
// The dispatches' kernarg blocks live in kernarg memory the image owns, written once when it is
// built; a replay writes none. Submitting it (AqlQueue::replay) reserves the slots, copies the
// bodies, patches, and stores every header last with release, in order, ringing the doorbell
// every kDoorbellEvery packets and at the end.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "aql_packets/packet.hpp"
#include "backends/aql/aql_agent.hpp"
#include "hsad/batch.hpp"
#include "hsad/options.hpp"

namespace hsad::detail {

class AqlPacketImage {
 public:
  static constexpr std::uint32_t kDoorbellEvery = 64;  // the processor starts before the copy ends

  static constexpr std::int32_t kAfterCopy = -2;  // Packet::wait: the previous async copy's signal

  struct Packet {
    hsa_kernel_dispatch_packet_t bytes{};  // all 64 bytes; the first 4 (header, setup) go out last
    std::uint16_t header = 0, setup = 0;
    std::uint32_t command = 0;             // which command of the batch: errors name it
    std::int32_t wait = -1;                // a wait: its index among the batch's waits (patched per submit);
                                           // kAfterCopy: the barrier-AND behind an async copy
    std::int32_t copy = -1;                // an async copy, not a ring packet: its index among the copies
    bool edge = false;                     // an async copy follows: its completion is an edge signal
    bool timed = false;                    // a dispatch or ring copy: Options::profile gives it a signal
  };

  // Whether `batch` under `o` goes out as an image: replay with nosync (profiling and copies too).
  // Everything else is lowered by AqlBatchWriter on every submit (docs/api.md).
  static bool replayable(const Batch& batch, const Options& o, const AqlAgent& agent);

  // `queue`: the ring's driver queue (AqlRing::native), what v5's hidden_queue_ptr holds.
  AqlPacketImage(AqlAgent& agent, std::uint64_t queue, const Batch& batch, const Options& o);
  AqlPacketImage(AqlAgent& agent, std::uint64_t queue, std::uint64_t version)  // clone()
      : agent_(agent), queue_(queue), version_(version) {}
  ~AqlPacketImage();
  AqlPacketImage(const AqlPacketImage&) = delete;
  AqlPacketImage& operator=(const AqlPacketImage&) = delete;

  std::uint64_t batch_version() const { return version_; }
  // Batch::args_version() when the kernarg blocks were last brought up to date.
  std::uint64_t args_version() const { return args_version_; }
  // Batch::set_args since: rewrites the kernarg blocks of the dispatches whose arguments changed
  // (nothing else); returns how many. Only for an image no submission in flight reads.
  std::size_t update_args(const Batch& batch);
  // The same image over kernarg memory of its own: for set_args while a submission still reads
  // this one's blocks.
  std::shared_ptr<AqlPacketImage> clone() const;
  // Ring packets and async copies, in the order they go out.
  const std::vector<Packet>& packets() const { return packets_; }
  std::size_t ring_packets() const { return ring_packets_; }
  std::size_t async_copies() const { return async_copies_; }
  std::uint64_t system_fences() const { return system_fences_; }
  std::size_t dispatches() const { return dispatches_; }
  // Ring packets only, none waiting for a signal or signalling an edge: what write_image copies
  // straight, patching only the last completion.
  bool plain() const { return plain_; }
  std::size_t copies() const { return copies_; }  // the batch's, async or in the ring
  // The batch's, when the image was built (a recording fixes both): a replayed submission holds
  // them through its image, one reference count instead of three.
  const std::shared_ptr<const void>& code() const { return code_; }
  const std::vector<std::string>* labels() const { return labels_.get(); }

 private:
  AqlAgent& agent_;
  std::uint64_t queue_ = 0;
  std::uint64_t version_ = 0;
  std::vector<Packet> packets_;
  void* kernarg_ = nullptr;  // every dispatch's block, 64-byte aligned, in one allocation
  std::size_t kernarg_bytes_ = 0;
  std::uint64_t args_version_ = 0;
  struct Block {
    std::size_t packet = 0;          // its dispatch packet
    std::size_t offset = 0;          // into kernarg_
    std::uint64_t args_version = 0;  // the dispatch's Batch::args_version(i) it holds
  };
  std::vector<Block> blocks_;  // one per dispatch, in the batch's order
  std::vector<Block> gws_blocks_;  // hsad_gws_init's before each cooperative dispatch (written once)
  std::uint64_t system_fences_ = 0;
  std::size_t dispatches_ = 0;
  std::size_t ring_packets_ = 0;
  std::size_t async_copies_ = 0;
  bool plain_ = false;
  std::size_t copies_ = 0;
  std::shared_ptr<const void> code_;
  std::shared_ptr<const std::vector<std::string>> labels_;
  void find_plain();
};

}  // namespace hsad::detail
