// The commands' options through CLI11: hetla's help layout ("usage: hetla
// CMD ...", the description, each option with its [default: X]), strict
// parsing ("--opt V" and "--opt=V", a flag takes no value, the last of a
// repeated option wins) and validators whose messages say what is accepted.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace hetla::cli {

/// Sets up `app` (named "hetla CMD") for one command: `usage` follows
/// "usage: hetla CMD" in its help, `footer` closes it.
void setup_command(CLI::App& app, const std::string& usage, const std::string& footer = "");

/// Parses argv[first, argc) into `app`. Returns false when --help was asked
/// (the help is printed on stdout); a parse or validation error is thrown as
/// UsageError "<message> (see hetla CMD --help)".
bool parse_command(CLI::App& app, int argc, char** argv, int first);
/// Parse-only mode, for the command-line fuzz harness (tests/fuzz/fuzz_cli):
/// parse_command then parses and validates as always but returns false (and
/// prints no help), so every command returns before it runs anything.
void set_parse_only(bool on);

/// The largest matrix dimension an option takes: LAPACK's and ScaLAPACK's
/// integers are 32-bit.
constexpr int64_t kMaxDim = 2147483647;

/// A whole decimal integer in [lo, hi] ("1e7" included); rewrites the value
/// in plain decimal, so it converts to any integer type that holds [lo, hi].
CLI::Validator integer(int64_t lo, int64_t hi);
/// Comma-separated integers, each as integer(lo, hi) checks ("2000,4000").
CLI::Validator integer_list(int64_t lo, int64_t hi);
/// One of `items`, compared ignoring case when `ignore_case`.
CLI::Validator one_of(std::vector<std::string> items, bool ignore_case = false);
/// A comma-separated list, each item one of `items` (case ignored).
CLI::Validator list_of(std::vector<std::string> items);
/// A device list as hetla::Config::devices takes it (dev::parse_device_list:
/// syntax only, nothing opened).
CLI::Validator device_list();
/// A file that can be created or overwritten (check_output_path).
CLI::Validator writable_file();
/// `s` ends in `suffix` (lower case), ignoring the case of `s`.
bool ends_with_nocase(std::string_view s, std::string_view suffix);
/// A --trace FILE: FILE.json (Chrome trace) or FILE.svg (Gantt chart).
CLI::Validator trace_file();

/// An option whose words map to values of `target` (an enum): "--uplo L|U".
/// The first word of each value is the one help shows as the default.
template <typename E>
CLI::Option* add_choice(CLI::App& app, const std::string& name, E& target,
                        std::vector<std::pair<std::string, E>> words, const std::string& description,
                        bool ignore_case = false) {
  std::vector<std::string> keys;
  std::string shown;
  for (const auto& [word, value] : words) {
    keys.push_back(word);
    if (value == target && shown.empty()) shown = word;
  }
  auto set = [&target, words, ignore_case](const std::string& v) {
    for (const auto& [word, value] : words)
      if (word == v || (ignore_case && CLI::detail::to_lower(word) == CLI::detail::to_lower(v))) target = value;
  };
  return app.add_option_function<std::string>(name, set, description)
      ->check(one_of(keys, ignore_case))
      ->default_str(shown);
}

}  // namespace hetla::cli
