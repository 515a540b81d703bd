# Importer fuzzing (issue 6): tests/fuzz/fuzz_import.cc imports each input into a database and
# checks the schema invariants. With clang it links libFuzzer (tq_fuzz_import); every compiler also
# builds the same harness with a replay main (tq_fuzz_replay) so it never rots, and ctest replays
# the regressions, the hand-written corpus and the golden fixtures through it.
if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  set(tq_fuzz_default ON)
else()
  set(tq_fuzz_default OFF)
endif()
option(TRACESQL_BUILD_FUZZERS "Build the libFuzzer importer fuzzer tq_fuzz_import (needs clang)" ${tq_fuzz_default})
option(TRACESQL_FUZZ_INSTRUMENT "Instrument tracesql_core for coverage-guided fuzzing (clang, with TRACESQL_SANITIZE)" OFF)

set(TQ_FUZZ_DIR ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

add_executable(tq_fuzz_replay ${TQ_FUZZ_DIR}/fuzz_import.cc ${TQ_FUZZ_DIR}/replay_main.cc)
target_compile_definitions(tq_fuzz_replay PRIVATE TQ_SOURCE_DIR="${PROJECT_SOURCE_DIR}")
target_link_libraries(tq_fuzz_replay PRIVATE tracesql_core simdjson::simdjson ZLIB::ZLIB tq_warnings tq_options)
# The regressions and the hand-written corpus. The golden fixtures' traces are seeds (make_seeds.py),
# replayed once, by fuzz.replay_real_seeds.
add_test(NAME fuzz.replay COMMAND tq_fuzz_replay ${TQ_FUZZ_DIR}/regressions ${TQ_FUZZ_DIR}/corpus)
# The seeds (make_seeds.py): every golden fixture's trace and windows cut from the real traces in
# ../shared/traces, through the same checks.
add_test(NAME fuzz.replay_real_seeds
         COMMAND bash ${TQ_FUZZ_DIR}/run_fuzz.sh --replay $<TARGET_FILE:tq_fuzz_replay> ${CMAKE_CURRENT_BINARY_DIR}/fuzz-replay-seeds)
set_tests_properties(fuzz.replay fuzz.replay_real_seeds PROPERTIES TIMEOUT 600)

if(TRACESQL_FUZZ_INSTRUMENT)
  target_compile_options(tracesql_core PRIVATE -fsanitize=fuzzer-no-link)
  target_link_options(tracesql_core INTERFACE -fsanitize=fuzzer-no-link)
endif()

if(TRACESQL_BUILD_FUZZERS)
  add_executable(tq_fuzz_import ${TQ_FUZZ_DIR}/fuzz_import.cc)
  target_compile_definitions(tq_fuzz_import PRIVATE TQ_SOURCE_DIR="${PROJECT_SOURCE_DIR}" TQ_WITH_LIBFUZZER=1)
  target_compile_options(tq_fuzz_import PRIVATE -fsanitize=fuzzer)
  target_link_options(tq_fuzz_import PRIVATE -fsanitize=fuzzer)
  target_link_libraries(tq_fuzz_import PRIVATE tracesql_core simdjson::simdjson ZLIB::ZLIB tq_warnings tq_options)
  if(TRACESQL_FUZZ_INSTRUMENT)
    # A short coverage-guided run in CI (scripts/test.sh builds build-asan with clang).
    add_test(NAME fuzz.short
             COMMAND bash ${TQ_FUZZ_DIR}/run_fuzz.sh --fuzz $<TARGET_FILE:tq_fuzz_import> ${CMAKE_CURRENT_BINARY_DIR}/fuzz-seeds 45)
    # 45 s of fuzzing after the seed corpus is loaded; loading the 170 seeds under ASan and the
    # fuzzer's instrumentation takes 30 s on 2 idle cores and over 150 s when they are shared.
    set_tests_properties(fuzz.short PROPERTIES TIMEOUT 420)
  endif()
endif()
