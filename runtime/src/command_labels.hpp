// Which commands of a batch an error concerns, by name: "command 3 of 7 (bitonic_step)", or where
// the backend only knows a range, "one of commands 3-5 of 7: bitonic_step x3".
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hsad::detail {

// One label per command of a batch: the kernel's name, "copy_to_device", "copy_to_host", "copy"
// or "wait". Shared by the batch and its submissions (copy-on-write as the batch grows).
using CommandLabels = std::vector<std::string>;

// `first` and `last` are 0-based and inclusive; the text counts from 1, as people do.
std::string describe_commands(const CommandLabels& labels, std::size_t first, std::size_t last);
// Every command: "bitonic_step x120" style, for a whole submission.
std::string summarize_commands(const CommandLabels& labels);
// "submission 3 of the queue (bitonic_step x120)": how errors name a submission (labels may be null).
std::string describe_submission(std::uint64_t serial, const CommandLabels* labels);

}  // namespace hsad::detail
