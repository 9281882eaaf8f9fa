# test_causal_twice: tp_causal_single built a second time, its hot_part doing 80 % of its work
# (the "real" 20 % faster build that the causal prediction at 20 % is checked against)
add_executable(tp_causal_single_fast ${CMAKE_CURRENT_SOURCE_DIR}/programs/tp_causal_single.c)
target_compile_definitions(tp_causal_single_fast PRIVATE TP_HOT_WORK_PCT=80)
target_compile_options(tp_causal_single_fast PRIVATE -g -O1 -fno-omit-frame-pointer)
target_link_libraries(tp_causal_single_fast PRIVATE Threads::Threads m)
