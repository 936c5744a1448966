#!/usr/bin/env bash
# Installs the build tree into a temporary prefix, then builds and runs a
# consumer with find_package(hetla) and another with pkg-config.
set -euo pipefail
build_dir=$1
src_dir=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/prefix" >/dev/null
cmake -S "$src_dir/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$work/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/consumer" -j2 >/dev/null
"$work/consumer/consumer_cxx"
"$work/consumer/consumer_c"
libdir=$(ls -d "$work"/prefix/lib*/pkgconfig | head -n1)
export PKG_CONFIG_PATH="$libdir"
# shellcheck disable=SC2046
c++ -std=c++20 "$src_dir/consumer/main.cc" -o "$work/pc_consumer" $(pkg-config --cflags --libs hetla) \
  -Wl,-rpath,"$(pkg-config --variable=libdir hetla)"
"$work/pc_consumer"
echo "install check passed"
