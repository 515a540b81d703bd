# Reliability tests (issue 6): hostile values, truncation, faults, signals and concurrent imports.
# See docs/reliability.md for what each guarantees.
set(TQ_REL_DIR ${CMAKE_CURRENT_SOURCE_DIR}/reliability)

# C++ (Catch2): the JSON text helpers and one case per kind of hostile value.
add_executable(tq_reliability_tests ${TQ_REL_DIR}/main.cc ${TQ_REL_DIR}/json_text_test.cc ${TQ_REL_DIR}/hostile_test.cc)
target_include_directories(tq_reliability_tests PRIVATE ${PROJECT_SOURCE_DIR}/src)
target_compile_definitions(tq_reliability_tests PRIVATE TQ_TRACESQL_BIN="$<TARGET_FILE:tracesql>")
target_link_libraries(tq_reliability_tests PRIVATE tracesql_core Catch2::Catch2 ZLIB::ZLIB tq_warnings tq_options)
add_dependencies(tq_reliability_tests tracesql)
catch_discover_tests(tq_reliability_tests TEST_PREFIX "reliability.")

# Scripts: real traces cut at many points, injected faults and signals, concurrent imports.
# Under the sanitizers (slower) the sweeps are smaller; the figures in docs/reliability.md come
# from the full ones.
if(TRACESQL_SANITIZE)
  set(tq_trunc_points 20)
  set(tq_fault_events 100000)
else()
  set(tq_trunc_points 50)
  set(tq_fault_events 200000)
endif()
add_test(NAME reliability.truncation
         COMMAND ${Python3_EXECUTABLE} ${TQ_REL_DIR}/truncation.py $<TARGET_FILE:tracesql> ${TRACESQL_SHARED_TRACES}
                 --points ${tq_trunc_points})
add_test(NAME reliability.faults
         COMMAND ${Python3_EXECUTABLE} ${TQ_REL_DIR}/faults.py $<TARGET_FILE:tracesql> ${TRACESQL_SHARED_TRACES}
                 --events ${tq_fault_events})
add_test(NAME reliability.concurrency COMMAND ${Python3_EXECUTABLE} ${TQ_REL_DIR}/concurrency.py $<TARGET_FILE:tracesql>)
set_tests_properties(reliability.truncation reliability.faults reliability.concurrency PROPERTIES TIMEOUT 900)

# Untrusted databases: crafted .db files (unknown functions, triggers, load_extension, a future
# schema version, a corrupt page) give errors, never crashes, and run nothing.
add_test(NAME reliability.untrusted_db
         COMMAND ${Python3_EXECUTABLE} ${TQ_REL_DIR}/untrusted_db.py $<TARGET_FILE:tracesql>
                 ${PROJECT_SOURCE_DIR}/samples/tracelens_h100_bert_small_infer.json.gz)
