// Options from text and the benchmark ladder. The ladder order is the seed's: signal, kernarg,
// nosync, fence, pinned; replay (CUDA graphs, AQL packet images) comes last.
#include "hsad/options.hpp"

#include <array>

#include "hsad/error.hpp"

namespace hsad {
namespace {
using Flag = bool Options::*;
constexpr std::array<Flag, 6> kFlags = {&Options::signal, &Options::kernarg, &Options::nosync,
                                        &Options::fence,  &Options::pinned,  &Options::replay};

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return std::string(s);
}

std::string valid_list() {
  std::string v = "all, none";
  for (auto& n : option_names()) v += ", " + n;
  return v;
}
}  // namespace

const std::vector<std::string>& option_names() {
  static const std::vector<std::string> names = {"signal", "kernarg", "nosync", "fence", "pinned", "replay"};
  return names;
}

Options Options::none() {
  Options o;
  for (Flag f : kFlags) o.*f = false;
  return o;
}

Options Options::all() {
  Options o;
  for (Flag f : kFlags) o.*f = true;
  return o;
}

Options Options::parse(std::string_view text) {
  const std::string whole = trim(text);
  if (whole.empty()) throw Error("options", "parse", "empty optimization list", "valid: " + valid_list());
  if (whole == "all") return all();
  if (whole == "none") return none();
  Options o = none();
  std::size_t start = 0;
  while (start <= whole.size()) {
    std::size_t comma = whole.find(',', start);
    if (comma == std::string::npos) comma = whole.size();
    const std::string name = trim(std::string_view(whole).substr(start, comma - start));
    bool found = false;
    if (name == "all") {  // "all,replay": the same as "all"
      o = all();
      found = true;
    }
    for (std::size_t i = 0; i < kFlags.size(); ++i) {
      if (name == option_names()[i]) { o.*kFlags[i] = true; found = true; }
    }
    if (!found) {
      throw Error("options", "parse", "unknown optimization '" + name + "' in '" + whole + "'",
                  "valid: " + valid_list());
    }
    start = comma + 1;
  }
  return o;
}

std::string Options::to_string() const {
  std::string s;
  for (std::size_t i = 0; i < kFlags.size(); ++i) {
    if (this->*kFlags[i]) s += (s.empty() ? "" : ",") + option_names()[i];
  }
  return s.empty() ? "none" : s;
}

bool Options::operator==(const Options& o) const {
  for (Flag f : kFlags) if (this->*f != o.*f) return false;
  return profile == o.profile;
}

}  // namespace hsad
