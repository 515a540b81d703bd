# tracesql advise and its rules (rules/*.sql): tests/advise/advise_test.py, one CTest test per rule's
# trigger/close-case pair and per group. Included from tests/CMakeLists.txt.
file(GLOB TQ_ADVISE_CASES CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/advise/cases/*/expected.csv)
set(TQ_ADVISE_TEST ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/advise/advise_test.py
    --tracesql $<TARGET_FILE:tracesql>)
foreach(expected IN LISTS TQ_ADVISE_CASES)
  get_filename_component(case_dir ${expected} DIRECTORY)
  get_filename_component(rule ${case_dir} NAME)
  add_test(NAME advise.rule.${rule} COMMAND ${TQ_ADVISE_TEST} case ${rule})
endforeach()
foreach(group shadow malformed cli shell)
  add_test(NAME advise.${group} COMMAND ${TQ_ADVISE_TEST} ${group})
endforeach()
# Every rule on every real trace (../shared/traces, tests/data/traces), without error.
add_test(NAME advise.real COMMAND ${TQ_ADVISE_TEST} real ${TQ_REAL_DBS})
set_tests_properties(advise.real PROPERTIES TIMEOUT 600 FIXTURES_REQUIRED tq_real_dbs)
# Every rule has its cases.
file(GLOB TQ_ADVISE_RULES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/rules/*.sql)
foreach(rule_file IN LISTS TQ_ADVISE_RULES)
  get_filename_component(rule ${rule_file} NAME_WE)
  if(NOT EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/advise/cases/${rule}/expected.csv)
    message(SEND_ERROR "rules/${rule}.sql has no test case in tests/advise/cases/${rule}")
  endif()
endforeach()
