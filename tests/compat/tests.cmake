# Old SQLite reads tracesql databases (docs/schema.md, "Which SQLite"): freshly imported databases
# opened with SQLite 3.31.1 (schema parses, every table reads) and 3.36.0 (every table and view, and
# the bundled queries docs/queries.md marks as 3.35-compatible, give tracesql's rows), through sql.js
# (SQLite compiled to JavaScript) under Node; compat.lint checks sql/ statically. compat.npm installs
# the sql.js packages (npm ci, tests/compat/package-lock.json) when node_modules is missing; an
# install that fails fails it and every test that needs it. Included from tests/CMakeLists.txt.
set(TQ_COMPAT ${CMAKE_CURRENT_SOURCE_DIR}/compat/compat_test.py)
add_test(NAME compat.lint COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_SOURCE_DIR}/compat/lint_schema.py
                                  ${PROJECT_SOURCE_DIR})
add_test(NAME compat.npm COMMAND ${Python3_EXECUTABLE} ${TQ_COMPAT} --install ${PROJECT_SOURCE_DIR})
set_tests_properties(compat.npm PROPERTIES FIXTURES_SETUP tq_compat_npm TIMEOUT 300 LABELS compat)

# compat_case(NAME [--no-materialize] TRACE...): one database of these traces. A trace of
# ../shared/traces that is missing leaves its case out; the repository's own traces are always there.
function(compat_case name)
  set(args)
  foreach(a IN LISTS ARGN)
    if(NOT a MATCHES "^--" AND NOT EXISTS ${a})
      return()
    endif()
    list(APPEND args ${a})
  endforeach()
  add_test(NAME compat.${name} COMMAND ${Python3_EXECUTABLE} ${TQ_COMPAT} $<TARGET_FILE:tracesql> ${PROJECT_SOURCE_DIR}
                                       ${args})
  set_tests_properties(compat.${name} PROPERTIES FIXTURES_REQUIRED tq_compat_npm TIMEOUT 1500 LABELS compat)
endfunction()

set(TQ_SHARED ${TRACESQL_SHARED_TRACES})
compat_case(tracelens_h100_bert_small_infer ${PROJECT_SOURCE_DIR}/samples/tracelens_h100_bert_small_infer.json.gz)
compat_case(h200_cuda_graph ${CMAKE_CURRENT_SOURCE_DIR}/data/traces/h200_cuda_graph.json.gz)
# Hostile arg values (escapes, big and real numbers, nested JSON): args and event_args byte for byte.
compat_case(args_values ${CMAKE_CURRENT_SOURCE_DIR}/golden/args_values/trace1.json
            ${CMAKE_CURRENT_SOURCE_DIR}/golden/args_out_of_line/trace1.json)
# The rest compare the same SQL on more data: not repeated in the sanitizer build (the SQLite under
# test is JavaScript; tracesql's import runs under the sanitizers in real.* and views.*). The
# JavaScript SQLite returns 0.1-0.3 M cells per CPU-second, so the largest traces (the 2020-21 TensorBoard
# plugin ones, 0.4 M arg rows) are left out: a database of them takes minutes.
if(TRACESQL_SANITIZE)
  return()
endif()
compat_case(hta_a100_nccl_train_fwdbwd ${TQ_SHARED}/hta_a100_nccl_train_fwdbwd.json.gz)
compat_case(hta_mi250_rocm62_minitoy_train ${TQ_SHARED}/hta_mi250_rocm62_minitoy_train.json.gz)
# Two ranks in one database.
compat_case(two_ranks ${TQ_SHARED}/hta_sampled_rank0.json.gz ${TQ_SHARED}/hta_sampled_rank1.json.gz)
# The analysis views kept as views (steps, idle_gaps, ...), on three traces in one database.
compat_case(no_materialize --no-materialize ${TQ_SHARED}/hta_2022_inference_rank1_legacy_cats.json.gz
            ${TQ_SHARED}/kineto_docs_cuda_graph_sync_synthetic.json.gz ${TQ_SHARED}/hta_large_integer_fixture.json.gz)
