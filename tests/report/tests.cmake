# tracesql report (tests/report): the page in headless Chromium on real traces, bad input, the
# datasets shared with the advisor, the report of a partition directory, and the terminal bar
# format. Included from tests/CMakeLists.txt (this file runs in the tests/ directory scope).
foreach(group IN ITEMS errors shared bar devices)
  add_test(NAME report.${group}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/cli_test.py $<TARGET_FILE:tracesql>
                   ${PROJECT_SOURCE_DIR}/samples/tracelens_h100_bert_small_infer.json.gz ${group})
  set_tests_properties(report.${group} PROPERTIES TIMEOUT 300)
endforeach()

# The report of a partition directory against the report of its merged database, on a generated
# 3-rank job; in headless Chromium too when there is one.
find_program(TQ_CHROMIUM NAMES chromium chromium-browser)
add_test(NAME report.partitions
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/partitions_test.py $<TARGET_FILE:tracesql>
                 ${PROJECT_SOURCE_DIR}/bench/gen_trace.py $<$<BOOL:${TQ_CHROMIUM}>:browser>)
set_tests_properties(report.partitions PROPERTIES TIMEOUT 300)

# The browser test needs Chromium (scripts/install-deps.sh installs it) and the shared real traces.
if(TQ_CHROMIUM AND EXISTS ${TRACESQL_SHARED_TRACES}/hta_sampled_rank0.json.gz)
  add_test(NAME report.browser
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/report/report_test.py $<TARGET_FILE:tracesql>
                   ${TRACESQL_SHARED_TRACES} ${CMAKE_CURRENT_BINARY_DIR}/report_browser
                   ${CMAKE_CURRENT_BINARY_DIR}/report_browser/shots)
  set_tests_properties(report.browser PROPERTIES TIMEOUT 1200)
endif()
