# The relocatable archive for users without root (`cpack -G TGZ`: rocsys-top-<version>-Linux-
# <arch>.tar.gz, one top directory holding bin/, lib/, include/, share/): unpacked anywhere, it
# runs from there. rocsys-top finds its collector and Python module relative to itself, the
# pkg-config and CMake files of the user API are prefix-relative, and what it installs here
# serves the archive and every other install alike:
#   bin/rocsys-top-check            names the system libraries needed, and the missing ones
#   share/modulefiles/rocsys-top/V  a Tcl environment module (Lmod, environment-modules)
#   share/rocsys-top/examples/      an sbatch script and a Python example
set(ROCSYS_MODULEFILE_ROOT ${CMAKE_INSTALL_DATADIR}/modulefiles)
set(ROCSYS_MODULEFILE_DIR ${ROCSYS_MODULEFILE_ROOT}/rocsys-top)
# the modulefile's depth below the prefix (prefix/share/modulefiles/rocsys-top/V: 4)
string(REGEX MATCHALL "/" _slashes "${ROCSYS_MODULEFILE_DIR}/${PROJECT_VERSION}")
list(LENGTH _slashes ROCSYS_MODULEFILE_DEPTH)
math(EXPR ROCSYS_MODULEFILE_DEPTH "${ROCSYS_MODULEFILE_DEPTH} + 1")
configure_file(${CMAKE_CURRENT_LIST_DIR}/archive/modulefile.in
  ${CMAKE_BINARY_DIR}/modulefile/${PROJECT_VERSION} @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/modulefile/${PROJECT_VERSION}
  DESTINATION ${ROCSYS_MODULEFILE_DIR})
configure_file(${CMAKE_CURRENT_LIST_DIR}/archive/check.sh.in ${CMAKE_BINARY_DIR}/rocsys-top-check
  @ONLY)
install(PROGRAMS ${CMAKE_BINARY_DIR}/rocsys-top-check DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${CMAKE_SOURCE_DIR}/examples/slurm/rocsys-top.sbatch
  ${CMAKE_SOURCE_DIR}/examples/python/train.py
  DESTINATION ${CMAKE_INSTALL_DATADIR}/rocsys-top/examples)
# cpack reads this per generator: the archive's files sit under its top directory, not /usr
configure_file(${CMAKE_CURRENT_LIST_DIR}/archive/cpack_options.cmake.in
  ${CMAKE_BINARY_DIR}/CPackOptions.cmake @ONLY)
set(CPACK_PROJECT_CONFIG_FILE ${CMAKE_BINARY_DIR}/CPackOptions.cmake)
