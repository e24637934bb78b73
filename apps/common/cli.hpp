// The command-line handling every app shares: parse with Boost.Program_options, print --help,
// and turn a malformed command line into a message and exit status 2.
#pragma once

#include <boost/program_options.hpp>

#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "hsad/error.hpp"

namespace hsad::bench {

// Returns the exit status when the program should stop now (help printed, or a bad command
// line reported), or nothing when it should go on.
inline std::optional<int> parse_cli(int argc, char** argv, const boost::program_options::options_description& desc,
                                    const char* program) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    po::store(po::parse_command_line(argc, argv, desc), vm);
    if (vm.count("help")) {
      std::cout << desc << '\n';
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    std::cerr << program << ": " << e.what() << "\n" << desc << '\n';
    return 2;
  }
  return std::nullopt;
}

// A number or a comma list of numbers (--count 1,16,64), each from `min` to `max`. Throws
// hsad::Error from `program` naming `flag`: "'0' is not " + `expected`, with `hint`.
inline std::vector<int> parse_int_list(const std::string& text, int min, int max, const char* program, const char* flag,
                                       const std::string& expected, const std::string& hint) {
  std::vector<int> values;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || n < min || n > max) throw Error(program, flag, "'" + item + "' is not " + expected, hint);
    values.push_back(n);
  }
  if (values.empty()) throw Error(program, flag, "no value given", hint);
  return values;
}

}  // namespace hsad::bench
