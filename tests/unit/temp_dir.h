// A fresh directory under the system's temporary directory, removed with everything in it.
#ifndef TESTS_UNIT_TEMP_DIR_H_
#define TESTS_UNIT_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace tracesql::testing {

struct TempDir {
  std::filesystem::path path;
  // parent: where it goes (default: the system's temporary directory).
  explicit TempDir(const std::string& prefix = "tq_test", const std::filesystem::path& parent = {}) {
    std::string tmpl =
        ((parent.empty() ? std::filesystem::temp_directory_path() : parent) / (prefix + "_XXXXXX")).string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed: " + tmpl);
    path = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  // Path of a file in the directory.
  std::string operator/(const std::string& name) const { return (path / name).string(); }
  void Write(const std::string& name, const std::string& text) const { std::ofstream(path / name) << text; }
};

}  // namespace tracesql::testing

#endif  // TESTS_UNIT_TEMP_DIR_H_
