// libFuzzer harness for the device-list parser (`--devices`, HETLA_DEVICES,
// Config::devices) and the C configuration string (`hetla_init_config`'s
// parser is the same code, reached through the context). A bad list must be a
// std::invalid_argument naming the item; nothing else may escape. OpenCL and
// CUDA items are skipped: opening a real backend per input would measure the
// driver, not our parser.
#include <cstdint>
#include <stdexcept>
#include <string>

#include "devices/spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  const std::string spec(reinterpret_cast<const char*>(data), size);
  if (spec.find("opencl") != std::string::npos || spec.find("cuda") != std::string::npos) return 0;
  try {
    auto set = hetla::dev::parse_devices(spec);
    (void)set;
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) __builtin_trap();  // an error says what is wrong
  }
  try {
    (void)hetla::dev::parse_size(spec);
  } catch (const std::invalid_argument&) {
  }
  return 0;
}
