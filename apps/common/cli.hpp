// The command-line handling every app shares: parse with Boost.Program_options, print --help,
// and turn a malformed command line into a message and exit status 2.
#pragma once

#include <boost/program_options.hpp>

#include <iostream>
#include <optional>

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

}  // namespace hsad::bench
