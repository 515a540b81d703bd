#include "tracesql/files.h"

#include <sys/stat.h>

#include <cstdio>
#include <cstring>

#include "tracesql/error.h"

namespace tracesql {

bool SameFile(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  if (stat(a.c_str(), &sa) != 0 || stat(b.c_str(), &sb) != 0) return false;
  return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

bool IsEmptyOrSqliteFile(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
  if (st.st_size == 0) return true;
  static constexpr char kHeader[16] = "SQLite format 3";  // with its terminating NUL: 16 bytes
  char head[sizeof kHeader] = {};
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  size_t n = std::fread(head, 1, sizeof head, f);
  std::fclose(f);
  return n == sizeof head && std::memcmp(head, kHeader, sizeof head) == 0;
}

void CheckNewOutput(const std::string& out, bool force, const std::vector<std::string>& inputs,
                    std::string_view command) {
  struct stat st {};
  if (stat(out.c_str(), &st) != 0) return;  // nothing there yet
  if (S_ISDIR(st.st_mode)) Errorf("{}: is a directory", out);
  for (const auto& in : inputs) {
    if (SameFile(out, in)) {
      Errorf("{}: is an input of this {}, never overwritten (choose another -o)", out, command);
    }
  }
  if (!force) Errorf("{}: exists (use --force to replace it)", out);
}

TempDbGuard::~TempDbGuard() {
  if (released_) return;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
}

}  // namespace tracesql
