# User-region test programs (included by tests/CMakeLists.txt): ur_regions links the user API
# (librocsys-user.so); ur_interop links stand-ins for ROCTx and ROCm Systems Profiler's user
# library, which are not packaged in Debian, so that the programs link and run without them.
foreach(standin roctx rocprofsys)
  add_library(standin-${standin} SHARED ${CMAKE_CURRENT_LIST_DIR}/standin_${standin}.c)
  set_target_properties(standin-${standin} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
foreach(prog ur_regions ur_interop ur_bench)
  add_executable(${prog} ${CMAKE_CURRENT_LIST_DIR}/${prog}.c)
  target_compile_options(${prog} PRIVATE -g -O1 -fno-omit-frame-pointer)
  set_target_properties(${prog} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
endforeach()
target_link_libraries(ur_regions PRIVATE rocsys::user Threads::Threads)
target_link_libraries(ur_bench PRIVATE rocsys::user)
target_link_libraries(ur_interop PRIVATE standin-roctx standin-rocprofsys)
