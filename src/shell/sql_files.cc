#include "tracesql/sql_files.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>

#include "tracesql/error.h"
#include "tracesql/sql_bundle.h"

namespace tracesql {
namespace fs = std::filesystem;

std::string ReadSqlText(const fs::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) Errorf("{}: cannot read {} file", path.string(), what);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<SqlFileSource> BundledSqlFiles(std::string_view prefix) {
  std::vector<SqlFileSource> out;
  for (const auto& f : EmbeddedFilesUnder(prefix)) {
    std::string_view path = f.path;
    std::string_view rest = path.substr(prefix.size());
    if (rest.size() <= 4 || rest.substr(rest.size() - 4) != ".sql" || rest.find('/') != std::string_view::npos) {
      continue;
    }
    out.push_back({std::string(rest.substr(0, rest.size() - 4)), std::string(f.text), std::string(path), true, false});
  }
  return out;
}

std::vector<SqlFileSource> ListSqlFiles(const std::vector<std::string>& dirs, std::string_view prefix,
                                        std::string_view what) {
  std::map<std::string, SqlFileSource> by_name;
  for (const auto& dir : dirs) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    std::vector<fs::path> files;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      if (entry.path().extension() == ".sql" && !entry.is_directory(ec)) files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::string name = f.stem().string();
      if (by_name.count(name)) continue;  // an earlier directory wins
      by_name.emplace(name, SqlFileSource{name, ReadSqlText(f, what), f.string(), false, false});
    }
  }
  for (auto& b : BundledSqlFiles(prefix)) {
    auto it = by_name.find(b.name);
    if (it != by_name.end()) {
      it->second.shadows_builtin = true;
      continue;
    }
    by_name.emplace(b.name, std::move(b));
  }
  std::vector<SqlFileSource> out;
  for (auto& [name, f] : by_name) out.push_back(std::move(f));
  return out;
}

}  // namespace tracesql
