// Table, CSV and JSON output for the benchmarks: one row type, three renderings.
#pragma once

#include <iosfwd>
#include <string>
#include <utility>
#include <vector>

namespace hsad::bench {

// A row is an ordered list of (key, value) with values already formatted; `numeric` marks
// the values JSON should print bare.
struct Cell {
  std::string key, value;
  bool numeric = false;
};
using Row = std::vector<Cell>;

std::string json_escape(const std::string& s);
void print_table(std::ostream& out, const std::vector<Row>& rows);
void print_csv(std::ostream& out, const std::vector<Row>& rows);
// {header..., "rows":[{...}], then each extra array by its name}
void print_json(std::ostream& out, const Row& header, const std::vector<Row>& rows,
                const std::vector<std::pair<std::string, std::vector<Row>>>& extra = {});
std::string fixed(double v, int digits = 1);

}  // namespace hsad::bench
