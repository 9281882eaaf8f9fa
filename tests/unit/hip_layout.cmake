# test_hip_layout: the collector's C mirror of the HIP types whose fields it reads
# (collector/hip_abi.h) against the installed HIP headers (only when hip/hip_runtime_api.h is
# found; they compile with a plain C++ compiler once a platform is chosen).
find_path(ROCSYS_HIP_INCLUDE hip/hip_runtime_api.h)
if(ROCSYS_HIP_INCLUDE)
  add_executable(test_hip_layout ${CMAKE_CURRENT_LIST_DIR}/test_hip_layout.cpp)
  target_include_directories(test_hip_layout PRIVATE ${CMAKE_SOURCE_DIR} ${ROCSYS_HIP_INCLUDE})
  target_compile_definitions(test_hip_layout PRIVATE __HIP_PLATFORM_AMD__)
  add_test(NAME unit.test_hip_layout COMMAND test_hip_layout)
  set_tests_properties(unit.test_hip_layout PROPERTIES TIMEOUT 60 LABELS unit)
else()
  message(STATUS "hip/hip_runtime_api.h not found: test_hip_layout not built")
endif()
