// What a path names on disk, for the checks made before a file is written: never an input, and
// --force replaces only a database.
#ifndef TRACESQL_FILES_H_
#define TRACESQL_FILES_H_

#include <string>
#include <utility>
#include <string_view>
#include <vector>

namespace tracesql {

// Whether a and b name the same file: the same device and inode once symlinks are followed, so
// "a", "./a", a symlink to a and a hard link of a all do. False when either cannot be stat()ed.
bool SameFile(const std::string& a, const std::string& b);

// Whether replacing the existing file at path loses nothing but a database: it is empty, or it begins
// with SQLite's 16-byte header ("SQLite format 3\0"), whoever wrote it.
bool IsEmptyOrSqliteFile(const std::string& path);

// The checks before writing a new output file `out` for `command` ("export", "report"): refuses a
// directory, one of `inputs` (whatever the name: SameFile), and without force any existing file.
// Throws tracesql::Error with a one-line message naming out.
void CheckNewOutput(const std::string& out, bool force, const std::vector<std::string>& inputs,
                    std::string_view command);

// fsync()s a file or directory; false on failure.
bool SyncPath(const std::string& path, bool directory);

// Moves the finished temporary file or directory tmp to its name, path (`what` names it in errors:
// "database", "directory"). Without replace it never replaces anything: when path appeared
// meanwhile (another import), it fails (renameat2 RENAME_NOREPLACE, or for a file link + unlink
// where the file system lacks it). With replace the existing path is replaced atomically, so
// readers see the old one or the new one, never a mix: a file by rename, a directory by exchanging
// the two (renameat2 RENAME_EXCHANGE) and removing the old one, now under tmp's name. Throws
// tracesql::Error naming path.
void MoveIntoPlace(const std::string& tmp, const std::string& path, bool replace, std::string_view what);

// Removes a temporary database being built (and its journal, WAL and shared-memory files) when it
// goes out of scope, unless released once the database is in place.
class TempDbGuard {
 public:
  explicit TempDbGuard(std::string path) : path_(std::move(path)) {}
  ~TempDbGuard();
  TempDbGuard(const TempDbGuard&) = delete;
  TempDbGuard& operator=(const TempDbGuard&) = delete;
  void Release() { released_ = true; }

 private:
  std::string path_;
  bool released_ = false;
};

}  // namespace tracesql

#endif  // TRACESQL_FILES_H_
