// hetla: command-line front end (machine info, benchmarks, demo, tuning).
#include <cstdio>
#include <exception>
#include <map>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli.hpp"
#include "hetla/context.hpp"
#include "hetla/version.hpp"

namespace {

using namespace hetla::cli;

int cmd_version(int argc, char** argv, int first) {
  if (argc > first) throw UsageError("hetla version takes no arguments (got '" + std::string(argv[first]) + "')");
  std::printf("hetla %s\n", HETLA_VERSION_STRING);
  return kExitOk;
}

/// A sub-command: its own options are parsed by `run` from argv[first].
struct Command {
  const char* name;
  const char* summary;
  int (*run)(int argc, char** argv, int first);
};

// Adding a sub-command is one line here.
const Command kCommands[] = {
    {"info", "machine, BLAS/LAPACK vendor, worker threads and devices hetla uses", cmd_info},
    {"bench", "measure a routine against the vendor LAPACK (hetla bench --help)", cmd_bench},
    {"demo", "solve a random SPD system with hetla and with the vendor LAPACK (about 20 s)", cmd_demo},
    {"tune", "measure the capability weights of the devices (hetla tune --help)", cmd_tune},
    {"simulate", "predict a run on a machine model with SimGrid (hetla simulate --help)", cmd_simulate},
    {"version", "print the library version", cmd_version},
};

/// Joins the library's worker threads before static destruction starts.
struct FinalizeAtExit {
  ~FinalizeAtExit() { hetla::finalize(); }
};

}  // namespace

int main(int argc, char** argv) {
  FinalizeAtExit finalize_at_exit;
  const bool json = wants_json(argc, argv);  // errors also as {"error": ...} on stdout
  try {
    // CLI11 parses the command level (help, --version, the command name);
    // each command parses its own options from what follows its name.
    CLI::App app("hetla " HETLA_VERSION_STRING " - heterogeneous tile linear algebra", "hetla");
    app.set_version_flag("--version", "hetla " HETLA_VERSION_STRING, "print the library version and exit");
    app.require_subcommand(1, 1);
    app.footer("Every command takes --help. Exit status: 0 success, 1 a check or a run failed, 2 usage error.");
    app.add_subcommand("help", "this text");
    std::map<const CLI::App*, const Command*> by_app;
    for (const Command& c : kCommands) {
      CLI::App* sub = app.add_subcommand(c.name, c.summary);
      sub->prefix_command();  // everything after the name goes to the command,
      sub->set_help_flag();   // --help included
      by_app[sub] = &c;
    }
    if (argc >= 2 && argv[1][0] != '-') {  // CLI11 would only say that a command is required
      const std::string_view name = argv[1];
      if (name == "help") {
        std::fputs(app.help().c_str(), stdout);
        return kExitOk;
      }
      bool known = false;
      for (const Command& c : kCommands) known = known || name == c.name;
      if (!known)
        throw UsageError("unknown command '" + std::string(name) + "' (see hetla --help)");
    }
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp&) {
      std::fputs(app.help().c_str(), stdout);
      return kExitOk;
    } catch (const CLI::CallForVersion& e) {
      std::printf("%s\n", e.what());
      return kExitOk;
    } catch (const CLI::ParseError& e) {
      if (argc < 2) std::fputs(app.help().c_str(), stderr);
      throw UsageError(std::string(e.what()) + " (see hetla --help)");
    }
    CLI::App* chosen = app.get_subcommands().at(0);
    // The command's argv: argv[0], its name, then its arguments.
    std::vector<std::string> rest = chosen->remaining();
    std::vector<char*> args{argv[0], const_cast<char*>(by_app.at(chosen)->name)};
    for (std::string& r : rest) args.push_back(r.data());
    args.push_back(nullptr);
    return by_app.at(chosen)->run(static_cast<int>(args.size()) - 1, args.data(), 2);
  } catch (const UsageError& e) {
    print_error(json, e.what());
    return kExitUsage;
  } catch (const std::invalid_argument& e) {  // hetla::ArgumentError: a value the library rejects
    print_error(json, std::string("invalid argument: ") + e.what());
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    print_error(json, "out of memory");
    return kExitFailed;
  } catch (const std::exception& e) {
    print_error(json, e.what(), "error: ");
    return kExitFailed;
  }
}
