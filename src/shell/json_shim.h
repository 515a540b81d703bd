// JSON functions usable from views when PRAGMA trusted_schema is OFF.
//
// The shell opens every database with trusted_schema=OFF, so a hostile database cannot make a view or
// trigger call a function with side effects. SQLite before 3.45 does not tag its JSON functions
// SQLITE_INNOCUOUS (later versions do), so under trusted_schema=OFF every view that uses them
// (tracesql's args, event_args and memory_events among them) fails with "unsafe use of
// json_extract()". JsonShim registers innocuous stand-ins on the connection: scalar JSON functions are
// forwarded to the built-in ones on a private in-memory connection (arguments that carry the JSON
// subtype are passed through json() so they stay JSON), and json_group_array / json_group_object are
// implemented here, byte for byte as SQLite 3.40 writes them (except a NULL key, which SQLite 3.40
// writes as nothing at all, giving invalid JSON, and the shim writes as "").
#ifndef TRACESQL_SHELL_JSON_SHIM_H_
#define TRACESQL_SHELL_JSON_SHIM_H_

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace tracesql::shell {

class JsonShim {
 public:
  // True when this SQLite refuses its own JSON functions in views under trusted_schema=OFF.
  static bool Needed();
  // Registers the stand-ins on db. The returned object must outlive db (close db first). Throws
  // tracesql::Error when SQLite refuses a registration.
  static std::unique_ptr<JsonShim> Install(sqlite3* db);

  JsonShim() = default;
  ~JsonShim();
  JsonShim(const JsonShim&) = delete;
  JsonShim& operator=(const JsonShim&) = delete;

  // Prepared "SELECT name(?1, json(?2), ...)" on the private connection, cached by name, argument
  // count and which arguments are JSON. Null when SQLite cannot prepare it.
  sqlite3_stmt* Statement(const std::string& name, int argc, uint64_t json_args);
  sqlite3* helper() const { return helper_; }

  // The last JSON array the $[N] fast path scanned (the args view asks for each element of a document
  // in turn): its text, whether it is a valid minified array, and where each element is.
  struct ScannedArray {
    std::string doc;
    bool valid = false;
    std::vector<std::pair<uint32_t, uint32_t>> elements;  // offset, length
    std::string kinds;                                    // one kind letter per element
  };
  ScannedArray& scanned() { return scanned_; }

  // User data of one registered scalar function.
  struct Function {
    JsonShim* shim;
    std::string name;
  };

 private:
  sqlite3* helper_ = nullptr;
  std::map<std::string, sqlite3_stmt*> cache_;
  std::vector<std::unique_ptr<Function>> functions_;
  ScannedArray scanned_;
};

}  // namespace tracesql::shell

#endif  // TRACESQL_SHELL_JSON_SHIM_H_
