# Debian packages, one per install component (`cpack -G DEB` in the build
# directory):
#   libhetla0        runtime  libhetla.so.*                          (Section libs)
#   libhetla-dev     dev      headers, libhetla.so, CMake and pkg-config files
#   hetla            cli      bin/hetla
#   libhetla-opencl  opencl   the OpenCL device plugin  } packaged once their
#   libhetla-cuda    cuda     the CUDA device plugin    } components are installed
#   libhetla-sim     sim      the simulator plugin and share/hetla/machines
#   python3-hetla    python   the Python package
# Dependencies on Debian packages come from dpkg-shlibdeps (dpkg-dev); those
# between ours pin the same version.
set(CPACK_PACKAGE_NAME hetla)
set(CPACK_PACKAGE_VENDOR "hetla developers")
set(CPACK_PACKAGE_CONTACT "hetla developers <hetla-devel@lists.invalid>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_DESCRIPTION
    "Dense Cholesky, LU, QR, level-3 BLAS and matrix functions on CPU cores and accelerators (OpenCL, CUDA), \
scheduled by a task-superscalar runtime; C++ and C (LAPACK-style) APIs.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_FILE_NAME hetla-${PROJECT_VERSION})  # for non-DEB generators
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# Files go to /usr/${CMAKE_INSTALL_LIBDIR} etc.: lib/ with the default prefix,
# Debian's multiarch lib/x86_64-linux-gnu/ when configured with
# -DCMAKE_INSTALL_PREFIX=/usr.

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # name_version_arch.deb
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# bin/hetla needs libhetla.so.0, which is in no installed package yet: let
# dpkg-shlibdeps find it in the build tree (the dependency on libhetla0 is
# the component dependency below).
get_target_property(HETLA_LIBRARY_BUILD_DIR hetla BINARY_DIR)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${HETLA_LIBRARY_BUILD_DIR})
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_PACKAGE_SECTION science)

set(HETLA_SOVERSION ${PROJECT_VERSION_MAJOR})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME libhetla${HETLA_SOVERSION})
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "hetla heterogeneous tile linear algebra: shared library")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME libhetla-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_SECTION libdevel)
set(CPACK_COMPONENT_DEV_DESCRIPTION "hetla heterogeneous tile linear algebra: headers, CMake package, pkg-config file")
set(CPACK_COMPONENT_DEV_DEPENDS runtime)

set(CPACK_DEBIAN_CLI_PACKAGE_NAME hetla)
set(CPACK_COMPONENT_CLI_DESCRIPTION "hetla heterogeneous tile linear algebra: the hetla command (info, tune, bench, demo)")
set(CPACK_COMPONENT_CLI_DEPENDS runtime)

set(CPACK_DEBIAN_OPENCL_PACKAGE_NAME libhetla-opencl)
set(CPACK_DEBIAN_OPENCL_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_OPENCL_DESCRIPTION "hetla heterogeneous tile linear algebra: OpenCL device plugin (CLBlast)")
set(CPACK_COMPONENT_OPENCL_DEPENDS runtime)
# An OpenCL platform to run on (POCL runs on any CPU).
set(CPACK_DEBIAN_OPENCL_PACKAGE_RECOMMENDS "opencl-icd | pocl-opencl-icd")

set(CPACK_DEBIAN_CUDA_PACKAGE_NAME libhetla-cuda)
set(CPACK_DEBIAN_CUDA_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_CUDA_DESCRIPTION
    "hetla heterogeneous tile linear algebra: CUDA device plugin (cuBLAS, cuSOLVER; needs the CUDA runtime libraries)")
set(CPACK_COMPONENT_CUDA_DEPENDS runtime)
# The CUDA libraries usually come from NVIDIA's installer or repository, not
# from a Debian package: dpkg-shlibdeps skips them (--ignore-missing-info,
# which CPack passes) and the plugin says why it did not load without them.

set(CPACK_DEBIAN_SIM_PACKAGE_NAME libhetla-sim)
set(CPACK_DEBIAN_SIM_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_SIM_DESCRIPTION
    "hetla heterogeneous tile linear algebra: the simulator plugin (hetla simulate, SimGrid) and machine models")
set(CPACK_COMPONENT_SIM_DEPENDS runtime)

set(CPACK_DEBIAN_MPI_PACKAGE_NAME libhetla-mpi)
set(CPACK_DEBIAN_MPI_PACKAGE_SECTION libs)
set(CPACK_COMPONENT_MPI_DESCRIPTION
    "hetla heterogeneous tile linear algebra: distributed routines over MPI (libhetla_mpi), ScaLAPACK names over them (libhetla_scalapack) and hetla bench --grid")
set(CPACK_COMPONENT_MPI_DEPENDS runtime)

set(CPACK_DEBIAN_PYTHON_PACKAGE_NAME python3-hetla)
set(CPACK_DEBIAN_PYTHON_PACKAGE_SECTION python)
set(CPACK_COMPONENT_PYTHON_DESCRIPTION "hetla heterogeneous tile linear algebra: the Python package (import hetla)")
set(CPACK_COMPONENT_PYTHON_DEPENDS runtime)
set(CPACK_DEBIAN_PYTHON_PACKAGE_DEPENDS "python3-numpy")

# Without a shared library (BUILD_SHARED_LIBS=OFF) there is no runtime package.
if(NOT BUILD_SHARED_LIBS)
  get_cmake_property(CPACK_COMPONENTS_ALL COMPONENTS)
  list(REMOVE_ITEM CPACK_COMPONENTS_ALL runtime)
  foreach(c DEV CLI OPENCL CUDA SIM MPI PYTHON)
    set(CPACK_COMPONENT_${c}_DEPENDS "")
  endforeach()
endif()

include(CPack)
