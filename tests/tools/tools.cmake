# Test tools built from the project's own code (included by tests/CMakeLists.txt).
add_executable(rocsys-trace-check ${CMAKE_CURRENT_LIST_DIR}/trace_check.c)
target_link_libraries(rocsys-trace-check PRIVATE rocsys_core)
set_target_properties(rocsys-trace-check PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
