# test_symbolize's helper: libsymtest.so (C and C++ functions at known lines, -g -O2) and a
# copy stripped with objcopy --strip-all, whose paths the test gets as compile definitions.
if(TARGET test_symbolize)
  add_library(symtest SHARED ${CMAKE_CURRENT_LIST_DIR}/symtest/symtest.c
                             ${CMAKE_CURRENT_LIST_DIR}/symtest/symtest_cxx.cpp)
  target_compile_options(symtest PRIVATE -g -O2)
  target_include_directories(symtest PRIVATE ${CMAKE_CURRENT_LIST_DIR}/symtest)
  set_target_properties(symtest PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

  if(NOT CMAKE_OBJCOPY)
    find_program(CMAKE_OBJCOPY objcopy REQUIRED)
  endif()
  set(SYMTEST_STRIPPED ${CMAKE_CURRENT_BINARY_DIR}/libsymtest-stripped.so)
  add_custom_command(OUTPUT ${SYMTEST_STRIPPED}
    COMMAND ${CMAKE_OBJCOPY} --strip-all $<TARGET_FILE:symtest> ${SYMTEST_STRIPPED}
    DEPENDS symtest
    COMMENT "Stripping libsymtest.so"
    VERBATIM)
  add_custom_target(symtest_stripped DEPENDS ${SYMTEST_STRIPPED})

  add_dependencies(test_symbolize symtest symtest_stripped)
  target_include_directories(test_symbolize PRIVATE ${CMAKE_CURRENT_LIST_DIR}/symtest)
  target_compile_definitions(test_symbolize PRIVATE
    SYMTEST_LIB="$<TARGET_FILE:symtest>"
    SYMTEST_STRIPPED_LIB="${SYMTEST_STRIPPED}")
  target_link_libraries(test_symbolize PRIVATE ${CMAKE_DL_LIBS})
endif()
