// The unit tests' main: each run gets a private, empty TMPDIR, and whatever a test leaves in it fails
// the run (a test leaves nothing behind, as the program does). ctest runs each test case as its own
// process, so a leftover names its test.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <stdlib.h>

#include <cstdio>
#include <filesystem>
#include <string>

int main(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::string tmpl = (fs::temp_directory_path() / "tq_unit_XXXXXX").string();
  if (!mkdtemp(tmpl.data())) {
    std::perror("tq_unit_tests: mkdtemp");
    return 2;
  }
  const fs::path dir = tmpl;
  setenv("TMPDIR", dir.c_str(), 1);
  int rc = Catch::Session().run(argc, argv);
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::fprintf(stderr, "tq_unit_tests: left behind in TMPDIR: %s\n", entry.path().filename().c_str());
    rc = rc == 0 ? 1 : rc;
  }
  fs::remove_all(dir, ec);
  return rc;
}
