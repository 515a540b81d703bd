// A file written through a temporary one next to it (".NAME.tmp-PID") and renamed into place only
// when complete, so a failed or interrupted write leaves nothing behind and never a partial file
// (SIGINT and SIGTERM remove the temporary file before the process ends, unless the program handles
// them itself); gzip-compressed (zlib) when asked. Knows nothing of what it holds.
#ifndef TRACESQL_OUTPUT_FILE_H_
#define TRACESQL_OUTPUT_FILE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace tracesql {

class OutputFile {
 public:
  // Creates the temporary file. Throws tracesql::Error naming path when it cannot.
  OutputFile(std::string path, bool gzip);
  ~OutputFile();  // removes the temporary file unless Commit() succeeded
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Appends bytes (compressed when gzip). Throws tracesql::Error naming path on a write error.
  void Write(std::string_view bytes);
  // Ends the stream, closes the file and renames it to path.
  void Commit();
  // Bytes written to disk so far.
  uint64_t bytes() const { return bytes_; }

 private:
  struct Gzip;
  void WriteRaw(const char* data, size_t n);
  [[noreturn]] void Fail(int err);
  std::string path_, tmp_;
  int fd_ = -1;
  std::unique_ptr<Gzip> gz_;
  uint64_t bytes_ = 0;
  bool committed_ = false;
  int signal_slot_ = -1;  // where the temporary file is registered for removal on a signal
};

// Whether path names a gzip output: it ends in ".gz".
bool IsGzipPath(std::string_view path);

}  // namespace tracesql

#endif  // TRACESQL_OUTPUT_FILE_H_
