# Debian package: `cpack -G DEB` in a configured build directory makes
# rocsys-top_<version>_<arch>.deb of what `cmake --install` installs, under /usr. Its Depends
# line comes from the built binaries (dpkg-shlibdeps, from dpkg-dev), so it names exactly the
# libraries they link; librocsys-user's shlibs file and ldconfig trigger are generated too.
set(CPACK_PACKAGE_NAME rocsys-top)
set(CPACK_PACKAGE_VENDOR "rocsys-top developers")
# The Maintainer and Homepage fields: set these for a release (-D...; no address is invented)
set(ROCSYS_PACKAGE_MAINTAINER "rocsys-top developers <rocsys-top@example.org>"
    CACHE STRING "Maintainer field of the Debian package")
set(ROCSYS_PACKAGE_HOMEPAGE "" CACHE STRING "Homepage field of the Debian package (empty: none)")
set(CPACK_PACKAGE_CONTACT "${ROCSYS_PACKAGE_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "live terminal profiler for AMD GPU programs")
# one string: the control file's extended description (the summary above is its first line)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "rocsys-top starts a program with a sampling collector injected (no rebuild)
and shows, live in the terminal, where every thread spends its time: call
trees, hot functions, thread states, the program's output, GPU gauges, GPU
kernels and HIP API calls, and the program's own annotated regions. It records
sessions to Perfetto and text files and shows them again.
.
This package has the rocsys-top command and its manual, the collector library,
the rocsys Python module, the user API library and header (include/rocsys),
and the demo programs rocsys-demo and rocsys-regions.")
if(ROCSYS_PACKAGE_HOMEPAGE)
  set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "${ROCSYS_PACKAGE_HOMEPAGE}")
endif()
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# not stripped: the demo programs' symbols are what their call trees show, and install(TARGETS)
# strips all targets or none
set(CPACK_STRIP_FILES OFF)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT) # rocsys-top_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY "=")
# ldconfig runs through dpkg's trigger (lintian: a package with a public library in /usr/lib
# must activate it); CPack's own postinst/postrm calling ldconfig stay, harmless
file(WRITE ${CMAKE_BINARY_DIR}/debian/triggers "activate-noawait ldconfig\n")
# the byte code a Python target run as root writes beside the rocsys module (__pycache__, by
# Debian 13's python3.13) is not the package's: prerm removes it, so that removal leaves nothing
file(WRITE ${CMAKE_BINARY_DIR}/debian/prerm.in "#!/bin/sh\nset -e\n\
rm -rf ${CPACK_PACKAGING_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/rocsys-top/python/rocsys/__pycache__\n")
file(COPY ${CMAKE_BINARY_DIR}/debian/prerm.in DESTINATION ${CMAKE_BINARY_DIR}/debian/tmp
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
file(RENAME ${CMAKE_BINARY_DIR}/debian/tmp/prerm.in ${CMAKE_BINARY_DIR}/debian/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_BINARY_DIR}/debian/triggers ${CMAKE_BINARY_DIR}/debian/prerm)
# the GPU gauges load librocm_smi64 with dlopen: a suggestion, not a dependency
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "librocm-smi64-1, python3")
include(CPack)
