# The docs keep up with the code: docs/schema.md describes every table, view and column where it
# describes that object, every CREATE TABLE column in sql/schema/ has a comment, and docs/queries.md
# names every bundled query. Included from tests/CMakeLists.txt.
add_test(NAME docs.coverage
         COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/docs/check_docs.py $<TARGET_FILE:tracesql>
                 ${PROJECT_SOURCE_DIR}/samples/tracelens_h100_bert_small_infer.json.gz ${PROJECT_SOURCE_DIR})
