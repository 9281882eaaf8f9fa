# test_hsa_layout: the collector's C mirror of the HSA tools interface against the installed
# ROCm's C++ header (only when /usr/include/hsa/hsa_api_trace.h or similar is found).
find_path(ROCSYS_HSA_TRACE_INCLUDE hsa/hsa_api_trace.h)
if(ROCSYS_HSA_TRACE_INCLUDE)
  add_executable(test_hsa_layout ${CMAKE_CURRENT_LIST_DIR}/test_hsa_layout.cpp)
  target_include_directories(test_hsa_layout PRIVATE ${CMAKE_SOURCE_DIR} ${ROCSYS_HSA_TRACE_INCLUDE})
  target_compile_definitions(test_hsa_layout PRIVATE AMD_INTERNAL_BUILD)
  add_test(NAME unit.test_hsa_layout COMMAND test_hsa_layout)
  set_tests_properties(unit.test_hsa_layout PROPERTIES TIMEOUT 60 LABELS unit)
else()
  message(STATUS "hsa/hsa_api_trace.h not found: test_hsa_layout not built")
endif()
