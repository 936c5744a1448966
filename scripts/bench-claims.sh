#!/usr/bin/env bash
# The benchmark claims of the issues, on an idle machine: scripts/bench-claims.sh BUILD_DIR [qr lu gemm matfun emu emu8k]
B=${1:-build}; shift
H=$B/tools/hetla
groups=${*:-"qr lu gemm matfun emu"}
for g in $groups; do
case $g in
qr)
  $H bench geqrf -n 2000,4000,8000 --check --baseline --repeat 2 --json
  $H bench gels -m 6000 -n 3000 --check --baseline --repeat 2 --json ;;
lu)
  $H bench getrf -n 2000,4000,8000 --check --baseline --repeat 2 --json ;;
gemm)
  $H bench gemm -n 4000 --check --baseline --repeat 2 --json
  $H bench gemm -n 8000 --baseline --repeat 2 --json
  $H bench gemm -n 4000 --check --devices cpu,emu --json ;;
matfun)
  for m in horner ps; do $H bench matpoly -n 2000 --degree 30 --method $m --check --json; done
  $H bench expm -n 1000 --check --json
  $H bench matpoly -n 2000 --degree 30 --method ps --check --devices cpu,emu --json
  $H bench expm -n 1000 --check --devices cpu,emu --json ;;
emu)
  for r in potrf geqrf getrf; do for d in weighted 1d hybrid; do
    echo "== $r $d"; $H bench $r -n 4000 --devices cpu:1,emu:speed=0.5,emu:speed=0.25 --schedule static --distribution $d --check --json
  done; done ;;
emu8k)
  for r in potrf geqrf; do for d in weighted 1d; do
    echo "== $r $d"; $H bench $r -n 8000 --devices cpu:1,emu:speed=0.5,emu:speed=0.25 --schedule static --distribution $d --json
  done; done
  for r in potrf getrf geqrf; do
    echo "== $r hybrid"; $H bench $r -n 8000 --devices cpu:1,emu:speed=0.5,emu:speed=0.25 --distribution hybrid --json
  done ;;
esac
done
