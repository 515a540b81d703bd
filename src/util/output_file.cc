#include "tracesql/output_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <mutex>

#include <fmt/format.h>

#include "tracesql/error.h"

namespace tracesql {
namespace {

// The temporary files being written, removed if SIGINT or SIGTERM ends the process first. The
// handler is installed while a file is registered, and only over the default action: a program
// that handles the signal itself (the shell's Ctrl-C stops the statement) keeps its handler, and the
// error that follows unwinds to ~OutputFile.
constexpr int kSlots = 8;
char g_paths[kSlots][4096];
std::atomic<bool> g_used[kSlots];
std::mutex g_mutex;
int g_registered = 0;
bool g_installed = false;
struct sigaction g_old_int, g_old_term;

void RemoveTempFilesAndDie(int sig) {
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) ::unlink(g_paths[i]);  // async-signal-safe
  }
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

bool DefaultAction(int sig) {
  struct sigaction now {};
  return sigaction(sig, nullptr, &now) == 0 && !(now.sa_flags & SA_SIGINFO) && now.sa_handler == SIG_DFL;
}

// The slot holding path, or -1 when all are taken (the file is then only removed on a normal exit).
int RegisterTempFile(const std::string& path) {
  if (path.size() >= sizeof g_paths[0]) return -1;
  std::lock_guard lock(g_mutex);
  for (int i = 0; i < kSlots; ++i) {
    if (g_used[i].load()) continue;
    std::memcpy(g_paths[i], path.c_str(), path.size() + 1);
    g_used[i].store(true);
    if (g_registered++ == 0 && DefaultAction(SIGINT) && DefaultAction(SIGTERM)) {
      struct sigaction sa {};
      sa.sa_handler = RemoveTempFilesAndDie;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGINT, &sa, &g_old_int);
      sigaction(SIGTERM, &sa, &g_old_term);
      g_installed = true;
    }
    return i;
  }
  return -1;
}

void UnregisterTempFile(int slot) {
  if (slot < 0) return;
  std::lock_guard lock(g_mutex);
  g_used[slot].store(false);
  if (--g_registered == 0 && g_installed) {
    sigaction(SIGINT, &g_old_int, nullptr);
    sigaction(SIGTERM, &g_old_term, nullptr);
    g_installed = false;
  }
}

}  // namespace

struct OutputFile::Gzip {
  z_stream z{};
  char out[1 << 16];
};

bool IsGzipPath(std::string_view path) { return path.size() > 3 && path.substr(path.size() - 3) == ".gz"; }

OutputFile::OutputFile(std::string path, bool gzip) : path_(std::move(path)) {
  namespace fs = std::filesystem;
  fs::path p(path_);
  fs::path dir = p.parent_path();
  if (dir.empty()) dir = ".";
  tmp_ = (dir / fmt::format(".{}.tmp-{}", p.filename().string(), getpid())).string();
  fd_ = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0) Errorf("{}: cannot write: {}", path_, std::strerror(errno));
  signal_slot_ = RegisterTempFile(tmp_);
  if (gzip) {
    gz_ = std::make_unique<Gzip>();
    // windowBits 15 + 16: a gzip header and trailer. Level 1: a trace's JSON compresses about as well
    // at the fastest level, and a large one is hundreds of MB.
    if (deflateInit2(&gz_->z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      gz_.reset();
      Fail(ENOMEM);
    }
  }
}

OutputFile::~OutputFile() {
  if (gz_) deflateEnd(&gz_->z);
  if (fd_ >= 0) ::close(fd_);
  if (!committed_) ::unlink(tmp_.c_str());
  UnregisterTempFile(signal_slot_);
}

void OutputFile::Fail(int err) { Errorf("{}: cannot write: {}", path_, std::strerror(err)); }

void OutputFile::WriteRaw(const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd_, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) Fail(w < 0 ? errno : ENOSPC);
    data += w;
    n -= static_cast<size_t>(w);
    bytes_ += static_cast<uint64_t>(w);
  }
}

void OutputFile::Write(std::string_view bytes) {
  if (!gz_) {
    WriteRaw(bytes.data(), bytes.size());
    return;
  }
  z_stream& z = gz_->z;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data()));
  z.avail_in = static_cast<uInt>(bytes.size());
  while (z.avail_in > 0) {
    z.next_out = reinterpret_cast<Bytef*>(gz_->out);
    z.avail_out = sizeof(gz_->out);
    if (deflate(&z, Z_NO_FLUSH) == Z_STREAM_ERROR) Fail(EIO);
    WriteRaw(gz_->out, sizeof(gz_->out) - z.avail_out);
  }
}

void OutputFile::Commit() {
  if (gz_) {
    z_stream& z = gz_->z;
    z.next_in = nullptr;
    z.avail_in = 0;
    int rc;
    do {
      z.next_out = reinterpret_cast<Bytef*>(gz_->out);
      z.avail_out = sizeof(gz_->out);
      rc = deflate(&z, Z_FINISH);
      if (rc == Z_STREAM_ERROR) Fail(EIO);
      WriteRaw(gz_->out, sizeof(gz_->out) - z.avail_out);
    } while (rc != Z_STREAM_END);
  }
  int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0) Fail(errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) Fail(errno);
  committed_ = true;
  UnregisterTempFile(signal_slot_);
  signal_slot_ = -1;
}

}  // namespace tracesql
