// The ladder from the library's own words for the flags (option_names, Options::parse), so that
// it needs nothing but the public API.
#include "ladder.hpp"

namespace hsad::bench {

std::vector<LadderRow> ladder(const Options& wanted) {
  std::vector<LadderRow> rows{{"baseline", Options::none()}};
  const std::string have = "," + wanted.to_string() + ",";
  std::string so_far;
  for (const std::string& name : option_names()) {
    if (have.find("," + name + ",") == std::string::npos) continue;
    so_far += (so_far.empty() ? "" : ",") + name;
    rows.push_back({"+" + name, Options::parse(so_far)});
  }
  return rows;
}

}  // namespace hsad::bench
