// libFuzzer harness for the command line of `hetla` (tools/): each command's
// CLI11 option table, its validators and its help, in parse-only mode
// (cli::set_parse_only: a command returns right after parsing, so nothing is
// measured, tuned or written). The input is argv, one token per NUL- or
// newline-separated piece; the first picks the command (info, bench, demo,
// tune, simulate; `hetla bench` with --calls/--batch is its own table). A bad
// command line must be a UsageError (std::invalid_argument from a value the
// library rejects is allowed too) with a message; nothing else may escape.
// --grid is skipped: it loads the MPI plugin before parsing.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli.hpp"
#include "options.hpp"

namespace {

using namespace hetla::cli;

struct Command {
  const char* name;
  int (*run)(int argc, char** argv, int first);
};
const Command kCommands[] = {{"info", cmd_info}, {"bench", cmd_bench}, {"demo", cmd_demo},
                             {"tune", cmd_tune}, {"simulate", cmd_simulate}};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
  static const bool parse_only = (set_parse_only(true), true);
  (void)parse_only;
  std::vector<std::string> tokens(1);
  for (std::size_t i = 0; i < size; ++i) {
    const char c = static_cast<char>(data[i]);
    if (c == '\0' || c == '\n') tokens.emplace_back();
    else tokens.back() += c;
  }
  const Command* command = nullptr;
  for (const Command& c : kCommands)
    if (tokens[0] == c.name) command = &c;
  if (!command) return 0;
  std::vector<char*> argv;
  std::string program = "hetla";
  argv.push_back(program.data());
  for (std::string& t : tokens) {
    if (t == "--grid" || t.starts_with("--grid=")) return 0;
    argv.push_back(t.data());
  }
  argv.push_back(nullptr);
  try {
    command->run(static_cast<int>(argv.size()) - 1, argv.data(), 2);
  } catch (const UsageError& e) {
    if (std::string(e.what()).empty()) __builtin_trap();  // a usage error says what is wrong
  } catch (const std::invalid_argument& e) {
    if (std::string(e.what()).empty()) __builtin_trap();
  }
  return 0;
}
