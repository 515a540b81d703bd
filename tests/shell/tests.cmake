# Shell and query-runner tests (issue 4): tests/shell/shell_test.py, one CTest test per group.
# Included from tests/CMakeLists.txt (this file runs in the tests/ directory scope).
set(TQ_SHELL_GROUPS formats batch errors params queries shortcut shortcut_readonly safety import_cmd pty bundled)
foreach(group IN LISTS TQ_SHELL_GROUPS)
  add_test(NAME shell.${group}
           COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/shell/shell_test.py
                   --tracesql $<TARGET_FILE:tracesql>
                   --sample ${PROJECT_SOURCE_DIR}/samples/tracelens_h100_bert_small_infer.json.gz
                   ${group})
  set_tests_properties(shell.${group} PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
endforeach()
