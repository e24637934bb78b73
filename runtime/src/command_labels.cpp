#include "command_labels.hpp"

namespace hsad::detail {
namespace {
// Runs of one name collapse: "a x3, b, a".
std::string runs(const CommandLabels& labels, std::size_t first, std::size_t last) {
  std::string text;
  for (std::size_t i = first; i <= last && i < labels.size();) {
    std::size_t j = i;
    while (j + 1 <= last && j + 1 < labels.size() && labels[j + 1] == labels[i]) ++j;
    if (!text.empty()) text += ", ";
    text += labels[i];
    if (j > i) text += " x" + std::to_string(j - i + 1);
    i = j + 1;
  }
  return text;
}
}  // namespace

std::string describe_commands(const CommandLabels& labels, std::size_t first, std::size_t last) {
  const std::string of = " of " + std::to_string(labels.size());
  if (labels.empty() || first >= labels.size()) return "no command";
  if (last >= labels.size()) last = labels.size() - 1;
  if (first == last) return "command " + std::to_string(first + 1) + of + " (" + labels[first] + ")";
  return "one of commands " + std::to_string(first + 1) + "-" + std::to_string(last + 1) + of + ": " +
         runs(labels, first, last);
}

std::string summarize_commands(const CommandLabels& labels) {
  return labels.empty() ? std::string("no command") : runs(labels, 0, labels.size() - 1);
}

std::string describe_submission(std::uint64_t serial, const CommandLabels* labels) {
  return "submission " + std::to_string(serial) + " of the queue (" +
         (labels ? summarize_commands(*labels) : std::string("no command")) + ")";
}

}  // namespace hsad::detail
