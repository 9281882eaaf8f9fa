# The layout tests: the collector's C mirrors of runtime types against the runtimes' installed
# C++ headers, each built only when its header is found.
#   test_hsa_layout: collector/hsa_abi.h against hsa/hsa_api_trace.h (the HSA tools interface)
#   test_hip_layout: collector/hip_abi.h against hip/hip_runtime_api.h (the HIP types whose
#                    fields the wrappers read; the headers compile with a plain C++ compiler
#                    once a platform is chosen)

# rocsys_layout_test(NAME HEADER DEFINITION): add unit.NAME from NAME.cpp when HEADER is found
function(rocsys_layout_test name header definition)
  find_path(include_${name} ${header})
  if(NOT include_${name})
    message(STATUS "${header} not found: ${name} not built")
    return()
  endif()
  add_executable(${name} ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/${name}.cpp)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR} ${include_${name}})
  target_compile_definitions(${name} PRIVATE ${definition})
  add_test(NAME unit.${name} COMMAND ${name})
  set_tests_properties(unit.${name} PROPERTIES TIMEOUT 60 LABELS unit)
endfunction()

rocsys_layout_test(test_hsa_layout hsa/hsa_api_trace.h AMD_INTERNAL_BUILD)
rocsys_layout_test(test_hip_layout hip/hip_runtime_api.h __HIP_PLATFORM_AMD__)
