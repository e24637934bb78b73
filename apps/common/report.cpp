// Renderings of benchmark rows.
#include "report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <ostream>

namespace hsad::bench {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\', o += c;
    else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      o += buf;
    } else o += c;
  }
  return o;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

void print_table(std::ostream& out, const std::vector<Row>& rows) {
  if (rows.empty()) return;
  std::vector<std::size_t> width(rows[0].size());
  for (std::size_t c = 0; c < width.size(); ++c) {
    width[c] = rows[0][c].key.size();
    for (auto& r : rows) width[c] = std::max(width[c], r[c].value.size());
  }
  for (std::size_t c = 0; c < width.size(); ++c) out << std::setw(int(width[c]) + 2) << rows[0][c].key;
  out << '\n';
  for (auto& r : rows) {
    for (std::size_t c = 0; c < width.size(); ++c) out << std::setw(int(width[c]) + 2) << r[c].value;
    out << '\n';
  }
}

void print_csv(std::ostream& out, const std::vector<Row>& rows) {
  if (rows.empty()) return;
  for (std::size_t c = 0; c < rows[0].size(); ++c) out << (c ? "," : "") << rows[0][c].key;
  out << '\n';
  for (auto& r : rows) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      const bool quote = r[c].value.find(',') != std::string::npos;
      out << (c ? "," : "") << (quote ? "\"" : "") << r[c].value << (quote ? "\"" : "");
    }
    out << '\n';
  }
}

namespace {
void print_object(std::ostream& out, const Row& row) {
  for (std::size_t i = 0; i < row.size(); ++i) {
    out << (i ? "," : "") << '"' << json_escape(row[i].key) << "\":";
    if (row[i].numeric) out << row[i].value;
    else out << '"' << json_escape(row[i].value) << '"';
  }
}
}  // namespace

namespace {
void print_array(std::ostream& out, const std::string& name, const std::vector<Row>& rows) {
  out << '"' << json_escape(name) << "\":[";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    out << (i ? "," : "") << '{';
    print_object(out, rows[i]);
    out << '}';
  }
  out << ']';
}
}  // namespace

void print_json(std::ostream& out, const Row& header, const std::vector<Row>& rows,
                const std::vector<std::pair<std::string, std::vector<Row>>>& extra) {
  out << '{';
  print_object(out, header);
  out << (header.empty() ? "" : ",");
  print_array(out, "rows", rows);
  for (const auto& [name, more] : extra) {
    out << ',';
    print_array(out, name, more);
  }
  out << "}\n";
}

}  // namespace hsad::bench
