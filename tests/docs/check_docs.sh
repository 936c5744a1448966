#!/usr/bin/env bash
# Builds the `docs` target (Doxygen) and checks the API reference it wrote:
# pages for the C++ and C entry points exist, and Doxygen had nothing to say
# about the public headers (an undocumented entity, a malformed comment).
#   check_docs.sh BUILD_DIR
set -euo pipefail
build=$1
docs=$build/docs
fail() { echo "docs check: $*" >&2; exit 1; }

cmake --build "$build" --target docs
[ -f "$docs/api/index.html" ] || fail "no $docs/api/index.html"

# Every entry point in the tag file, and the page it points at.
check_member() {  # check_member NAME
  local page
  page=$(grep -A2 "<name>$1</name>" "$docs/hetla.tag" | sed -n 's#.*<anchorfile>\(.*\)</anchorfile>.*#\1#p' | head -n1)
  [ -n "$page" ] || fail "$1 is not in the API reference"
  [ -f "$docs/api/$page" ] || fail "$1: page $page missing"
  grep -q "$1" "$docs/api/$page" || fail "$1 not on $page"
  echo "ok  $1 -> api/$page"
}
check_member potrf          # hetla::potrf (namespace hetla)
check_member getrf
check_member gemm
check_member hetla_dpotrf   # C API (hetla.h)
check_member hetla_init_config
grep -q "<name>hetla::Matrix</name>" "$docs/hetla.tag" || fail "class hetla::Matrix missing"
# The CLI pages are part of it too.
ls "$docs"/api/*bench*.html >/dev/null 2>&1 || fail "no page for docs/cli/bench.md"

log=$docs/doxygen-warnings.log
if grep -q "include/hetla/" "$log"; then
  grep "include/hetla/" "$log" >&2
  fail "Doxygen warnings about the public headers (above; document them with ///)"
fi
if [ -s "$log" ]; then
  echo "other Doxygen warnings (not failing):"; cat "$log"
fi
echo "docs check passed"
