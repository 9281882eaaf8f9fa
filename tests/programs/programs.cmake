# Extra test programs (included by tests/CMakeLists.txt; tests/programs/tp_*.c are built by its
# glob). tp_static: a statically linked program, for the "static binary is detected" test.
# Built only if the C library has a static archive (libc.a); otherwise the test skips.
include(CheckCSourceCompiles)
set(CMAKE_REQUIRED_LINK_OPTIONS -static)
check_c_source_compiles("int main(void) { return 0; }" ROCSYS_CAN_LINK_STATIC)
unset(CMAKE_REQUIRED_LINK_OPTIONS)

if(ROCSYS_CAN_LINK_STATIC)
  add_executable(tp_static ${CMAKE_CURRENT_LIST_DIR}/static_main.c)
  target_compile_options(tp_static PRIVATE -g -O1 -fno-omit-frame-pointer)
  target_link_options(tp_static PRIVATE -static)
  # Output next to the other test programs (ROCSYS_PROGRAMS in the e2e tests).
  set_target_properties(tp_static PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
else()
  message(STATUS "No static libc: tp_static (static binary test program) not built")
endif()

# tp_plugin: a shared library that tp_dlopen loads at run time, for the "modules loaded after
# start are symbolized" test.
add_library(tp_plugin SHARED ${CMAKE_CURRENT_LIST_DIR}/plugin.c)
target_compile_options(tp_plugin PRIVATE -g -O1 -fno-omit-frame-pointer)
set_target_properties(tp_plugin PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# tp_loader_ctor: a library whose constructor works while ld.so starts tp_loader_resolver (the
# loader's start: _dl_start_user > _dl_init, test_deep_stacks).
add_library(tp_loader_ctor SHARED ${CMAKE_CURRENT_LIST_DIR}/loader_ctor.c)
target_compile_options(tp_loader_ctor PRIVATE -g -O1 -fno-omit-frame-pointer)
set_target_properties(tp_loader_ctor PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(tp_loader_resolver PRIVATE tp_loader_ctor)

# tp_dlsym_lock: a preloaded dlsym that takes a pthread mutex (test_causal: the lookups of
# librocsys-causal.so's wrappers neither recurse nor deadlock).
add_library(tp_dlsym_lock SHARED ${CMAKE_CURRENT_LIST_DIR}/dlsym_lock.c)
target_link_libraries(tp_dlsym_lock PRIVATE Threads::Threads ${CMAKE_DL_LIBS})
set_target_properties(tp_dlsym_lock PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# standin_rsmi_noisy: a librocm_smi64 stand-in that prints on every read, for the "library
# chatter never reaches the screen" TUI test.
add_library(standin-rsmi-noisy SHARED ${CMAKE_CURRENT_LIST_DIR}/standin_rsmi_noisy.c)
set_target_properties(standin-rsmi-noisy PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# standin_rsmi_hang: a librocm_smi64 stand-in whose rsmi_init (or a later read) never returns,
# for the "never hang, always stoppable" test (test_gpu_hang).
add_library(standin-rsmi-hang SHARED ${CMAKE_CURRENT_LIST_DIR}/standin_rsmi_hang.c)
set_target_properties(standin-rsmi-hang PROPERTIES
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# tp_fakepy: exports the symbols a CPython 3.12 exports (-rdynamic), with a frame chain into
# unmapped memory: the collector's guarded reads of Python frames fault (test_python_safety).
target_link_options(tp_fakepy PRIVATE -rdynamic)
