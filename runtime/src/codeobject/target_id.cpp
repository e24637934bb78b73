// AMD target IDs and ROCr's compatibility rule between a code object's target and an agent's ISA.
#include "hsad/code_object.hpp"

namespace hsad {

TargetId TargetId::parse(std::string_view text) {
  TargetId t;
  const auto dashes = text.rfind("--");
  if (dashes != std::string_view::npos) text.remove_prefix(dashes + 2);
  for (std::size_t start = 0, part = 0;; ++part) {
    const auto end = text.find(':', start);
    const std::string_view word = text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part == 0) {
      t.processor = std::string(word);
    } else if (word.size() >= 2 && (word.back() == '+' || word.back() == '-')) {
      const Feature value = word.back() == '+' ? Feature::on : Feature::off;
      const std::string_view name = word.substr(0, word.size() - 1);
      if (name == "sramecc") t.sramecc = value;
      if (name == "xnack") t.xnack = value;
    }
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return t;
}

std::string TargetId::to_string() const {
  std::string s = processor;
  if (sramecc != Feature::any) s += sramecc == Feature::on ? ":sramecc+" : ":sramecc-";
  if (xnack != Feature::any) s += xnack == Feature::on ? ":xnack+" : ":xnack-";
  return s;
}

bool target_compatible(const TargetId& code, const TargetId& agent) {
  auto fits = [](TargetId::Feature c, TargetId::Feature a) {
    return c == TargetId::Feature::any || a == TargetId::Feature::any || c == a;
  };
  return !code.processor.empty() && code.processor == agent.processor && fits(code.sramecc, agent.sramecc) &&
         fits(code.xnack, agent.xnack);
}

}  // namespace hsad
