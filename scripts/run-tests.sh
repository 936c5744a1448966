#!/usr/bin/env bash
# Builds and runs the whole test suite (this is what CI runs):
#   1. Release build in ./build: every test (ctest), then the install check.
#   2. ASan+UBSan build (Debug) in ./build-asan: every test except those
#      labelled `slow`, the .deb package's and the API reference's (cpack and
#      doxygen run no code of ours: 110 s of the stage for nothing).
#   3. ThreadSanitizer build (RelWithDebInfo) in ./build-tsan: the runtime and context tests
#      (labels `runtime`, `context`; among them concurrent large calls: runtime/test_runtime_calls.cc,
#      context/test_concurrent_calls.cc), the emulated-accelerator tests, the Cholesky tests of
#      tests/linalg/test_potrf.cc, the LU tests (linalg/test_getrf.cc,
#      api/test_lu_c_api.cc), the C API tests of api/test_c_api.cc (calls
#      from several threads) and several threads calling potrf/getrf/geqrf at
#      mixed sizes (linalg/test_concurrent_callers.cc, test_inline_calls.cc).
#   4. libFuzzer (clang, ASan+UBSan) in ./build-fuzz: tests/fuzz harnesses, replaying
#      their seeds, then FUZZ_SECONDS of fuzzing each.
# Every stage runs even if an earlier one failed; the script exits non-zero if
# any stage failed and prints a summary with the time of each stage and the
# names of the tests that failed. In the Release stage a failed test runs once
# more on its own: passing then, it is named as flaky and the stage passes.
#
# Environment (all optional):
#   JOBS=2                         parallel build and test jobs
#   BUILD_DIR=build  ASAN_BUILD_DIR=build-asan  TSAN_BUILD_DIR=build-tsan  FUZZ_BUILD_DIR=build-fuzz
#   STAGES="release asan tsan fuzz"  which stages to run
#   FUZZ_SECONDS=20                how long each fuzz harness runs
#   SKIP_DEPS=1                    do not run scripts/install-deps.sh
# HETLA_TUNING is set to an empty folder of its own: the tests see the
# built-in tile sizes and crossovers, whatever `hetla tune` stored here.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

JOBS=${JOBS:-2}
BUILD_DIR=${BUILD_DIR:-build}
ASAN_BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
TSAN_BUILD_DIR=${TSAN_BUILD_DIR:-build-tsan}
FUZZ_BUILD_DIR=${FUZZ_BUILD_DIR:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
STAGES=${STAGES:-release asan tsan fuzz}
# The suite runs on the built-in defaults, not on what `hetla tune` stored for
# this machine (~/.cache/hetla/tiles.json, crossover.json would change tile
# sizes and crossovers under the tests); tests that tune set their own.
tuning_dir=$(mktemp -d)
trap 'rm -rf "$tuning_dir"' EXIT
export HETLA_TUNING="$tuning_dir/tiles.json"
# CMake compiles through ccache when it is installed: paths relative to the
# repository root, and no working directory in the key, so a clone elsewhere
# (CI's) reuses what a clone here compiled (debug info then names this path).
export CCACHE_BASEDIR="${CCACHE_BASEDIR:-$root}" CCACHE_NOHASHDIR="${CCACHE_NOHASHDIR:-true}"
# no writable home (a bare CI environment): ccache would fail the compiles; run the compiler as is
if [ -z "${CCACHE_DIR:-}" ] && [ ! -w "${HOME:-/nonexistent}" ]; then export CCACHE_DISABLE=1; fi

section() { printf '\n======== %s ========\n' "$*"; }
now() { date +%s; }

if [ "${SKIP_DEPS:-0}" != 1 ]; then
  section "dependencies"
  scripts/install-deps.sh
fi

# run_ctest <build dir> <ctest arguments...>: ctest with the output of failures;
# the names of the tests that failed go to the summary, which is the last thing
# CI shows (the first failure's output may be cut from what it keeps).
failures=()
flaky=()
failed_names() { local line; while IFS= read -r line; do printf '%s\n' "${line#*:}"; done <"$1"; }
run_ctest() {
  local dir=$1 log name
  shift
  log="$dir/Testing/Temporary/LastTestsFailed.log"
  rm -f "$log"
  ctest --test-dir "$dir" --output-on-failure -j "$JOBS" "$@" && return 0
  if [ ! -s "$log" ]; then
    failures+=("$stage: ctest failed before running tests ($dir)")
    return 1
  fi
  # Release only: a test that fails once on this shared 2-core machine runs
  # once more on its own; one that then passes is named in the summary as
  # flaky (so it is seen and fixed), one that fails again fails the stage.
  # Sanitizer stages never rerun: their reports are bugs, not noise.
  local rc=1 first=() again=()
  mapfile -t first < <(failed_names "$log")
  if [ "$stage" = release ]; then
    section "$stage: the failed tests once more, one at a time"
    ctest --test-dir "$dir" --output-on-failure --rerun-failed "$@" && rc=0
    [ "$rc" -eq 0 ] && rm -f "$log"
  fi
  [ -s "$log" ] && mapfile -t again < <(failed_names "$log")
  for name in "${first[@]}"; do
    if printf '%s\n' "${again[@]}" | grep -qxF -- "$name"; then failures+=("$stage: $name"); else flaky+=("$stage: $name"); fi
  done
  return $rc
}

configure() {  # configure <dir> <build type> <sanitizer>
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE="$2" -DHETLA_SANITIZE="$3" -DHETLA_BUILD_TESTS=ON
}

stage_release() {
  section "1/4 Release: build, all tests, install check ($BUILD_DIR)"
  configure "$BUILD_DIR" Release "" || return 1
  cmake --build "$BUILD_DIR" -j "$JOBS" || return 1
  local rc=0
  run_ctest "$BUILD_DIR" || rc=1
  if [ -x tests/install/check_install.sh ]; then
    section "install check"
    tests/install/check_install.sh "$BUILD_DIR" || { rc=1; failures+=("$stage: install check"); }
  fi
  return $rc
}

stage_asan() {
  section "2/4 AddressSanitizer + UndefinedBehaviorSanitizer: all tests but slow ($ASAN_BUILD_DIR)"
  configure "$ASAN_BUILD_DIR" Debug address || return 1
  cmake --build "$ASAN_BUILD_DIR" -j "$JOBS" || return 1
  ASAN_OPTIONS=detect_leaks=1:strict_init_order=1:detect_stack_use_after_return=1 \
  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    run_ctest "$ASAN_BUILD_DIR" -LE 'slow|package|docs' || return 1
}

stage_tsan() {
  section "3/4 ThreadSanitizer: runtime, emulated devices, Cholesky, LU and C API tests ($TSAN_BUILD_DIR)"
  configure "$TSAN_BUILD_DIR" RelWithDebInfo thread || return 1
  local targets=() f
  for f in tests/runtime/*.cc tests/context/*.cc; do targets+=("$(basename "$f" .cc)"); done
  targets+=(test_potrf test_getrf test_lu_c_api test_c_api test_concurrent_callers test_inline_calls)
  [ -f tests/devices/test_emulated.cc ] && targets+=(test_emulated)
  [ -f tests/devices/test_hybrid.cc ] && targets+=(test_hybrid)
  cmake --build "$TSAN_BUILD_DIR" -j "$JOBS" --target "${targets[@]}" || return 1
  # OpenBLAS is not instrumented; one BLAS thread keeps its own thread pool out
  # of the picture (hetla's worker threads still call it concurrently).
  local tsan="suppressions=$root/tests/tsan.supp second_deadlock_stack=1"
  # runtime: every test; devices: only what was built (the emulated accelerators)
  local rc=0
  TSAN_OPTIONS="$tsan" OPENBLAS_NUM_THREADS=1 \
    run_ctest "$TSAN_BUILD_DIR" -L '^(runtime|context|devices)$' || rc=1
  TSAN_OPTIONS="$tsan" OPENBLAS_NUM_THREADS=1 \
    run_ctest "$TSAN_BUILD_DIR" -R '^(Potrf\.|Getrf|CApi|ApiConcurrentCallers|InlineCallsNoLock)' || rc=1
  return $rc
}

stage_fuzz() {
  section "4/4 libFuzzer: C API, device-list, file and command-line harnesses, ${FUZZ_SECONDS}s each ($FUZZ_BUILD_DIR)"
  if ! command -v clang++ >/dev/null; then echo "run-tests: clang++ not found (apt: clang)"; return 1; fi
  CC=clang CXX=clang++ cmake -S . -B "$FUZZ_BUILD_DIR" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETLA_SANITIZE=address \
    -DHETLA_FUZZ=ON -DHETLA_BUILD_TESTS=OFF -DHETLA_WITH_PYTHON=OFF -DHETLA_FUZZ_SECONDS="$FUZZ_SECONDS" || return 1
  cmake --build "$FUZZ_BUILD_DIR" -j "$JOBS" --target fuzz_c_api fuzz_device_spec fuzz_files fuzz_cli || return 1
  run_ctest "$FUZZ_BUILD_DIR" -L fuzz
}

start=$(now)
summary=()
failed=0
for stage in $STAGES; do
  case $stage in
    release | asan | tsan | fuzz) ;;
    *) echo "run-tests: unknown stage '$stage' (release, asan, tsan, fuzz)" >&2; exit 2 ;;
  esac
  t0=$(now)
  if "stage_$stage"; then status=passed; else status=FAILED; failed=1; fi
  summary+=("$(printf '%-8s %-7s %4ds' "$stage" "$status" $(($(now) - t0)))")
done

section "summary"
printf '%s\n' "${summary[@]}"
printf 'total %ds\n' $(($(now) - start))
if [ ${#flaky[@]} -gt 0 ]; then
  echo "tests that failed once and passed when run again (flaky: fix them):"
  printf '  %s\n' "${flaky[@]}"
fi
if [ ${#failures[@]} -gt 0 ]; then
  echo "tests that failed:"
  printf '  %s\n' "${failures[@]}"
fi
if [ "$failed" -ne 0 ]; then
  echo "run-tests: FAILED"
  exit 1
fi
echo "run-tests: all stages passed"
