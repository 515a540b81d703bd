#include "import/input.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

#include "tracesql/error.h"

namespace tracesql {

InputStream::InputStream(const std::string& path) : path_(path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) Errorf("{}: cannot read trace: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) Errorf("{}: cannot read trace: is a directory", path);
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) Errorf("{}: cannot read trace: {}", path, std::strerror(errno));
  file_size_ = static_cast<int64_t>(st.st_size);
  char magic[2];
  size_t n = ReadRaw(magic, 2);
  head_.assign(magic, n);
  if (n == 2 && static_cast<unsigned char>(magic[0]) == 0x1f && static_cast<unsigned char>(magic[1]) == 0x8b) {
    gzip_ = true;
    inbuf_.resize(1 << 20);
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) Errorf("{}: cannot start gzip decoder", path);
    zs_init_ = true;
    std::memcpy(inbuf_.data(), magic, 2);
    zs_.next_in = reinterpret_cast<Bytef*>(inbuf_.data());
    zs_.avail_in = 2;
    head_.clear();
  }
}

void InputStream::CheckReadable(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) Errorf("{}: cannot read trace: {}", path, std::strerror(errno));
  if (S_ISDIR(st.st_mode)) Errorf("{}: cannot read trace: is a directory", path);
  // Only regular files are opened here: opening a pipe or FIFO (`<(zcat t.json.gz)`) could block or
  // consume its data.
  if (S_ISREG(st.st_mode)) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f) Errorf("{}: cannot read trace: {}", path, std::strerror(errno));
    std::fclose(f);
  }
}

InputStream::~InputStream() {
  if (zs_init_) inflateEnd(&zs_);
  if (file_) std::fclose(file_);
}

size_t InputStream::ReadRaw(char* out, size_t n) {
  size_t got = std::fread(out, 1, n, file_);
  if (got < n && std::ferror(file_)) {
    Errorf("{}: read error at byte {}: {}", path_, file_read_ + static_cast<int64_t>(got), std::strerror(errno));
  }
  file_read_ += static_cast<int64_t>(got);
  return got;
}

size_t InputStream::Read(char* out, size_t n) {
  if (!gzip_) {
    size_t done = 0;
    if (head_pos_ < head_.size()) {
      size_t k = std::min(n, head_.size() - head_pos_);
      std::memcpy(out, head_.data() + head_pos_, k);
      head_pos_ += k;
      done = k;
    }
    if (done < n) done += ReadRaw(out + done, n - done);
    out_total_ += static_cast<int64_t>(done);
    return done;
  }
  if (eof_) return 0;
  zs_.next_out = reinterpret_cast<Bytef*>(out);
  zs_.avail_out = static_cast<uInt>(n);
  while (zs_.avail_out > 0) {
    if (zs_.avail_in == 0) {
      size_t got = ReadRaw(inbuf_.data(), inbuf_.size());
      if (got == 0) {
        // Input ended inside a gzip member: the file was cut short.
        gzip_truncated_ = true;
        eof_ = true;
        break;
      }
      zs_.next_in = reinterpret_cast<Bytef*>(inbuf_.data());
      zs_.avail_in = static_cast<uInt>(got);
    }
    int rc = inflate(&zs_, Z_NO_FLUSH);
    if (rc == Z_STREAM_END) {
      // Concatenated gzip members are allowed; anything else after the end is ignored.
      if (zs_.avail_in == 0) {
        size_t got = ReadRaw(inbuf_.data(), inbuf_.size());
        if (got == 0) {
          eof_ = true;
          break;
        }
        zs_.next_in = reinterpret_cast<Bytef*>(inbuf_.data());
        zs_.avail_in = static_cast<uInt>(got);
      }
      if (zs_.avail_in >= 2 && zs_.next_in[0] == 0x1f && zs_.next_in[1] == 0x8b) {
        inflateReset(&zs_);
        continue;
      }
      eof_ = true;
      break;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      int64_t at = file_read_ - static_cast<int64_t>(zs_.avail_in);
      Errorf("{}: corrupt gzip data near compressed byte {}: {}", path_, at, zs_.msg ? zs_.msg : "inflate error");
    }
  }
  size_t produced = n - zs_.avail_out;
  out_total_ += static_cast<int64_t>(produced);
  return produced;
}

}  // namespace tracesql
