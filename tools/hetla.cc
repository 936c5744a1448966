// hetla: command-line front end (machine info, benchmarks, demo).
#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>

#include "cli.hpp"
#include "hetla/context.hpp"
#include "hetla/version.hpp"

namespace hetla::cli {
int cmd_tune(int argc, char** argv, int first);
int cmd_simulate(int argc, char** argv, int first);
}

namespace {

void print_help(std::FILE* out) {
  std::fprintf(out,
               "usage: hetla COMMAND [options]\n"
               "\n"
               "hetla %s - heterogeneous tile linear algebra\n"
               "\n"
               "commands:\n"
               "  info      machine, BLAS/LAPACK vendor, worker threads and devices hetla uses\n"
               "  bench     measure a routine against the vendor LAPACK (hetla bench --help)\n"
               "  demo      solve a random SPD system with hetla and with the vendor LAPACK\n"
               "            (about 20 s; hetla demo --help)\n"
               "  tune      measure the capability weights of the devices (hetla tune --help)\n"
               "  simulate  predict a run on a machine model with SimGrid (hetla simulate --help)\n"
               "  version   print the library version\n"
               "  help      this text\n"
               "\n"
               "Exit status: 0 success, 1 a check or a run failed, 2 usage error.\n",
               HETLA_VERSION_STRING);
}

/// Joins the library's worker threads before static destruction starts.
struct FinalizeAtExit {
  ~FinalizeAtExit() { hetla::finalize(); }
};

}  // namespace

int main(int argc, char** argv) {
  using namespace hetla::cli;
  FinalizeAtExit finalize_at_exit;
  const bool json = wants_json(argc, argv);  // errors also as {"error": ...} on stdout
  try {
    if (argc < 2) {
      print_help(stderr);
      return kExitUsage;
    }
    const std::string_view cmd = argv[1];
    if (cmd == "help" || cmd == "-h" || cmd == "--help") {
      print_help(stdout);
      return kExitOk;
    }
    if (cmd == "version" || cmd == "--version") {
      if (argc > 2) throw UsageError("hetla version takes no arguments");
      std::printf("hetla %s\n", HETLA_VERSION_STRING);
      return kExitOk;
    }
    if (cmd == "info") return cmd_info(argc, argv, 2);
    if (cmd == "bench") return cmd_bench(argc, argv, 2);
    if (cmd == "demo") return cmd_demo(argc, argv, 2);
    if (cmd == "tune") return cmd_tune(argc, argv, 2);
    if (cmd == "simulate") return cmd_simulate(argc, argv, 2);
    throw UsageError("unknown command '" + std::string(cmd) + "' (see hetla --help)");
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
