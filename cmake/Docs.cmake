# The API reference: `cmake --build build --target docs` runs Doxygen on the
# public headers (include/hetla/) and docs/ pages into build/docs/api/. Only
# defined when Doxygen is found (Debian package doxygen).
find_package(Doxygen QUIET)
option(HETLA_DOCS_WARN_AS_ERROR "Fail the docs target on a Doxygen warning (e.g. undocumented public API)" OFF)
if(NOT DOXYGEN_FOUND)
  message(STATUS "hetla docs: Doxygen not found, no `docs` target")
  return()
endif()

set(HETLA_DOCS_DIR ${PROJECT_BINARY_DIR}/docs)
# Off by default: a missing comment is reported (log, docs test), not a build failure.
if(HETLA_DOCS_WARN_AS_ERROR)
  set(HETLA_DOXYGEN_WARN_AS_ERROR FAIL_ON_WARNINGS)
else()
  set(HETLA_DOXYGEN_WARN_AS_ERROR NO)
endif()
configure_file(${PROJECT_SOURCE_DIR}/docs/Doxyfile.in ${HETLA_DOCS_DIR}/Doxyfile @ONLY)
file(GLOB HETLA_DOC_INPUTS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/hetla/*.h
     ${PROJECT_SOURCE_DIR}/include/hetla/*.hpp ${PROJECT_SOURCE_DIR}/docs/api.md ${PROJECT_SOURCE_DIR}/docs/cli/*.md)
add_custom_command(OUTPUT ${HETLA_DOCS_DIR}/api/index.html ${HETLA_DOCS_DIR}/hetla.tag
                   COMMAND Doxygen::doxygen ${HETLA_DOCS_DIR}/Doxyfile
                   DEPENDS ${HETLA_DOC_INPUTS} ${HETLA_DOCS_DIR}/Doxyfile
                   WORKING_DIRECTORY ${HETLA_DOCS_DIR}
                   COMMENT "Doxygen: API reference in ${HETLA_DOCS_DIR}/api (warnings: doxygen-warnings.log)")
add_custom_target(docs DEPENDS ${HETLA_DOCS_DIR}/api/index.html)
