#!/usr/bin/env bash
# The README's performance table by one command (issue 18): for each routine
# (potrf, getrf, geqrf, gemm), precision and size, hetla and the vendor
# LAPACK/BLAS timed in the same process (`hetla bench --check --baseline
# --json`), their ratio and the fraction of the same run's GEMM rate that
# hetla reaches; then the tall-skinny and wide shapes of getrf and geqrf.
#   scripts/perf-table.sh [BUILD_DIR] [--update-readme] [--sizes N,N,...]
#                         [--precisions s,d,c,z] [--repeat R]
# The whole table (4 precisions) takes 20-40 minutes on 2 cores.
# With --update-readme the table replaces the one between the perf-table
# markers in README.md. Run it on an idle machine: the numbers are only as
# quiet as the machine (ratios are taken within one process, so they hold
# better than the absolute rates).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build update=0 sizes=1000,2000,4000,8000 precisions=s,d,c,z repeat=2
while [ $# -gt 0 ]; do
  case $1 in
    --update-readme) update=1 ;;
    --sizes) sizes=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    --precisions) precisions=$2; shift ;;
    *) build=$1 ;;
  esac
  shift
done
hetla=$build/tools/hetla
[ -x "$hetla" ] || { echo "perf-table: $hetla not found (build first)" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in potrf getrf geqrf gemm; do
  "$hetla" bench $r -n "$sizes" -p "$precisions" --check --baseline --repeat "$repeat" --json >>"$out"
done
# Shapes: tall-skinny and wide LU and QR.
for r in getrf geqrf; do
  for shape in "-m 20000 -n 500" "-m 500 -n 20000"; do
    "$hetla" bench $r $shape -p "$precisions" --check --baseline --repeat "$repeat" --json >>"$out"
  done
done
table=$(python3 - "$out" "$("$hetla" version | head -1)" <<'PY'
import json, sys, platform, os
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
print(f"Measured by `scripts/perf-table.sh` ({sys.argv[2]}, {os.cpu_count()} cores, "
      "best of the repeats; GFLOP/s hetla / vendor, ratio = vendor time / hetla time, "
      "GEMM fraction = hetla's rate / the same run's GEMM rate):")
print()
print("| routine | precision | m × n | hetla GFLOP/s | vendor GFLOP/s | ratio | GEMM fraction | check |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for r in rows:
    if "error" in r:
        print(f"| {r.get('routine','?')} | {r.get('precision','?')} | | error: {r['error']} | | | | |")
        continue
    ok = "ok" if r.get("residual_ok") else "FAILED"
    frac = f"{r['gemm_fraction']:.2f}" if "gemm_fraction" in r else "-"  # gemm: its ratio says it
    print(f"| {r['routine']} | {r['precision']} | {r['m']} × {r['n']} | {r['gflops']:.1f} | {r['baseline_gflops']:.1f} | "
          f"{r['ratio']:.2f} | {frac} | {ok} |")
PY
)
echo "$table"
if [ $update = 1 ]; then
  python3 - "$table" <<'PY'
import sys, re
table = sys.argv[1]
s = open("README.md").read()
begin, end = "<!-- perf-table:begin -->", "<!-- perf-table:end -->"
if begin not in s:
    sys.exit("perf-table: README.md has no perf-table markers")
s = re.sub(re.escape(begin) + ".*?" + re.escape(end), begin + "\n" + table + "\n" + end, s, flags=re.S)
open("README.md", "w").write(s)
print("perf-table: README.md updated", file=sys.stderr)
PY
fi
