# tracesql critical-path: the CLI (errors, replacing a window's rows) and every real trace (the path
# is connected, in time order, as long as the window; critical_path_summary adds up to 100 %).
# The graph itself is tested by the golden cases tests/golden/cp_*.
add_test(NAME critical_path.cli
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh $<TARGET_FILE:tracesql>
                 ${CMAKE_CURRENT_LIST_DIR}/../golden/cp_gpu_bound/trace1.json)
add_test(NAME critical_path.real
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_real_traces.py $<TARGET_FILE:tracesql>
                 ${TQ_REAL_DBS})
set_tests_properties(critical_path.real PROPERTIES FIXTURES_REQUIRED tq_real_dbs)
