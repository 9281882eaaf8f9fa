# The HSA tools-interface harness (tp_hsa_harness, built by the tp_*.c glob) plays the ROCr
# runtime's part; fakehip stands in for libamdhip64's launch entry points; tp_hsa_tool2 is a
# second tools library for the coexistence test.
add_library(tp_fakehip SHARED ${CMAKE_CURRENT_LIST_DIR}/fakehip.c)
set_target_properties(tp_fakehip PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/fakehip.map)
# libamdhip64's symbol versions (hip_4.2 ... hip_6.4), as the real library exports them
target_link_options(tp_fakehip PRIVATE -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/fakehip.map)
add_library(tp_hsa_tool2 SHARED ${CMAKE_CURRENT_LIST_DIR}/hsa_tool2.c
  ${CMAKE_SOURCE_DIR}/collector/hsa_layout.c)
target_include_directories(tp_hsa_tool2 PRIVATE ${CMAKE_SOURCE_DIR})
set_target_properties(tp_hsa_tool2 PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# the tables in each known layout: the collector's own table of layouts (collector/hsa_layout.c)
target_sources(tp_hsa_harness PRIVATE ${CMAKE_CURRENT_LIST_DIR}/hsa_harness_tables.c
  ${CMAKE_CURRENT_LIST_DIR}/hsa_harness_causal.c ${CMAKE_SOURCE_DIR}/collector/hsa_layout.c)
target_include_directories(tp_hsa_harness PRIVATE ${CMAKE_SOURCE_DIR})
target_link_libraries(tp_hsa_harness PRIVATE tp_fakehip ${CMAKE_DL_LIBS})
# the host stubs are looked up by the collector's table only by address: no export needed
# tp_gpu_wait: CPU work and device waits of the stand-in library, from known functions
add_executable(tp_gpu_wait ${CMAKE_CURRENT_LIST_DIR}/gpu_wait_main.c)
target_compile_options(tp_gpu_wait PRIVATE -g -O1 -fno-omit-frame-pointer)
target_link_libraries(tp_gpu_wait PRIVATE tp_fakehip)
set_target_properties(tp_gpu_wait PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# tp_hip6: calls the HIP 6.x entry points of fakehip6_api.h as a program built against the 6.x
# headers does (versioned references into the stand-in), for test_hip6.sh
add_executable(tp_hip6 ${CMAKE_CURRENT_LIST_DIR}/hip6_main.c)
target_compile_options(tp_hip6 PRIVATE -g -O1 -fno-omit-frame-pointer)
target_link_libraries(tp_hip6 PRIVATE tp_fakehip)
set_target_properties(tp_hip6 PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
