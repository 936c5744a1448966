#!/usr/bin/env bash
# Builds the Debian packages with CPack (cmake/Packaging.cmake) into a
# temporary directory and checks them without installing anything:
#   - one package per component: libhetla0, libhetla-dev, hetla (and the
#     device plugins libhetla-opencl / libhetla-cuda when built), each with
#     its files (dpkg-deb -c) and dependencies (dpkg-deb -f);
#   - extracted together into a temporary root (dpkg-deb -x), root/usr/bin/hetla
#     version runs, finding root/usr/lib*/libhetla.so.0 without LD_LIBRARY_PATH.
#   check_package.sh BUILD_DIR VERSION
set -euo pipefail
build=$1
version=$2
so=${version%%.*}
for tool in cpack dpkg-deb dpkg-shlibdeps; do
  command -v $tool >/dev/null || { echo "$tool not found: skipped"; exit 77; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset LD_LIBRARY_PATH
fail() { echo "package check: $*" >&2; exit 1; }

(cd "$work" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1) ||
  { cat "$work/cpack.log"; fail "cpack -G DEB failed"; }
cd "$work/out"
ls -1 *.deb

deb() {  # deb NAME: the file of package NAME
  local f
  f=$(ls "${1}_${version}_"*.deb 2>/dev/null | head -n1)
  [ -n "$f" ] || fail "no package $1 (version $version)"
  echo "$f"
}
has() {  # has NAME REGEX: a file of package NAME matches
  dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | grep -Eq "$2" || fail "$1 has no file matching $2"
}
hasnt() {
  ! dpkg-deb -c "$(deb "$1")" | awk '{print $6}' | grep -Eq "$2" || fail "$1 must not hold $2"
}
depends() {  # depends NAME REGEX: its Depends field matches
  local d
  d=$(dpkg-deb -f "$(deb "$1")" Depends)
  echo "$1 Depends: $d"
  echo "$d" | grep -Eq "$2" || fail "$1: Depends does not match $2"
}

has libhetla$so "/usr/lib.*/libhetla\.so\.$so$"
has libhetla$so "/usr/lib.*/libhetla\.so\.$version$"
hasnt libhetla$so "include/|libhetla\.so$|bin/hetla"
depends libhetla$so "libc6"                                   # from dpkg-shlibdeps
has libhetla-dev "/usr/include/hetla/hetla\.hpp$"
has libhetla-dev "/usr/include/hetla/hetla\.h$"
has libhetla-dev "/usr/lib.*/libhetla\.so$"
has libhetla-dev "/usr/lib.*/cmake/hetla/hetlaConfig\.cmake$"
has libhetla-dev "/usr/lib.*/pkgconfig/hetla\.pc$"
hasnt libhetla-dev "libhetla\.so\.$version|bin/hetla"
depends libhetla-dev "libhetla$so \(= $version\)"
has hetla "/usr/bin/hetla$"
hasnt hetla "/usr/lib"
depends hetla "libhetla$so \(= $version\)"
# Nothing else, but the plugins (their own .so, depending on the library).
for f in *.deb; do
  name=$(dpkg-deb -f "$f" Package)
  case $name in
    libhetla$so|libhetla-dev|hetla) ;;
    libhetla-opencl|libhetla-cuda|libhetla-sim|libhetla-mpi|python3-hetla)
      has "$name" '\.so'
      depends "$name" "libhetla$so \(= $version\)" ;;
    *) fail "unexpected package $name ($f)" ;;
  esac
done

# Unpacked side by side, as apt would, into a root of our own.
root=$work/root
for f in *.deb; do dpkg-deb -x "$f" "$root"; done
out=$("$root/usr/bin/hetla" version)
echo "$out"
echo "$out" | grep -q "$version" || fail "hetla version does not print $version"
lib=$(ldd "$root/usr/bin/hetla" | awk '/libhetla\.so/ {print $3}')
case $lib in
  "$root"/*) echo "libhetla from the package: ${lib#"$root"}" ;;
  *) fail "root/usr/bin/hetla loads libhetla from '$lib', not from the package" ;;
esac
echo "package check passed"
