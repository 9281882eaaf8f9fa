# MPI test programs (included by tests/CMakeLists.txt). mpich_style_main runs calls of an
# MPICH-style stand-in MPI library (int handles; standin_mpich.c), so that the collector's MPI wrappers are
# tested with MPICH's ABI without MPICH installed (tests/e2e/test_mpi_abi.sh). The Open MPI
# program (mpi_imbalance.c) is built by its test with mpicc.
add_library(standin-mpich SHARED ${CMAKE_CURRENT_LIST_DIR}/standin_mpich.c)
set_target_properties(standin-mpich PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
add_executable(mpich_style_main ${CMAKE_CURRENT_LIST_DIR}/mpich_style_main.c)
target_compile_options(mpich_style_main PRIVATE -g -O1 -fno-omit-frame-pointer)
set_target_properties(mpich_style_main PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
# mpich_local_ext: the calls, in a library linked to the stand-in, which mpich_style_main loads
# with dlopen, RTLD_GLOBAL or RTLD_LOCAL (as Python loads an extension module: the stand-in's
# PMPI_ functions are then outside the global scope).
add_library(mpich-local-ext SHARED ${CMAKE_CURRENT_LIST_DIR}/mpich_local_ext.c)
set_target_properties(mpich-local-ext PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
target_compile_options(mpich-local-ext PRIVATE -g -O1 -fno-omit-frame-pointer)
target_link_libraries(mpich-local-ext PRIVATE standin-mpich)
target_link_libraries(mpich_style_main PRIVATE ${CMAKE_DL_LIBS})
