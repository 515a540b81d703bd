# The Python package (python/): build the wheel around this build's tracesql, install it into a
# fresh venv, run pytest against it. Included from tests/CMakeLists.txt (tests/ directory scope).
# Not in the sanitizer build (TRACESQL_SANITIZE): the package runs the program, it adds no C++ to check.
if(TRACESQL_SANITIZE)
  return()
endif()
# Debian's python3 (/usr/bin/python3) when there is one: its pandas, pytest and torch are the
# packages the venv sees (--system-site-packages).
find_program(TQ_SYSTEM_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(NOT TQ_SYSTEM_PYTHON)
  set(TQ_SYSTEM_PYTHON ${Python3_EXECUTABLE})
endif()
set(TQ_PY_WORK ${CMAKE_CURRENT_BINARY_DIR}/python)
# The wheel carries the portable program (cmake/Portable.cmake) where the build links one, with the
# libsimdjson it loads from its own directory; python.glibc then checks that wheel for glibc 2.28.
if(TARGET tracesql_portable)
  set(tq_wheel_program $<TARGET_FILE:tracesql_portable>)
else()
  set(tq_wheel_program $<TARGET_FILE:tracesql>)
endif()
add_test(NAME python.wheel
         COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python/build_wheel.sh ${tq_wheel_program}
                 ${PROJECT_SOURCE_DIR}/python ${TQ_PY_WORK} ${TQ_SYSTEM_PYTHON})
set_tests_properties(python.wheel PROPERTIES FIXTURES_SETUP python_venv TIMEOUT 300)
if(TARGET tracesql_portable)
  set_property(TEST python.wheel PROPERTY ENVIRONMENT "TRACESQL_BUNDLE_LIBS=$<TARGET_SONAME_FILE:simdjson::simdjson>")
  add_test(NAME python.glibc
           COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python/check_glibc.sh ${PROJECT_SOURCE_DIR}/python/wheel_tag.py
                   ${TQ_PY_WORK}/dist)
  set_tests_properties(python.glibc PROPERTIES FIXTURES_REQUIRED python_venv)
endif()
# pytest and pandas come from Debian (python3-pytest, python3-pandas; scripts/install-deps.sh).
add_test(NAME python.api COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.sh ${TQ_PY_WORK}/venv
                                 ${CMAKE_CURRENT_SOURCE_DIR}/python/test_api.py)
# torch (python3-torch, an optional package of scripts/install-deps.sh): the test skips (77) without it.
add_test(NAME python.torch COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.sh ${TQ_PY_WORK}/venv
                                   ${CMAKE_CURRENT_SOURCE_DIR}/python/test_torch.py torch)
# tracesql.dask on a LocalCluster (python3-distributed; skipped without it).
add_test(NAME python.dask COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/python/run_pytest.sh ${TQ_PY_WORK}/venv
                                  ${CMAKE_CURRENT_SOURCE_DIR}/python/test_dask.py distributed)
set_tests_properties(python.api python.torch python.dask PROPERTIES FIXTURES_REQUIRED python_venv TIMEOUT 300
                     WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR} SKIP_RETURN_CODE 77
                     ENVIRONMENT "TQ_TRACES=${TRACESQL_SHARED_TRACES};TQ_CLI=$<TARGET_FILE:tracesql>")
