#!/usr/bin/env bash
# run_fuzzer.sh HARNESS SEED_DIR SECONDS: runs a libFuzzer harness for SECONDS
# on a scratch copy of its seed corpus (the repository's seeds stay as they
# are), first replaying every seed (regressions). Exit status: the harness's.
set -euo pipefail
harness=$1 seeds=$2 seconds=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -r "$seeds"/. "$work"/
"$harness" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$PWD/" "$work"
