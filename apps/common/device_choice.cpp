// --devices N|all: the text checked, then the runtime's first devices.
#include "device_choice.hpp"

namespace hsad::bench {

int parse_device_count(const std::string& program, const std::string& text) {
  if (text == "all") return 0;
  const bool digits = !text.empty() && text.size() < 6 && text.find_first_not_of("0123456789") == std::string::npos;
  const int n = digits ? std::stoi(text) : 0;
  if (n < 1) throw Error(program, "--devices", "--devices must be a whole number of at least 1 or 'all', got '" + text + "'");
  return n;
}

std::vector<Device> pick_devices(const std::string& program, const Runtime& rt, int count) {
  const std::vector<Device>& all = rt.devices();
  if (count > int(all.size())) {
    std::string names;
    for (const Device& d : all) names += (names.empty() ? "" : ", ") + d.info().name;
    throw Error(program, "--devices",
                "--devices " + std::to_string(count) + ": the " + rt.backend() + " backend has " +
                    std::to_string(all.size()) + " (" + names + ")",
                rt.backend() == "cpu" ? "HSAD_CPU_DEVICES=N presents N cpu agents" : "ask for fewer devices");
  }
  return {all.begin(), all.begin() + (count == 0 ? all.size() : std::size_t(count))};
}

}  // namespace hsad::bench
