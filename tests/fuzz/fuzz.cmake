# The fuzz targets' inputs replayed in the normal build (no clang needed): each
# tests/fuzz/fuzz_NAME.c linked with replay_main.c runs every seed of corpus/NAME and every
# input of regressions/NAME (what a fuzzer once crashed on) through its parser. The libFuzzer
# builds are tests/fuzz/CMakeLists.txt (-DROCSYS_FUZZ=ON, scripts/fuzz).
file(GLOB FUZZ_TARGETS CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_*.c)
foreach(src ${FUZZ_TARGETS})
  get_filename_component(name ${src} NAME_WE)
  string(REPLACE "fuzz_" "" short ${name})
  add_executable(replay_${name} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/replay_main.c ${src})
  target_link_libraries(replay_${name} PRIVATE rocsys_core)
  add_test(NAME fuzz.${short} COMMAND replay_${name}
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus/${short}
    ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions/${short})
  set_tests_properties(fuzz.${short} PROPERTIES TIMEOUT 300 LABELS fuzz)
endforeach()
