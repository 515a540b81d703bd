// The per-user directories tracesql reads and writes, following the XDG base directory layout.
#ifndef TRACESQL_USER_DIRS_H_
#define TRACESQL_USER_DIRS_H_

#include <cstdlib>
#include <filesystem>
#include <string>

namespace tracesql {

// $<xdg_var>/tracesql when that variable is set, else $HOME/<home_dir>/tracesql; empty when neither
// is set. UserDir("XDG_CONFIG_HOME", ".config"): user queries (under queries/);
// UserDir("XDG_STATE_HOME", ".local/state"): shell history; UserDir("XDG_CACHE_HOME", ".cache"):
// databases of traces whose own directory is not writable.
inline std::string UserDir(const char* xdg_var, const char* home_dir) {
  namespace fs = std::filesystem;
  if (const char* x = std::getenv(xdg_var); x && *x) return (fs::path(x) / "tracesql").string();
  if (const char* h = std::getenv("HOME"); h && *h) return (fs::path(h) / home_dir / "tracesql").string();
  return "";
}

}  // namespace tracesql

#endif  // TRACESQL_USER_DIRS_H_
