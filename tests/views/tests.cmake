# Analysis views on every real trace (TQ_REAL_TRACES: ../shared/traces and tests/data/traces) (issue 3): each GPU op once in
# op_kernels, launches by correlation against an independent count, idle_gaps + busy union = device
# span to the nanosecond, autograd_pairs sequence numbers, steps' GPU extents, and materialised tables
# == --no-materialize views. Included from tests/CMakeLists.txt (tests/ directory scope); golden cases
# for the views live in tests/golden/views_*.
foreach(trace IN LISTS TQ_REAL_TRACES)
  get_filename_component(trace_name ${trace} NAME)
  string(REGEX REPLACE "\\.json(\\.gz)?$" "" trace_name "${trace_name}")
  add_test(NAME views.${trace_name}
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/tools/check_views.sh $<TARGET_FILE:tracesql> ${trace})
  set_tests_properties(views.${trace_name} PROPERTIES TIMEOUT 300 LABELS views)
endforeach()
