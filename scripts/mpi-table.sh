#!/usr/bin/env bash
# The README's MPI table by one command (issue 16): for each routine, two
# processes of one core each on a 1 x 2 grid against ScaLAPACK on the same
# processes, at each tile size (`mpirun -np 2 --bind-to core hetla bench R -n N
# --nb NB --grid 1x2 --check --baseline --json -r R`), then one process with
# every core (`hetla bench R -n N -r R`, its default tile size):
#   scripts/mpi-table.sh [BUILD_DIR] [-n N] [--nb 128,192,256,384]
#                        [--routines potrf,getrf,geqrf,gemm] [--repeat R]
# Cells are GFLOP/s hetla / ScaLAPACK at the same nb, each side the best of
# R runs; "best / best" is hetla's best nb against ScaLAPACK's best nb; "2
# processes / 1" is hetla's best nb over one process. n = 8000, 4 tile sizes,
# repeat 2: 17 minutes on 2 cores (AMD EPYC, 2026-12-02). Run it on an idle machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build=build n=8000 nbs=128,192,256,384 routines=potrf,getrf,geqrf,gemm repeat=3
while [ $# -gt 0 ]; do
  case $1 in
    -n) n=$2; shift ;;
    --nb) nbs=$2; shift ;;
    --routines) routines=$2; shift ;;
    --repeat) repeat=$2; shift ;;
    *) build=$1 ;;
  esac
  shift
done
hetla=$build/tools/hetla
[ -x "$hetla" ] || { echo "mpi-table: $hetla not found (build first)" >&2; exit 2; }
command -v mpirun >/dev/null || { echo "mpi-table: mpirun not found (apt: openmpi-bin)" >&2; exit 2; }
mpirun=(mpirun -np 2 --bind-to core)
[ "$(id -u)" -eq 0 ] && mpirun+=(--allow-run-as-root)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for r in ${routines//,/ }; do
  for nb in ${nbs//,/ }; do
    "${mpirun[@]}" "$hetla" bench "$r" -n "$n" --nb "$nb" --grid 1x2 --check --baseline --json -r "$repeat" |
      grep '^{' >>"$out" || echo "{\"routine\":\"$r\",\"nb\":$nb,\"error\":\"mpirun failed\"}" >>"$out"
  done
  "$hetla" bench "$r" -n "$n" --json -r "$repeat" | grep '^{' >>"$out" ||
    echo "{\"routine\":\"$r\",\"error\":\"one process failed\"}" >>"$out"
done
python3 - "$out" "$nbs" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
nbs = [int(x) for x in sys.argv[2].split(",")]
print("| routine | " + " | ".join(f"nb {nb}" for nb in nbs) + " | best / best | one process | 2 processes / 1 |")
print("| --- " * (len(nbs) + 4) + "|")
for r in dict.fromkeys(x["routine"] for x in rows):
    grid = {x["nb"]: x for x in rows if x["routine"] == r and x.get("grid") and "error" not in x}
    one = [x for x in rows if x["routine"] == r and not x.get("grid") and "gflops" in x]
    cells = []
    for nb in nbs:
        x = grid.get(nb)
        cells.append("failed" if x is None else
                     f"{x['gflops']:.1f} / {x['baseline_gflops']:.1f}" + ("" if x.get("residual_ok") else " (check FAILED)"))
    best = max((x["gflops"] for x in grid.values()), default=0)
    base = max((x["baseline_gflops"] for x in grid.values()), default=0)
    ratio = f"**{best / base:.2f}**" if base else "-"
    single = f"{one[0]['gflops']:.1f} (nb {one[0]['nb']})" if one else "failed"
    per = f"**{best / one[0]['gflops']:.2f}**" if one and best else "-"
    print(f"| {r} | " + " | ".join(cells) + f" | {ratio} | {single} | {per} |")
PY
