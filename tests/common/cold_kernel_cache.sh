#!/bin/sh
# Runs a test program as on a fresh machine: with an empty POCL kernel cache
# (POCL_CACHE_DIR pointed at a new temporary directory, removed afterwards),
# so every OpenCL kernel it uses is compiled from source inside the run.
#   cold_kernel_cache.sh <program> [args...]
set -u
dir=$(mktemp -d "${TMPDIR:-/tmp}/hetla-pocl-cold.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT INT TERM
POCL_CACHE_DIR=$dir "$@"
