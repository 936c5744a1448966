#!/usr/bin/env bash
# Installs the Debian 12 packages hetla builds and tests with. Idempotent:
# does nothing (and needs no network) when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git time   # time: start-up check of the install test
  ccache                                   # recompiles only what changed between test-suite runs
  libopenblas-pthread-dev liblapacke-dev   # host BLAS/LAPACK (pthread OpenBLAS) + LAPACKE
  libopenblas64-0-pthread                  # ILP64 OpenBLAS: vendor of libhetla_lapack's _64_ names (run time)
  libhwloc-dev                             # topology and thread pinning
  ocl-icd-opencl-dev opencl-headers libclblast-dev   # OpenCL backend (CLBlast)
  pocl-opencl-icd                          # an OpenCL device on any CPU (tests, demos)
  libgtest-dev                             # test suite
  clang libclang-rt-14-dev                 # libFuzzer harnesses (tests/fuzz)
  python3-dev pybind11-dev python3-numpy   # the Python package
  python3-scipy python3-pytest             # its tests (reference results)
  libsimgrid-dev                           # simulation mode (hetla simulate)
  libopenmpi-dev openmpi-bin libscalapack-openmpi-dev   # scale-out over MPI, ScaLAPACK baseline (docs/mpi.md)
  doxygen                                  # API reference (docs target, docs test)
  dpkg-dev                                 # cpack -G DEB: dpkg-shlibdeps (package test)
  nlohmann-json3-dev libcli11-dev          # JSON files and the command line (header-only)
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all packages present"
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
