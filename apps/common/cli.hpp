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

namespace cli_detail {
template <class T>
bool typed(const boost::program_options::value_semantic* s) {
  return dynamic_cast<const boost::program_options::typed_value<T>*>(s) != nullptr;
}

// Boost reads an unsigned option through lexical_cast, which takes "-2" as 4294967294 (a loop of
// four billion iterations where the user typed a mistake): a sign in an unsigned option's value is
// refused, naming the option.
inline void refuse_signed_unsigned(const boost::program_options::parsed_options& parsed,
                                   const boost::program_options::options_description& desc) {
  namespace po = boost::program_options;
  for (const po::option& o : parsed.options) {
    const po::option_description* d = desc.find_nothrow(o.string_key, false);
    if (!d) continue;
    const po::value_semantic* s = d->semantic().get();
    if (!typed<unsigned>(s) && !typed<unsigned long>(s) && !typed<unsigned long long>(s) && !typed<unsigned short>(s)) continue;
    for (const std::string& v : o.value) {
      if (v.find_first_of("-+") != std::string::npos) {
        throw po::error("the argument ('" + v + "') for option '--" + o.string_key +
                        "' is invalid: it takes a number of no sign");
      }
    }
  }
}
}  // namespace cli_detail

// Returns the exit status when the program should stop now (help printed, or a bad command
// line reported), or nothing when it should go on. A word that is no option's value is refused
// (Boost drops positional words unless asked for them: a forgotten flag name went unnoticed).
inline std::optional<int> parse_cli(int argc, char** argv, const boost::program_options::options_description& desc,
                                    const char* program) {
  namespace po = boost::program_options;
  po::variables_map vm;
  try {
    const po::parsed_options parsed =
        po::command_line_parser(argc, argv).options(desc).positional(po::positional_options_description()).run();
    cli_detail::refuse_signed_unsigned(parsed, desc);
    po::store(parsed, vm);
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
  // getline drops one empty item at the end: "10," would pass where ",10" does not.
  if (text.back() == ',') throw Error(program, flag, "'' is not " + expected + " (a comma with nothing after it)", hint);
  return values;
}

}  // namespace hsad::bench
