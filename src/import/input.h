// Reading a trace file as a stream of JSON bytes: plain or gzip (detected by magic bytes).
#ifndef SRC_IMPORT_INPUT_H_
#define SRC_IMPORT_INPUT_H_

#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace tracesql {

class InputStream {
 public:
  // Opens the file; throws tracesql::Error naming the file when it cannot be read.
  explicit InputStream(const std::string& path);
  ~InputStream();
  // Throws the error the constructor would (missing file, directory, no permission) without reading
  // anything: a pipe or FIFO is only stat()ed, so its data is left for the real read.
  static void CheckReadable(const std::string& path);
  InputStream(const InputStream&) = delete;
  InputStream& operator=(const InputStream&) = delete;

  // Reads up to n decompressed bytes into out; returns 0 at the end. Throws on I/O or gzip errors.
  size_t Read(char* out, size_t n);

  bool compressed() const { return gzip_; }
  // True when a gzip stream ended without its trailer (file cut short).
  bool gzip_truncated() const { return gzip_truncated_; }
  int64_t file_size() const { return file_size_; }
  int64_t file_bytes_read() const { return file_read_; }
  const std::string& path() const { return path_; }

 private:
  size_t ReadRaw(char* out, size_t n);
  std::string path_;
  FILE* file_ = nullptr;
  bool gzip_ = false;
  bool gzip_truncated_ = false;
  bool eof_ = false;
  int64_t file_size_ = 0;
  int64_t file_read_ = 0;
  int64_t out_total_ = 0;
  z_stream zs_{};
  bool zs_init_ = false;
  std::vector<char> inbuf_;
  std::string head_;  // bytes read while sniffing the magic, returned first
  size_t head_pos_ = 0;
};

}  // namespace tracesql

#endif  // SRC_IMPORT_INPUT_H_
