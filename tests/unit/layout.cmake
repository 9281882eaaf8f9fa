# The layout tests: the collector's C mirrors of runtime types against the runtimes' installed
# C++ headers, each built only when its header is found.
#   test_hsa_layout: collector/hsa_layout.c and hsa_abi.h against hsa/hsa_api_trace.h (the HSA
#                    tools interface): the row the collector picks for the installed release's
#                    tables, and its offsets
#   test_hip_layout: collector/hip_abi.h against hip/hip_runtime_api.h (the HIP types whose
#                    fields the wrappers read; the headers compile with a plain C++ compiler
#                    once a platform is chosen)
#   hsa_layout_releases: test_hsa_layout.cpp against each release's headers found under
#                    $ROCSYS_HSA_HEADERS (tests/unit/hsa_layout_releases.sh; skipped without)
#   test_hsa_layout_rows (tests/unit/test_hsa_layout_rows.c): the layout table's own rules

# the collector's table of HSA layouts, alone: for the tests that check it
add_library(rocsys_hsa_layout STATIC ${CMAKE_SOURCE_DIR}/collector/hsa_layout.c)
target_link_libraries(test_hsa_layout_rows PRIVATE rocsys_hsa_layout)

# rocsys_layout_test(NAME HEADER DEFINITION [LIBS...]): add unit.NAME from NAME.cpp when HEADER
# is found
function(rocsys_layout_test name header definition)
  find_path(include_${name} ${header})
  if(NOT include_${name})
    message(STATUS "${header} not found: ${name} not built")
    return()
  endif()
  add_executable(${name} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.cpp)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR} ${include_${name}})
  target_compile_definitions(${name} PRIVATE ${definition})
  target_link_libraries(${name} PRIVATE ${ARGN})
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES TIMEOUT 60 LABELS unit)
endfunction()

rocsys_layout_test(test_hsa_layout hsa/hsa_api_trace.h AMD_INTERNAL_BUILD rocsys_hsa_layout)
rocsys_layout_test(test_hip_layout hip/hip_runtime_api.h __HIP_PLATFORM_AMD__)

# test_hsa_layout.cpp compiled against other releases' headers at test time: ROCSYS_HSA_HEADERS
# names a directory with one extracted package root per release (scripts/hsa-headers makes it)
add_test(NAME unit.hsa_layout_releases
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/hsa_layout_releases.sh ${CMAKE_CXX_COMPILER}
    ${CMAKE_SOURCE_DIR} $<TARGET_FILE:rocsys_hsa_layout> ${CMAKE_CURRENT_BINARY_DIR}/hsa_releases)
set_tests_properties(unit.hsa_layout_releases PROPERTIES TIMEOUT 300 LABELS unit
  SKIP_RETURN_CODE 77)
