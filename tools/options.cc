#include "options.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

#include "cli.hpp"
#include "devices/spec.hpp"

namespace hetla::cli {

namespace {

/// hetla's help layout: usage line, description, options (each with its
/// default), footer.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(std::string usage) : usage_(std::move(usage)) {
    column_width(24);
    label("Positionals", "arguments");
  }

  std::string make_help(const CLI::App* app, std::string, CLI::AppFormatMode mode) const override {
    std::string out = "usage: " + app->get_name() + (usage_.empty() ? "" : " " + usage_) + "\n";
    if (!app->get_description().empty()) out += "\n" + app->get_description() + "\n";
    out += make_positionals(app);
    out += make_groups(app, mode);
    if (!app->get_footer().empty()) out += "\n" + app->get_footer() + "\n";
    return out;
  }

  // "-n N[,N...]": the option's own text, never CLI11's type names.
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return " " + opt->get_option_text();
    if (opt->get_type_size() == 0 || opt->get_positional()) return "";
    const std::string type = opt->get_type_name();
    return " " + type.substr(0, type.find(':'));
  }

  // The default after the description, on a line of its own when the last
  // line would grow too long.
  std::string make_option_desc(const CLI::Option* opt) const override {
    const std::string& d = opt->get_default_str();
    std::string desc = opt->get_description();
    if (d.empty()) return desc;
    const std::size_t last_line = desc.size() - (desc.rfind('\n') == std::string::npos ? 0 : desc.rfind('\n') + 1);
    return desc + (last_line + d.size() > 50 ? "\n" : " ") + "[default: " + d + "]";
  }

 private:
  std::string usage_;
};

}  // namespace

void setup_command(CLI::App& app, const std::string& usage, const std::string& footer) {
  app.formatter(std::make_shared<HelpFormatter>(usage));
  app.footer(footer);
  app.option_defaults()
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)  // "--nb 64 --nb 128": 128, as before
      ->disable_flag_override()                               // "--check=yes" is an error
      ->group("options");
  app.set_help_flag("-h,--help", "this text");
}

namespace {
/// CLI11's messages where hetla's say it better.
std::string usage_message(const CLI::ParseError& e) {
  std::string m = e.what();
  const std::string override_text = " was given a disallowed flag override";  // "--check=yes"
  if (m.size() > override_text.size() && m.ends_with(override_text))
    return "option " + std::string(m.size() - override_text.size() > 1 ? "--" : "-") +
           m.substr(0, m.size() - override_text.size()) + " takes no value";
  const std::size_t colon = m.find(": ");
  if (e.get_name() == "ArgumentMismatch" && colon != std::string::npos && m.ends_with(" missing"))
    return "option " + m.substr(0, colon) + " needs a value";  // "-n: 1 required TEXT missing"
  return m;
}
}  // namespace

namespace {
bool g_parse_only = false;
}  // namespace

void set_parse_only(bool on) { g_parse_only = on; }

bool parse_command(CLI::App& app, int argc, char** argv, int first) {
  std::vector<std::string> args(argv + std::min(first, argc), argv + argc);
  std::reverse(args.begin(), args.end());  // CLI11 takes them last first
  try {
    app.parse(args);
  } catch (const CLI::CallForHelp&) {
    const std::string help = app.help();
    if (!g_parse_only) std::fputs(help.c_str(), stdout);
    return false;
  } catch (const CLI::ParseError& e) {
    throw UsageError(usage_message(e) + " (see " + app.get_name() + " --help)");
  }
  return !g_parse_only;
}

CLI::Validator integer(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        int64_t v = 0;
        std::string problem = int_problem(text, lo, hi, v);
        if (problem.empty()) text = std::to_string(v);  // "1e7" -> "10000000" for CLI11's conversion
        return problem;
      },
      "");
}

CLI::Validator integer_list(int64_t lo, int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        int64_t v = 0;
        for (auto item : split(text, ',')) {
          std::string problem = int_problem(item, lo, hi, v);
          if (!problem.empty()) return problem;
        }
        return std::string();
      },
      "");
}

namespace {
std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i)
    s += (i == 0 ? "" : i + 1 == items.size() ? " or " : ", ") + items[i];
  return s;
}

bool member(const std::vector<std::string>& items, std::string_view v, bool ignore_case) {
  for (const auto& item : items)
    if (item == v || (ignore_case && CLI::detail::to_lower(item) == CLI::detail::to_lower(std::string(v))))
      return true;
  return false;
}
}  // namespace

CLI::Validator one_of(std::vector<std::string> items, bool ignore_case) {
  return CLI::Validator(
      [items, ignore_case](std::string& text) {
        return member(items, text, ignore_case) ? std::string() : "'" + text + "' is not " + joined(items);
      },
      "");
}

CLI::Validator list_of(std::vector<std::string> items) {
  return CLI::Validator(
      [items](std::string& text) {
        for (auto item : split(text, ','))
          if (!member(items, item, true)) return "'" + std::string(item) + "' is not one of " + joined(items);
        return std::string();
      },
      "");
}

CLI::Validator device_list() {
  return CLI::Validator(
      [](std::string& text) {
        try {
          dev::parse_device_list(text);  // the library's parser: syntax only, nothing opened yet
          return std::string();
        } catch (const std::invalid_argument& e) {
          return std::string(e.what());
        }
      },
      "");
}

CLI::Validator writable_file() {
  return CLI::Validator(
      [](std::string& text) {
        return output_path_problem(text);
      },
      "");
}

bool ends_with_nocase(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (std::size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

CLI::Validator trace_file() {
  return CLI::Validator(
      [](std::string& v) {
        const bool ok =
            (ends_with_nocase(v, ".json") && v.size() > 5) || (ends_with_nocase(v, ".svg") && v.size() > 4);
        return ok ? std::string() : "'" + v + "' must end in .json (Chrome trace) or .svg (Gantt chart)";
      },
      "");
}

}  // namespace hetla::cli
