# tracesql export: the CLI (errors, --force, never an input, gzip, the findings, a golden overlay) and
# the round trip of every real trace (export --with-trace imports back with the same events, flows and
# header, plus the overlay tracks). Included from tests/CMakeLists.txt.
add_test(NAME export.cli
         COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/cli_test.sh $<TARGET_FILE:tracesql> ${CMAKE_CURRENT_LIST_DIR}/data)
add_test(NAME export.roundtrip
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/roundtrip.py $<TARGET_FILE:tracesql>
                 ${CMAKE_CURRENT_LIST_DIR}/data/step_gaps.json ${TQ_REAL_TRACES})
