# `cmake --install`: program, man page and docs (tests/cli/install_test.sh). Included from
# tests/CMakeLists.txt.
add_test(NAME cli.install COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/cli/install_test.sh ${PROJECT_BINARY_DIR})
