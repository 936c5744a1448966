// `hetla bench ROUTINE --calls C` and `--batch B`: the cost of many small
// calls rather than one large one (bench_calls.cc).
//   --calls C [--sizes LIST]      per-call microseconds, hetla (the C++ API)
//                                 and, with --baseline, the vendor, one line per size
//   --calls C --threads T         throughput of T threads calling at once vs one
//   --batch B -n N                a batched call (hetla::batch) vs, with
//                                 --baseline, a loop of B vendor calls
#pragma once

namespace hetla::cli {

/// Whether the command line (after "bench") asks for one of these modes.
bool is_call_bench(int argc, char** argv, int first);
/// Runs it; returns the exit code (throws UsageError on a bad option).
int cmd_bench_calls(int argc, char** argv, int first);

}  // namespace hetla::cli
