#include "tracesql/files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

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

bool SyncPath(const std::string& path, bool directory) {
  int fd = open(path.c_str(), O_RDONLY | (directory ? O_DIRECTORY : 0) | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = fsync(fd) == 0;
  close(fd);
  return ok;
}

void MoveIntoPlace(const std::string& tmp, const std::string& path, bool replace, std::string_view what) {
  auto fail = [&](int err) {
    Errorf("{}: cannot move the finished {} into place: {}", path, what, std::strerror(err));
  };
  auto exists = [&] {
    Errorf("{}: {} already exists (created by another import meanwhile; use --force to replace it)", path, what);
  };
  std::error_code ec;
  bool directory = std::filesystem::is_directory(tmp, ec);
  if (!replace) {
    if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_NOREPLACE) == 0) return;
    if (errno == EEXIST || errno == ENOTEMPTY) exists();
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) fail(errno);
    if (!directory) {
      if (link(tmp.c_str(), path.c_str()) == 0) {
        unlink(tmp.c_str());
        return;
      }
      if (errno == EEXIST) exists();
    }
    // Neither is supported (e.g. some network or FUSE file systems): fall back to rename.
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
    return;
  }
  if (!directory) {
    if (std::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
    return;
  }
  // rename() cannot replace a directory that is not empty: the two are exchanged.
  if (renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, path.c_str(), RENAME_EXCHANGE) == 0) {
    std::filesystem::remove_all(tmp, ec);  // the old directory, now under the temporary name
    return;
  }
  // No RENAME_EXCHANGE on this file system: the old directory is moved aside first.
  std::string old = tmp + ".old";
  if (std::rename(path.c_str(), old.c_str()) != 0 || std::rename(tmp.c_str(), path.c_str()) != 0) fail(errno);
  std::filesystem::remove_all(old, ec);
}

TempDbGuard::~TempDbGuard() {
  if (released_) return;
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
}

}  // namespace tracesql
