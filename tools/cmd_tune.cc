// `hetla tune`: measures the capability weights alpha(device, kernel) of the
// chosen devices and stores them in the per-machine weights file, which every
// later run applies when its context starts.
#include <cstdio>
#include <string>

#include "cli.hpp"
#include "devices/spec.hpp"
#include "runtime/runtime.hpp"
#include "tune/calibrate.hpp"

namespace hetla::cli {

namespace {
void print_tune_help(std::FILE* out) {
  std::fprintf(out,
               "usage: hetla tune [--devices SPEC] [--nb NB] [--repeat R] [--json] [--dry-run]\n"
               "\n"
               "Measures gemm, herk, trsm and potrf at tile size NB (default 256, double\n"
               "precision) on every device of SPEC (default: cpu; see hetla bench --help),\n"
               "taking the median of R runs (default 5) per kernel, and merges the rates into\n"
               "%s\n"
               "(override with $HETLA_WEIGHTS). --dry-run measures without writing.\n",
               tune::weights_path().c_str());
}
}  // namespace

int cmd_tune(int argc, char** argv, int first) {
  std::string devices = "cpu";
  int64_t nb = 256, reps = 5;
  bool json = false, dry = false;
  ArgReader args(argc, argv, first);
  while (!args.done()) {
    std::string_view a = args.next();
    if (a == "--help" || a == "-h") {
      print_tune_help(stdout);
      return kExitOk;
    } else if (a == "--devices") {
      devices = std::string(args.value(a));
    } else if (a == "--nb") {
      nb = parse_int(args.value(a), "--nb", 16, 4096);
    } else if (a == "--repeat") {
      reps = parse_int(args.value(a), "--repeat", 1, 100);
    } else if (a == "--json") {
      args.no_value(a);
      json = true;
    } else if (a == "--dry-run") {
      args.no_value(a);
      dry = true;
    } else {
      throw UsageError("tune: unknown option '" + std::string(a) + "' (see hetla tune --help)");
    }
  }
  dev::DeviceSet set;
  try {
    set = dev::parse_devices(devices);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--devices: ") + e.what());
  }
  rt::RuntimeConfig rc;
  rc.num_workers = set.host_cores;
  rc.accelerators = set.accelerators;
  rt::Runtime rt(rc);
  auto rates = tune::calibrate(rt, nb, static_cast<int>(reps));
  RecordPrinter printer(json);
  for (const auto& r : rates) {
    Record rec;
    rec.add("device", r.device, "", 24).add("kernel", r.kernel, "", 6).add("nb", nb, "", 5).add("gflops", r.gflops, "", 8, 2);
    printer.print(rec);
  }
  if (!dry) {
    tune::save(rates, tune::weights_path());
    if (!json) std::printf("saved to %s\n", tune::weights_path().c_str());
  }
  return kExitOk;
}

}  // namespace hetla::cli
