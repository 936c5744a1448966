#!/usr/bin/env bash
# Quick start: install the Debian packages, build Release, run `hetla demo`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build -j"$(nproc)"
exec ./build/tools/hetla demo
