# What hetlaConfig.cmake must find before it imports hetla::hetla: the
# packages whose targets appear in the exported target's link interface.
# A shared libhetla links everything PRIVATE (nothing to find; its public
# headers need only the C++ standard library); a static one carries its
# dependencies as $<LINK_ONLY:...> entries, so the consumer needs them too.
# Sets HETLA_CONFIG_FIND_DEPENDENCIES (CMake code for hetlaConfig.cmake.in).
set(HETLA_CONFIG_FIND_DEPENDENCIES "")
get_target_property(_hetla_type hetla TYPE)
if(_hetla_type STREQUAL "STATIC_LIBRARY")
  get_target_property(_hetla_libs hetla LINK_LIBRARIES)
  set(_deps "")
  foreach(_lib IN LISTS _hetla_libs)
    if(_lib STREQUAL "Threads::Threads")
      list(APPEND _deps "find_dependency(Threads)")
    elseif(_lib STREQUAL "BLAS::BLAS" OR _lib STREQUAL "LAPACK::LAPACK")
      # The vendor hetla was built with (FindBLAS/FindLAPACK read BLA_VENDOR).
      list(APPEND _deps "if(NOT DEFINED BLA_VENDOR)\n  set(BLA_VENDOR \"${BLA_VENDOR}\")\nendif()"
                        "find_dependency(BLAS)" "find_dependency(LAPACK)")
    elseif(_lib STREQUAL "PkgConfig::HWLOC")
      list(APPEND _deps "find_dependency(PkgConfig)"
                        "if(NOT TARGET PkgConfig::HWLOC)\n  pkg_check_modules(HWLOC REQUIRED IMPORTED_TARGET hwloc)\nendif()")
    elseif(_lib STREQUAL "OpenCL::OpenCL")
      list(APPEND _deps "find_dependency(OpenCL)")
    elseif(_lib STREQUAL "clblast")
      list(APPEND _deps "find_dependency(CLBlast)")
    elseif(_lib MATCHES "^CUDA::")
      list(APPEND _deps "if(NOT DEFINED CUDAToolkit_ROOT AND EXISTS \"${CUDAToolkit_ROOT}\")\n  set(CUDAToolkit_ROOT \"${CUDAToolkit_ROOT}\")\nendif()"
                        "find_dependency(CUDAToolkit)")
    elseif(_lib MATCHES "::")
      message(FATAL_ERROR "cmake/ConfigDependencies.cmake: hetla links ${_lib}; say which package provides it")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES _deps)
  list(JOIN _deps "\n" HETLA_CONFIG_FIND_DEPENDENCIES)
endif()
