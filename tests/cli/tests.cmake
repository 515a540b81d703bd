# `cmake --install`: program, man page and docs (tests/cli/install_test.sh). Included from
# tests/CMakeLists.txt.
add_test(NAME cli.install COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/install_test.sh ${PROJECT_BINARY_DIR})
# import --partitioned, merge, query/run over a partition directory (tests/cli/partitions_test.py).
add_test(NAME cli.partitions COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/partitions_test.py
         $<TARGET_FILE:tracesql> ${PROJECT_SOURCE_DIR}/bench/gen_trace.py ${TQ_REAL_TRACES})
# The plans that keep launch_stats and launch_delays fast: their GROUP BY streams from the covering
# index op_kernel_links_launch_name (tests/cli/query_plans_test.py).
add_test(NAME cli.query_plans COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/cli/query_plans_test.py
         $<TARGET_FILE:tracesql> ${CMAKE_CURRENT_SOURCE_DIR}/golden/q_launch_stats_graph/trace1.json)
