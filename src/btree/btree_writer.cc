#include "btree/btree_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <new>
#include <queue>
#include <thread>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "tracesql/db.h"
#include "tracesql/error.h"

namespace tracesql::btree {

namespace {

void Put16(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

void Put32(uint8_t* p, uint32_t v) {
  p[0] = static_cast<uint8_t>(v >> 24);
  p[1] = static_cast<uint8_t>(v >> 16);
  p[2] = static_cast<uint8_t>(v >> 8);
  p[3] = static_cast<uint8_t>(v);
}

uint32_t Get32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

// pwrite/pread the whole buffer (or fail with errno set).
bool WriteAt(int fd, const void* data, size_t size, uint64_t at) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = pwrite(fd, p, size, static_cast<off_t>(at));
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
    at += static_cast<uint64_t>(n);
  }
  return true;
}

bool ReadAt(int fd, void* data, size_t size, uint64_t at) {
  char* p = static_cast<char*>(data);
  while (size > 0) {
    ssize_t n = pread(fd, p, size, static_cast<off_t>(at));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    p += n;
    size -= static_cast<size_t>(n);
    at += static_cast<uint64_t>(n);
  }
  return true;
}

// Bytes [in, in + size) of in_fd to out_fd at out: in the kernel where it can (no copy through
// user space, or none at all where the file system shares the blocks); else through a buffer.
// False with errno set on failure.
bool CopyRange(int in_fd, uint64_t in, int out_fd, uint64_t out, uint64_t size) {
  loff_t i = static_cast<loff_t>(in), o = static_cast<loff_t>(out);
  const loff_t end = i + static_cast<loff_t>(size);
  while (i < end) {
    ssize_t n = copy_file_range(in_fd, &i, out_fd, &o, static_cast<size_t>(end - i), 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) return false;
    std::vector<uint8_t> chunk(size_t{4} << 20);
    while (i < end) {
      size_t want = static_cast<size_t>(std::min<loff_t>(static_cast<loff_t>(chunk.size()), end - i));
      if (!ReadAt(in_fd, chunk.data(), want, static_cast<uint64_t>(i))) return false;
      if (!WriteAt(out_fd, chunk.data(), want, static_cast<uint64_t>(o))) return false;
      i += static_cast<loff_t>(want);
      o += static_cast<loff_t>(want);
    }
  }
  return true;
}

// Turns O_DIRECT on or off for fd; true if that changed it.
bool SetDirect(int fd, bool on) {
  int flags = fcntl(fd, F_GETFL);
  if (flags < 0 || ((flags & O_DIRECT) != 0) == on) return false;
  return fcntl(fd, F_SETFL, on ? flags | O_DIRECT : flags & ~O_DIRECT) == 0;
}

// WriteAt for a spill's pages: where O_DIRECT is refused (EINVAL: an alignment the device wants),
// through the page cache.
bool WritePages(int fd, const uint8_t* data, size_t size, uint64_t at) {
  if (WriteAt(fd, data, size, at)) return true;
  return errno == EINVAL && SetDirect(fd, false) && WriteAt(fd, data, size, at);
}

// memcpy as a call: inlined, GCC copies bytes of unknown count with `rep movsq`, whose start-up
// cost is that of copying a hundred bytes (it was 40 % of encoding a record).
[[gnu::noinline]] void CopyBytes(uint8_t* to, const char* from, size_t n) { std::memcpy(to, from, n); }

// How much of a payload of p bytes stays on a b-tree page of usable size u (the rest goes to
// overflow pages), for a table leaf (max_local u - 35) or an index page.
uint32_t LocalSize(uint64_t p, uint32_t u, uint32_t max_local) {
  if (p <= max_local) return static_cast<uint32_t>(p);
  uint32_t min_local = (u - 12) * 32 / 255 - 23;
  uint64_t k = min_local + (p - min_local) % (u - 4);
  return k <= max_local ? static_cast<uint32_t>(k) : min_local;
}

}  // namespace

// A scratch file in dir that no name refers to: it is gone, whatever happens, once closed.
int OpenScratch(const std::string& dir, const char* what, const std::string& label, bool* linkable) {
  int fd = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (linkable) *linkable = fd >= 0;
  if (fd < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string tmpl = dir + "/.tracesql-" + what + "-XXXXXX";
    fd = mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd < 0) Errorf("{}: cannot create temporary data: {}", label, std::strerror(errno));
    unlink(tmpl.c_str());
  }
  return fd;
}

int VarintLen(uint64_t v) {
  if (v & (uint64_t{0xff000000} << 32)) return 9;
  int n = 1;
  while (v >>= 7) ++n;
  return n;
}

int PutVarint(uint8_t* p, uint64_t v) {
  if (v <= 0x7f) {
    p[0] = static_cast<uint8_t>(v);
    return 1;
  }
  if (v & (uint64_t{0xff000000} << 32)) {  // nine bytes: the last one holds eight bits
    p[8] = static_cast<uint8_t>(v);
    v >>= 8;
    for (int i = 7; i >= 0; --i) {
      p[i] = static_cast<uint8_t>((v & 0x7f) | 0x80);
      v >>= 7;
    }
    return 9;
  }
  int n = VarintLen(v);
  for (int i = n - 1; i >= 0; --i) {
    p[i] = static_cast<uint8_t>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  p[n - 1] &= 0x7f;
  return n;
}

void Record::TooMany() { Errorf("internal error: a record of more than {} columns", kMaxColumns); }

std::string_view Record::Encode() {
  // As OP_MakeRecord: the header's size counts its own varint.
  uint64_t header = header_;
  if (header <= 126) {
    header += 1;
  } else {
    int n = VarintLen(header);
    header += static_cast<uint64_t>(n);
    if (n < VarintLen(header)) ++header;
  }
  const uint64_t size = header + body_;
  if (size + 8 > capacity_) {  // 8 to spare: integers are stored 8 bytes at a time
    capacity_ = std::max<size_t>(static_cast<size_t>(size) + 8, capacity_ * 2);
    out_.reset(new uint8_t[capacity_]);
  }
  uint8_t* p = out_.get();
  uint8_t* h = p + PutVarint(p, header);
  uint8_t* b = p + header;
  for (int c = 0; c < n_; ++c) {
    uint64_t t = type_[c];
    if (t < 0x80) *h++ = static_cast<uint8_t>(t); else h += PutVarint(h, t);
    if (t >= 12) {
      CopyBytes(b, text_[c].data(), text_[c].size());
      b += text_[c].size();
    } else if (t >= 1 && t <= 7) {
      // The integer's last n bytes, big-endian: stored as 8 (the buffer has room to spare), the
      // bytes past n overwritten by what follows (7: a REAL's 8 bytes).
      static constexpr uint8_t kBytes[] = {0, 1, 2, 3, 4, 6, 8, 8};
      const unsigned n = kBytes[t];
      uint64_t be = __builtin_bswap64(static_cast<uint64_t>(int_[c]) << (64 - 8 * n));
      std::memcpy(b, &be, 8);
      b += n;
    }
  }
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(size)};
}

void PageImage::Reset(uint32_t header_size) {
  std::memset(bytes.data(), 0, bytes.size());
  header = header_size;
  cells = 0;
  content = static_cast<uint32_t>(bytes.size());
}

uint8_t* PageImage::AddCell(size_t cell) {
  content -= static_cast<uint32_t>(cell);
  Put16(bytes.data() + header + 2 * cells, content);
  ++cells;
  return bytes.data() + content;
}

void PageImage::RemoveLastCell(size_t cell, std::string& out) {
  out.assign(reinterpret_cast<const char*>(bytes.data()) + content, cell);
  std::memset(bytes.data() + content, 0, cell);
  --cells;
  Put16(bytes.data() + header + 2 * cells, 0);
  content += static_cast<uint32_t>(cell);
}

void PageImage::Seal(uint8_t flag, uint32_t right_child) {
  uint8_t* p = bytes.data();
  p[0] = flag;
  Put16(p + 1, 0);  // no freeblock
  Put16(p + 3, cells);
  Put16(p + 5, content == 65536 ? 0 : content);
  p[7] = 0;  // no fragmented bytes
  if (header == 12) Put32(p + 8, right_child);
}

PageSpill::File::~File() {
  if (fd >= 0) close(fd);
}

// Writes full buffers on a thread of its own, in the order given.
class PageSpill::Writer {
 public:
  explicit Writer(size_t bytes) {
    for (auto& b : buffers_) {
      // Aligned for O_DIRECT (to 4 KB, what devices ask of it).
      b.reset(static_cast<uint8_t*>(std::aligned_alloc(4096, bytes)));
      if (!b) throw std::bad_alloc();
      free_.push_back(b.get());
    }
    thread_ = std::thread([this] { Run(); });
  }
  ~Writer() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // A free buffer (waiting for one to be written); errno of the first failed write, or 0.
  uint8_t* Take(int& error) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    uint8_t* b = free_.back();
    free_.pop_back();
    error = error_;
    return b;
  }
  void Submit(uint8_t* buf, int fd, uint64_t at, size_t size) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      jobs_.push_back({buf, fd, at, size});
    }
    cv_.notify_all();
  }
  // Waits until every buffer submitted is written; errno of the first failed write, or 0.
  int Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return jobs_.empty() && !busy_; });
    return error_;
  }

 private:
  struct Job {
    uint8_t* buf;
    int fd;
    uint64_t at;
    size_t size;
  };
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;
      Job job = jobs_.front();
      jobs_.pop_front();
      busy_ = true;
      lock.unlock();
      int error = WritePages(job.fd, job.buf, job.size, job.at) ? 0 : errno;
      lock.lock();
      busy_ = false;
      if (error && !error_) error_ = error;
      free_.push_back(job.buf);
      cv_.notify_all();
    }
  }
  struct FreeBuf {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::array<std::unique_ptr<uint8_t, FreeBuf>, kBuffers> buffers_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<uint8_t*> free_;
  std::deque<Job> jobs_;
  bool busy_ = false, stop_ = false;
  int error_ = 0;
  std::thread thread_;
};

PageSpill::PageSpill(const std::string& dir, uint32_t page_size, std::string label)
    : dir_(dir), page_size_(page_size), label_(std::move(label)),
      writer_(std::make_unique<Writer>(size_t{kBufferPages} * page_size)) {
  OwnFile();
  int error = 0;
  buf_ = writer_->Take(error);
}

PageSpill::PageSpill(PageSpill& first)
    : dir_(first.dir_), page_size_(first.page_size_), label_(first.label_), file_(first.file_),
      origin_(first.origin_ + kSecondOrigin),
      writer_(std::make_unique<Writer>(size_t{kBufferPages} * page_size_)) {
  int error = 0;
  buf_ = writer_->Take(error);
  // Whether the file can be that large: a limit on file sizes (ulimit -f; a write past it would
  // raise SIGXFSZ), else a page written there (EFBIG where the file system cannot), then cut off
  // again (the first spill has written nothing: nothing else is past its size).
  struct rlimit fsize {};
  struct stat st {};
  bool own = first.pages_ != 0 || fstat(file_->fd, &st) != 0 ||
             (getrlimit(RLIMIT_FSIZE, &fsize) == 0 && fsize.rlim_cur != RLIM_INFINITY &&
              fsize.rlim_cur < origin_ + kSecondOrigin);
  if (!own) {
    std::memset(buf_, 0, page_size_);
    own = !WritePages(file_->fd, buf_, page_size_, origin_);
    if (!own && ftruncate(file_->fd, st.st_size) != 0) Fail("write");
  }
  if (own) OwnFile();
}

PageSpill::~PageSpill() = default;  // the writer finishes what it was given, then stops

void PageSpill::OwnFile() {
  file_ = std::make_shared<File>();
  file_->fd = OpenScratch(dir_, "pages", label_, &file_->linkable);
  if (page_size_ >= 4096) SetDirect(file_->fd, true);
  origin_ = 0;
}

void PageSpill::Fail(const char* what) const {
  Errorf("{}: cannot {} temporary data: {}", label_, what, std::strerror(errno));
}

uint32_t PageSpill::Add(const uint8_t* page) {
  if (placed_) Errorf("internal error: pages added after they were placed");
  // (a spill's pages stop short of the next spill's origin)
  if (pages_ == UINT32_MAX - 1 || uint64_t{pages_ + 1} * page_size_ > kSecondOrigin) {
    Errorf("{}: database or disk is full (too many pages)", label_);
  }
  std::memcpy(buf_ + size_t{buffered_} * page_size_, page, page_size_);
  ++pages_;
  if (++buffered_ == kBufferPages) Submit();
  return pages_;
}

void PageSpill::Submit() {
  writer_->Submit(buf_, file_->fd, origin_ + (uint64_t{pages_} - buffered_) * page_size_,
                  size_t{buffered_} * page_size_);
  buffered_ = 0;
  int error = 0;
  buf_ = writer_->Take(error);
  if (error) {
    errno = error;
    Fail("write");
  }
}

void PageSpill::Flush() {
  if (buffered_ > 0) Submit();
  if (int error = writer_->Wait()) {
    errno = error;
    Fail("write");
  }
}

uint32_t Placement::Page(uint64_t number) const {
  uint64_t v = base + number;
  return static_cast<uint32_t>(lock != 0 && v >= lock ? v + 1 : v);
}

void PageSpill::CopyTo(int fd, const Placement& at) {
  // Pages [first, last] of the spill to their places: in one piece, or two around the lock page.
  auto copy = [&](uint32_t first, uint32_t last) {
    if (first > last) return;
    if (!CopyRange(file_->fd, origin_ + (uint64_t{first} - 1) * page_size_, fd,
                   (uint64_t{at.Page(first)} - 1) * page_size_, (uint64_t{last} - first + 1) * page_size_)) {
      Fail("copy");
    }
  };
  if (at.lock != 0 && at.lock > at.base && uint64_t{at.lock} <= uint64_t{at.base} + pages_) {
    uint32_t split = at.lock - at.base;  // the spill page that would have been the lock page
    copy(1, split - 1);
    copy(split, pages_);
  } else {
    copy(1, pages_);
  }
  Placed(fd, at);
}

void PageSpill::Placed(int fd, const Placement& at) {
  for (const auto& [page, offset] : refs_) {
    uint64_t where = (uint64_t{at.Page(page)} - 1) * page_size_ + offset;
    uint8_t b[4];
    if (!ReadAt(fd, b, 4, where)) Fail("read");
    Put32(b, at.Page(Get32(b)));
    if (!WriteAt(fd, b, 4, where)) Fail("copy");
  }
  placed_ = true;
  file_.reset();  // the scratch file's room is freed once no spill holds it
  refs_.clear();
}

TreeWriter::TreeWriter(PageSpill& spill, uint8_t leaf_flag, uint8_t interior_flag)
    : spill_(spill), leaf_(spill.page_size()), leaf_flag_(leaf_flag), interior_flag_(interior_flag) {}

void TreeWriter::SpillLeaf() {
  leaf_.Seal(leaf_flag_);
  uint32_t page = spill_.Add(leaf_.bytes.data());
  for (uint32_t at : leaf_refs_) spill_.NoteRef(page, at);
  leaf_refs_.clear();
  leaves_.push_back(page);
  leaf_.Reset(8);
}

void TreeWriter::Close() {
  if (!leaves_.empty()) SpillLeaf();
}

void TreeWriter::WriteTop(int fd, const std::string& path, const Placement& at, uint32_t root, uint32_t& next) {
  const uint32_t page_size = spill_.page_size();
  auto write = [&](const PageImage& page, uint32_t no) {
    if (!WriteAt(fd, page.bytes.data(), page.bytes.size(), (uint64_t{no} - 1) * page_size)) {
      Errorf("{}: cannot write database: {}", path, std::strerror(errno));
    }
  };
  if (leaves_.empty()) {
    // The whole tree is one leaf (or nothing: the empty root SQLite wrote stays).
    if (leaf_.cells == 0) return;
    for (uint32_t off : leaf_refs_) Put32(leaf_.bytes.data() + off, at.Page(Get32(leaf_.bytes.data() + off)));
    leaf_.Seal(leaf_flag_);
    write(leaf_, root);
    return;
  }
  // Level by level: children are grouped into pages as full as they go, each group's separators
  // between its children as cells, its last child as the right child; the separators between
  // groups go up. A last group of one child (a page without cells) takes one from the group before.
  std::vector<uint32_t> child(leaves_.size());
  for (size_t i = 0; i < leaves_.size(); ++i) child[i] = at.Page(leaves_[i]);
  std::vector<Sep> sep = std::move(seps_);
  PageImage page(page_size);
  for (;;) {
    const size_t m = child.size();
    std::vector<std::pair<size_t, size_t>> groups;  // [first, last] child
    for (size_t s = 0; s < m;) {
      size_t used = 12, e = s;
      while (e + 1 < m && used + 2 + 4 + sep[e].bytes.size() <= page_size) used += 2 + 4 + sep[e].bytes.size(), ++e;
      groups.emplace_back(s, e);
      s = e + 1;
    }
    if (groups.size() > 1 && groups.back().first == groups.back().second) {
      auto& before = groups[groups.size() - 2];
      if (before.second < before.first + 2) Errorf("internal error: b-tree page too small for its keys");
      --before.second;
      --groups.back().first;
    }
    const bool top = groups.size() == 1;
    std::vector<uint32_t> up_child;
    std::vector<Sep> up_sep;
    for (const auto& [s, e] : groups) {
      page.Reset(12);
      for (size_t k = s; k < e; ++k) {
        const std::string& b = sep[k].bytes;
        uint8_t* cell = page.AddCell(4 + b.size());
        Put32(cell, child[k]);
        std::memcpy(cell + 4, b.data(), b.size());
        // A separator's overflow chain (index keys) is the one its entry got, in the spill.
        if (sep[k].overflow) Put32(cell + 4 + b.size() - 4, at.Page(Get32(cell + 4 + b.size() - 4)));
      }
      page.Seal(interior_flag_, child[e]);
      uint32_t no = root;
      if (!top) {
        no = next++;
        if (no == at.lock) no = next++;  // never the lock page
      }
      write(page, no);
      up_child.push_back(no);
      if (e + 1 < m) up_sep.push_back(std::move(sep[e]));
    }
    if (top) return;
    child = std::move(up_child);
    sep = std::move(up_sep);
  }
}

void TreeWriter::MakeCell(const uint8_t* prefix, size_t prefix_size, std::string_view payload, uint32_t max_local) {
  const uint32_t u = spill_.page_size();
  const uint64_t p = payload.size();
  const uint32_t local = LocalSize(p, u, max_local);
  const bool overflow = local < p;
  cell_.resize(prefix_size + local + (overflow ? 4 : 0));
  uint8_t* c = reinterpret_cast<uint8_t*>(cell_.data());
  std::memcpy(c, prefix, prefix_size);
  std::memcpy(c + prefix_size, payload.data(), local);
  cell_overflow_ = overflow;
  if (!overflow) return;
  // The rest of the payload in a chain of overflow pages: a 4-byte next page, then u - 4 bytes.
  std::vector<uint8_t> page(u, 0);
  const uint8_t* rest = reinterpret_cast<const uint8_t*>(payload.data()) + local;
  uint64_t left = p - local;
  const uint64_t count = (left + (u - 4) - 1) / (u - 4);
  const uint32_t first = spill_.pages() + 1;
  for (uint64_t k = 0; k < count; ++k) {
    size_t n = static_cast<size_t>(std::min<uint64_t>(left, u - 4));
    std::fill(page.begin(), page.end(), 0);
    uint32_t next = k + 1 < count ? first + static_cast<uint32_t>(k) + 1 : 0;
    Put32(page.data(), next);
    std::memcpy(page.data() + 4, rest, n);
    uint32_t no = spill_.Add(page.data());
    if (next) spill_.NoteRef(no, 0);
    rest += n;
    left -= n;
  }
  Put32(c + prefix_size + local, first);
}

void TreeWriter::AddCellToLeaf() {
  uint8_t* at = leaf_.AddCell(cell_.size());
  std::memcpy(at, cell_.data(), cell_.size());
  if (cell_overflow_) leaf_refs_.push_back(static_cast<uint32_t>(at - leaf_.bytes.data() + cell_.size() - 4));
}

void TableWriter::Append(int64_t rowid, std::string_view record) {
  if (entries_ > 0 && rowid <= last_) Errorf("internal error: rowid {} after {}", rowid, last_);
  uint8_t prefix[18];
  int n = PutVarint(prefix, record.size());
  n += PutVarint(prefix + n, static_cast<uint64_t>(rowid));
  MakeCell(prefix, static_cast<size_t>(n), record, spill_.page_size() - 35);
  if (!leaf_.Fits(cell_.size())) {
    uint8_t key[9];
    int k = PutVarint(key, static_cast<uint64_t>(last_));  // the largest rowid on the left
    seps_.push_back({std::string(reinterpret_cast<char*>(key), static_cast<size_t>(k)), false});
    SpillLeaf();
  }
  AddCellToLeaf();
  last_ = rowid;
  ++entries_;
}

void IndexWriter::Append(std::string_view record) {
  const uint32_t u = spill_.page_size();
  uint8_t prefix[9];
  int n = PutVarint(prefix, record.size());
  MakeCell(prefix, static_cast<size_t>(n), record, (u - 12) * 64 / 255 - 23);
  ++entries_;
  if (has_pending_) {
    // The entry that did not fit the held leaf separates it from the leaf this one starts.
    SpillLeaf();
    seps_.push_back(std::move(pending_));
    has_pending_ = false;
  } else if (!leaf_.Fits(cell_.size())) {
    pending_ = {cell_, cell_overflow_};
    has_pending_ = true;
    return;
  }
  AddCellToLeaf();
  last_cell_size_ = cell_.size();
  last_cell_overflow_ = cell_overflow_;
}

void IndexWriter::Close() {
  if (has_pending_) {
    // The last entry did not fit the held leaf, and no entry follows to be the last leaf's: an
    // index separator is an entry of its own, so the held leaf's last entry becomes the separator
    // and the pending one the last leaf's only cell.
    if (leaf_.cells < 2) Errorf("internal error: an index leaf holds fewer than two entries");
    Sep sep;
    leaf_.RemoveLastCell(last_cell_size_, sep.bytes);
    sep.overflow = last_cell_overflow_;
    if (last_cell_overflow_) leaf_refs_.pop_back();  // the separator's chain is mapped as a separator's
    SpillLeaf();
    seps_.push_back(std::move(sep));
    cell_ = pending_.bytes;
    cell_overflow_ = pending_.overflow;
    AddCellToLeaf();
    has_pending_ = false;
  }
  TreeWriter::Close();
}

namespace {

// Gives the unnamed file fd (an O_TMPFILE) the name path, replacing the file there: linked under a
// name beside it, then renamed over it. False (nothing changed) if it cannot be linked.
bool ReplaceWith(int fd, const std::string& path) {
  const std::string name = path + "-pages";
  // linkat(AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; the /proc link does not.
  const std::string proc = fmt::format("/proc/self/fd/{}", fd);
  bool linked = false;
  for (int attempt = 0; attempt < 2 && !linked; ++attempt) {
    linked = linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, name.c_str(), AT_SYMLINK_FOLLOW) == 0;
    bool exists = !linked && errno == EEXIST;
    if (!linked && !exists) {
      linked = linkat(fd, "", AT_FDCWD, name.c_str(), AT_EMPTY_PATH) == 0;
      exists = !linked && errno == EEXIST;
    }
    if (!exists) break;
    unlink(name.c_str());  // left by an import killed here
  }
  if (!linked) return false;
  if (rename(name.c_str(), path.c_str()) != 0) {
    int e = errno;
    unlink(name.c_str());
    Errorf("{}: cannot write database: {}", path, std::strerror(e));
  }
  return true;
}

}  // namespace

bool PlaceTrees(const std::string& path, const std::vector<PageSpill*>& spills,
                const std::vector<std::pair<TreeWriter*, uint32_t>>& trees, int64_t max_pages, uint64_t pending_byte,
                bool may_adopt) {
  for (const auto& [tree, root] : trees) tree->Close();
  int db_fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (db_fd < 0) Errorf("{}: cannot open database: {}", path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{db_fd};
  auto fail = [&](const char* what) { Errorf("{}: cannot {} database: {}", path, what, std::strerror(errno)); };
  uint8_t header[100];
  if (!ReadAt(db_fd, header, sizeof header, 0)) fail("read");
  struct stat st {};
  if (fstat(db_fd, &st) != 0) fail("read");
  const uint32_t page_size = header[16] == 0 && header[17] == 1 ? 65536u : (uint32_t{header[16]} << 8) | header[17];
  const uint32_t pages = Get32(header + 28), counter = Get32(header + 24);
  // The pages are written for: no reserved bytes per page, schema format 4 (serial types 8 and 9
  // for 0 and 1), UTF-8, no auto_vacuum (no pointer-map pages), a header page count that is valid.
  if (std::memcmp(header, "SQLite format 3", 16) != 0 || header[20] != 0 || Get32(header + 44) != 4 ||
      Get32(header + 56) != 1 || Get32(header + 52) != 0 || Get32(header + 92) != counter ||
      uint64_t{pages} * page_size != static_cast<uint64_t>(st.st_size)) {
    Errorf("internal error: {}: not a committed UTF-8 database of schema format 4 without auto_vacuum", path);
  }
  for (const auto& [tree, root] : trees) {
    if (root < 2 || root > pages) Errorf("internal error: {}: root page {} out of range", path, root);
  }
  // Each spill's pages after the database's and the spills' before it, skipping the lock page:
  // the page that holds byte `pending_byte` of the file (1 GB), which SQLite never uses (its
  // locks live there on some systems; integrity_check counts it as used).
  uint32_t lock = static_cast<uint32_t>(pending_byte / page_size + 1);
  if (pages >= lock) lock = 0;  // among SQLite's pages, before all of these
  uint64_t next = uint64_t{pages} + 1;
  std::vector<Placement> at(spills.size());
  for (size_t k = 0; k < spills.size(); ++k) {
    if (spills[k]->page_size() != page_size) Errorf("internal error: {}: pages of another size", path);
    at[k] = {static_cast<uint32_t>(next - 1), lock};
    next += spills[k]->pages();
    if (next >= UINT32_MAX - 1) Errorf("{}: database or disk is full", path);
  }
  const uint64_t spilled = next - 1 - pages;
  uint32_t next_page = Placement{0, lock}.Page(next);
  if (static_cast<int64_t>(next_page - 1) > max_pages) Errorf("{}: database or disk is full", path);
  for (PageSpill* spill : spills) {
    spill->Flush();
    // Small writes from here on (references, the trees' tops): through the page cache.
    if (spill->file_) SetDirect(spill->file_->fd, false);
  }

  // The spills' file becomes the database where it can: one file for all spills (in the order of
  // their origins), an O_TMPFILE (to be given a name), pages in whole file-system blocks.
  std::shared_ptr<PageSpill::File> adopted;
  if (may_adopt && spilled > 0) {
    std::shared_ptr<PageSpill::File> file = spills.front()->file_;
    bool one_file = true;
    for (size_t k = 0; k < spills.size(); ++k) {
      one_file = one_file && spills[k]->file_ == file && (k == 0 || spills[k]->origin_ > spills[k - 1]->origin_);
    }
    struct statfs fs {};
    if (one_file && file->linkable && fstatfs(file->fd, &fs) == 0 && fs.f_bsize > 0 &&
        page_size % static_cast<uint64_t>(fs.f_bsize) == 0) {
      adopted = file;
    }
  }
  int fd = db_fd;
  if (adopted) {
    // In file offsets, each step keeping the spills' pages in order: (1) the gaps before and
    // between them collapsed; (2) a page inserted where the lock page goes; (3) room inserted at
    // the start for SQLite's pages, which are copied there. If the file system refuses the first
    // step (EOPNOTSUPP, EINVAL), the file is as it was: the spills are copied instead.
    bool changed = false;
    auto shift = [&](int mode, uint64_t offset, uint64_t length) {
      if (length == 0) return true;
      if (fallocate(adopted->fd, mode, static_cast<off_t>(offset), static_cast<off_t>(length)) == 0) {
        changed = true;
        return true;
      }
      if (!changed && (errno == EOPNOTSUPP || errno == EINVAL || errno == ENOSYS)) return false;
      fail("write");
      return false;
    };
    bool ok = true;
    uint64_t end = 0;  // where the pages moved so far end
    for (PageSpill* spill : spills) {
      if (spill->pages() == 0) continue;
      ok = ok && shift(FALLOC_FL_COLLAPSE_RANGE, end, spill->origin_ - end);
      end += uint64_t{spill->pages()} * page_size;
    }
    if (ok && lock != 0 && lock > pages && lock - pages <= spilled) {
      ok = shift(FALLOC_FL_INSERT_RANGE, (uint64_t{lock} - pages - 1) * page_size, page_size);
    }
    ok = ok && shift(FALLOC_FL_INSERT_RANGE, 0, uint64_t{pages} * page_size);
    if (ok) {
      if (!CopyRange(db_fd, 0, adopted->fd, 0, uint64_t{pages} * page_size)) fail("write");
      if (fchmod(adopted->fd, st.st_mode & 07777) != 0) fail("write");
      fd = adopted->fd;
      for (size_t k = 0; k < spills.size(); ++k) spills[k]->Placed(fd, at[k]);
    } else {
      adopted.reset();
    }
  }
  if (!adopted) {
    for (size_t k = 0; k < spills.size(); ++k) spills[k]->CopyTo(fd, at[k]);
  }
  for (const auto& [tree, root] : trees) {
    size_t k = std::find(spills.begin(), spills.end(), &tree->spill_) - spills.begin();
    if (k == spills.size()) Errorf("internal error: a b-tree's spill is not placed");
    tree->WriteTop(fd, path, at[k], root, next_page);
  }
  const uint32_t total = next_page - 1;
  if (static_cast<int64_t>(total) > max_pages) Errorf("{}: database or disk is full", path);
  Put32(header + 28, total);
  Put32(header + 24, counter + 1);
  Put32(header + 92, counter + 1);
  Put32(header + 96, static_cast<uint32_t>(sqlite3_libversion_number()));
  if (!WriteAt(fd, header, sizeof header, 0)) fail("write");
  // Exactly the pages (SQLite would read a longer file's size as its page count when the header's
  // is not trusted), under the database's name (or, where it cannot be linked, copied there).
  const uint64_t bytes = uint64_t{total} * page_size;
  if (adopted && ftruncate(fd, static_cast<off_t>(bytes)) != 0) fail("write");
  if (adopted && !ReplaceWith(fd, path)) {
    if (!CopyRange(fd, 0, db_fd, 0, bytes)) fail("write");
    fd = db_fd;
    adopted.reset();
  }
  // Starts writing the pages to the disk now, while the import finishes: the fsync before the
  // database gets its name then has less left to wait for. Advice only: errors are ignored here,
  // and the fsync reports them.
  sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
  return adopted != nullptr;
}

// Index keys as byte strings that compare (memcmp, then length) as SQLite orders the keys: per
// column a tag (NULL < integer < text, as SQLite's order of storage classes), an integer as 8
// big-endian bytes with the sign bit flipped, text as its bytes with 0x00 written 0x00 0xff and an
// end mark 0x00 0x00 (so a prefix sorts first, as memcmp-then-length does: BINARY collation).
namespace {

constexpr uint8_t kKeyNull = 1, kKeyInt = 2, kKeyText = 4;

void AppendKey(std::string& out, const Value& v) {
  switch (v.type) {
    case Value::kNull:
      out.push_back(static_cast<char>(kKeyNull));
      break;
    case Value::kInt: {
      char b[9];
      b[0] = static_cast<char>(kKeyInt);
      uint64_t u = static_cast<uint64_t>(v.i) ^ (uint64_t{1} << 63);
      for (int k = 8; k >= 1; --k, u >>= 8) b[k] = static_cast<char>(u);
      out.append(b, 9);
      break;
    }
    case Value::kText:
      out.push_back(static_cast<char>(kKeyText));
      for (char c : v.s) {
        out.push_back(c);
        if (c == 0) out.push_back(static_cast<char>(0xff));
      }
      out.append(2, '\0');
      break;
    case Value::kReal:  // never in a key (PagedTable::Add checks)
    case Value::kBlob:
      break;
  }
}

// Keys of an index that may hold REAL values (PagedTable::AllowReals): an integer or a REAL as
// tag kKeyInt, 8 bytes that order the value as a double, and 8 that order values of one double
// (an integer's own value; a REAL's as an integer, clipped to int64), so that integers and REALs
// compare by value as SQLite compares them (an integer equal to a REAL compares equal). Which
// numbers are REALs is said after the last column: kKeyTypes, then a byte per number (1: REAL).
// The key's columns make it unique, so the part after them never decides its order.
constexpr uint8_t kKeyTypes = 0;


void AppendNumericKey(std::string& out, const Value& v, std::string& types) {
  if (v.type != Value::kInt && v.type != Value::kReal) {
    AppendKey(out, v);
    return;
  }
  double d;
  int64_t tie;
  if (v.type == Value::kInt) {
    d = static_cast<double>(v.i);
    tie = v.i;
  } else {
    std::memcpy(&d, &v.i, sizeof d);
    if (d == 0) d = 0;  // -0.0 as 0.0
    tie = d >= 9223372036854775807.0 ? INT64_MAX : d <= -9223372036854775808.0 ? INT64_MIN : static_cast<int64_t>(d);
  }
  uint64_t bits;
  std::memcpy(&bits, &d, sizeof bits);
  bits = bits >> 63 ? ~bits : bits ^ (uint64_t{1} << 63);
  uint64_t be[2] = {__builtin_bswap64(bits), __builtin_bswap64(static_cast<uint64_t>(tie) ^ (uint64_t{1} << 63))};
  size_t at = out.size();
  out.resize(at + 17);
  out[at] = static_cast<char>(kKeyInt);
  std::memcpy(out.data() + at + 1, be, 16);
  types.push_back(v.type == Value::kReal ? 1 : 0);
}

uint64_t GetBigEndian(const uint8_t* p) {
  uint64_t u = 0;
  for (int k = 0; k < 8; ++k) u = u << 8 | p[k];
  return u;
}

// The record of a key (its columns in order); text is unescaped into scratch. reals: the key is
// of AppendNumericKey's form.
std::string_view KeyToRecord(std::string_view key, Record& rec, std::string& scratch, bool reals = false) {
  rec.Clear();
  scratch.clear();
  scratch.reserve(key.size());  // no reallocation: the record keeps views into it
  const uint8_t* p = reinterpret_cast<const uint8_t*>(key.data());
  const uint8_t* end = p + key.size();
  const uint8_t* types = nullptr;
  if (reals) {
    // The numbers' types, after the columns: found by skipping the columns.
    const uint8_t* q = p;
    while (q < end && *q != kKeyTypes) {
      uint8_t tag = *q++;
      if (tag == kKeyInt) {
        q += 16;
      } else if (tag == kKeyText) {
        while (!(q[0] == 0 && q[1] == 0)) q += q[0] == 0 ? 2 : 1;
        q += 2;
      }
    }
    types = q + 1;
    end = q;
  }
  while (p < end) {
    uint8_t tag = *p++;
    if (tag == kKeyNull) {
      rec.Null();
    } else if (tag == kKeyInt && reals) {
      if (*types++) {
        uint64_t bits = GetBigEndian(p);
        bits = bits >> 63 ? bits ^ (uint64_t{1} << 63) : ~bits;
        double d;
        std::memcpy(&d, &bits, sizeof d);
        rec.Real(d);
      } else {
        rec.Int(static_cast<int64_t>(GetBigEndian(p + 8) ^ (uint64_t{1} << 63)));
      }
      p += 16;
    } else if (tag == kKeyInt) {
      uint64_t u = 0;
      for (int k = 0; k < 8; ++k) u = u << 8 | p[k];
      p += 8;
      rec.Int(static_cast<int64_t>(u ^ (uint64_t{1} << 63)));
    } else {
      size_t from = scratch.size();
      while (!(p[0] == 0 && p[1] == 0)) {
        scratch.push_back(static_cast<char>(*p));
        p += p[0] == 0 ? 2 : 1;
      }
      p += 2;
      rec.Text(std::string_view(scratch).substr(from));
    }
  }
  return rec.Encode();
}

// SQLite's affinity of a declared column type (https://www.sqlite.org/datatype3.html#affname).
std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// type: upper case.
char AffinityOf(const std::string& type) {
  if (type.find("INT") != std::string::npos) return 'i';
  if (type.find("CHAR") != std::string::npos || type.find("CLOB") != std::string::npos ||
      type.find("TEXT") != std::string::npos) return 't';
  if (type.empty() || type.find("BLOB") != std::string::npos) return 'b';
  if (type.find("REAL") != std::string::npos || type.find("FLOA") != std::string::npos ||
      type.find("DOUB") != std::string::npos) return 'r';
  return 'n';
}

// Reads a sorted run back, key by key.
class RunReader {
 public:
  // chunk: the bytes read at a time (at least a key's: 2 + 0xffff).
  RunReader(const RunSpill& spill, uint64_t at, uint64_t size, size_t chunk = 256 << 10)
      : spill_(spill), at_(at), end_(at + size), chunk_(chunk) {}
  // The next key, or false at the run's end. The view is valid until the next call.
  bool Next() {
    if (pos_ + 2 > buf_.size() || pos_ + 2 + Len() > buf_.size()) {
      if (!Fill()) return false;
    }
    size_t len = Len();
    key = std::string_view(buf_).substr(pos_ + 2, len);
    pos_ += 2 + len;
    return true;
  }
  std::string_view key;

 private:
  size_t Len() const {
    return static_cast<size_t>(static_cast<uint8_t>(buf_[pos_])) << 8 | static_cast<uint8_t>(buf_[pos_ + 1]);
  }
  bool Fill() {
    buf_.erase(0, pos_);
    pos_ = 0;
    size_t want = static_cast<size_t>(std::min<uint64_t>(end_ - at_, chunk_));
    if (want == 0) {
      if (!buf_.empty()) Errorf("{}: temporary data is short", spill_.label());
      return false;
    }
    size_t had = buf_.size();
    buf_.resize(had + want);
    if (!ReadAt(spill_.fd(), buf_.data() + had, want, at_)) {
      Errorf("{}: cannot read temporary data: {}", spill_.label(), std::strerror(errno));
    }
    at_ += want;
    if (buf_.size() < 2 || buf_.size() < 2 + Len()) return Fill();
    return true;
  }
  const RunSpill& spill_;
  uint64_t at_, end_;
  size_t chunk_;
  std::string buf_;
  size_t pos_ = 0;
};

}  // namespace

RunSpill::RunSpill(const std::string& dir, std::string label) : label_(std::move(label)) {
  fd_ = OpenScratch(dir, "runs", label_);
}

RunSpill::~RunSpill() {
  if (fd_ >= 0) close(fd_);
}

void RunSpill::Read(void* out, uint64_t size, uint64_t at) const {
  if (!ReadAt(fd_, out, static_cast<size_t>(size), at)) {
    Errorf("{}: cannot read temporary data: {}", label_, std::strerror(errno));
  }
}

uint64_t RunSpill::Add(std::string_view bytes) {
  uint64_t at = size_;
  if (!WriteAt(fd_, bytes.data(), bytes.size(), at)) {
    Errorf("{}: cannot write temporary data: {}", label_, std::strerror(errno));
  }
  size_ += bytes.size();
  return at;
}

PagedTable::PagedTable(Db& db, const std::string& name, PageSpill& spill, RunSpill& runs)
    : name_(name), spill_(spill), runs_(runs) {
  auto fail = [&](const std::string& why) { Errorf("internal error: table {} cannot be written as pages: {}", name_, why); };
  std::vector<int> pk;
  {
    Stmt s = db.Prepare("SELECT name, type, \"notnull\", pk FROM pragma_table_info(?) ORDER BY cid");
    s.BindText(1, name_);
    while (s.Step()) {
      std::string type = Upper(s.ColumnText(1));
      cols_.push_back({s.ColumnText(0), AffinityOf(type), s.ColumnInt(2) != 0});
      if (int64_t k = s.ColumnInt(3); k > 0) {
        pk.resize(std::max<size_t>(pk.size(), static_cast<size_t>(k)));
        pk[static_cast<size_t>(k - 1)] = columns() - 1;
        if (k == 1) ipk_ = type == "INTEGER" ? columns() - 1 : -2;
      }
    }
  }
  if (cols_.empty()) fail("no such table");
  {
    // WITHOUT ROWID: said after the column list's closing parenthesis (read from the DDL rather than
    // pragma table_list, which SQLite has only since 3.37).
    Stmt s = db.Prepare("SELECT sql, rootpage FROM sqlite_schema WHERE type = 'table' AND name = ?");
    s.BindText(1, name_);
    if (!s.Step()) fail("no CREATE TABLE");
    std::string sql = s.ColumnText(0), words;
    for (char c : Upper(sql.substr(sql.rfind(')') + 1))) {
      if (std::isalpha(static_cast<unsigned char>(c))) words += c;
      else if (!words.empty() && words.back() != ' ') words += ' ';
    }
    without_rowid_ = words.find("WITHOUT ROWID") != std::string::npos;
    root_ = static_cast<uint32_t>(s.ColumnInt(1));
  }
  if (without_rowid_) {
    ipk_ = -1;
  } else if (pk.size() > 1 || ipk_ == -2) {
    fail("a primary key that is not the rowid");
  }
  Stmt s = db.Prepare("SELECT name, sql, rootpage FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? ORDER BY rowid");
  s.BindText(1, name_);
  while (s.Step()) {
    Index x;
    x.name = s.ColumnText(0);
    x.root = static_cast<uint32_t>(s.ColumnInt(2));
    if (s.ColumnIsNull(1)) fail("index " + x.name + " is not one of CREATE INDEX");
    std::string sql = s.ColumnText(1);
    Stmt cols = db.Prepare("SELECT cid, \"desc\", coll, key FROM pragma_index_xinfo(?) ORDER BY seqno");
    cols.BindText(1, x.name);
    while (cols.Step()) {
      // Past the key columns: a rowid table's index ends with the rowid (appended in Add), a WITHOUT
      // ROWID table's with the primary key columns that are not among them (listed here).
      if (cols.ColumnInt(3) == 0 && !without_rowid_) continue;
      if (cols.ColumnInt(0) < 0 || cols.ColumnInt(1) != 0 || cols.ColumnText(2) != "BINARY") {
        fail("index " + x.name + " has an expression, DESC or a collation");
      }
      x.cols.push_back(static_cast<int>(cols.ColumnInt(0)));
    }
    size_t where = sql.find(" WHERE ");
    if (where != std::string::npos) x.where_sql = sql.substr(where + 7);
    if (where != std::string::npos) {
      std::string_view rest = std::string_view(sql).substr(where + 7);
      while (!rest.empty()) {
        size_t and_at = rest.find(" AND ");
        std::string_view term = rest.substr(0, and_at);
        rest = and_at == std::string_view::npos ? std::string_view() : rest.substr(and_at + 5);
        size_t sp = term.find(' ');
        int c = ColumnIndex(term.substr(0, sp));
        std::string_view op = sp == std::string_view::npos ? std::string_view() : term.substr(sp);
        if (c >= 0 && op == " IS NOT NULL") {
          x.where.emplace_back(c, std::string());
        } else if (c >= 0 && op.size() >= 6 && op.substr(0, 4) == " = '" && op.back() == '\'' &&
                   op.substr(4, op.size() - 5).find('\'') == std::string_view::npos) {
          x.where.emplace_back(c, std::string(op.substr(4, op.size() - 5)));
        } else {
          fail("index " + x.name + ": a WHERE term other than col IS NOT NULL or col = 'text': " + std::string(term));
        }
      }
    }
    x.tree = std::make_unique<IndexWriter>(spill_);
    indexes_.push_back(std::move(x));
  }
  if (without_rowid_) {
    // The table is an index b-tree of whole rows in primary key order (the key's columns first,
    // then the others): its rows are sorted as the keys of an index are, without a rowid.
    Index x;
    x.name = name_;
    x.root = root_;
    x.cols = pk;
    for (int c = 0; c < columns(); ++c) {
      if (std::find(pk.begin(), pk.end(), c) == pk.end()) x.cols.push_back(c);
    }
    x.tree = std::make_unique<IndexWriter>(spill_);
    indexes_.insert(indexes_.begin(), std::move(x));
  } else {
    table_ = std::make_unique<TableWriter>(spill_);
  }
  stored_.resize(cols_.size());
  text_.resize(cols_.size());
}

PagedTable::~PagedTable() = default;

int PagedTable::ColumnIndex(std::string_view name) const {
  for (int k = 0; k < columns(); ++k) {
    if (cols_[static_cast<size_t>(k)].name == name) return k;
  }
  return -1;
}

std::vector<int> PagedTable::Positions(std::string_view names) const {
  std::vector<int> out;
  while (!names.empty()) {
    size_t comma = names.find(',');
    std::string_view n = names.substr(0, comma);
    names = comma == std::string_view::npos ? std::string_view() : names.substr(comma + 1);
    while (!n.empty() && n.front() == ' ') n.remove_prefix(1);
    while (!n.empty() && n.back() == ' ') n.remove_suffix(1);
    int c = ColumnIndex(n);
    if (c < 0) Errorf("internal error: table {} has no column {}", name_, n);
    out.push_back(c);
  }
  for (int k = 0; k < columns(); ++k) {
    if (cols_[static_cast<size_t>(k)].not_null && std::find(out.begin(), out.end(), k) == out.end()) {
      Errorf("internal error: table {}: column {} left out", name_, cols_[static_cast<size_t>(k)].name);
    }
  }
  return out;
}

void PagedTable::Add(const Value* values) {
  // Each value as its column stores it.
  for (size_t c = 0; c < cols_.size(); ++c) {
    const Column& col = cols_[c];
    Value v = values[c];
    if (v.type == Value::kNull) {
      if (col.not_null) Errorf("internal error: NULL in {}.{}", name_, col.name);
    } else if (v.type == Value::kInt) {
      if (col.affinity == 't') {
        text_[c] = std::to_string(v.i);
        v = {Value::kText, 0, text_[c]};
      } else if (col.affinity == 'r') {
        Errorf("internal error: an integer in REAL column {}.{}", name_, col.name);
      }
    } else if (v.type == Value::kText && col.affinity != 't' && col.affinity != 'b') {
      Errorf("internal error: text in numeric column {}.{}", name_, col.name);
    } else if (v.type == Value::kReal && col.affinity == 't') {
      Errorf("internal error: a REAL in TEXT column {}.{}", name_, col.name);
    }
    stored_[c] = v;
  }
  int64_t rowid = 0;
  if (table_) {
    // The INTEGER PRIMARY KEY's value, else the next one (SQLite's max(rowid) + 1: rows come in
    // rowid order, which TableWriter checks).
    const Value* key = ipk_ >= 0 ? &stored_[static_cast<size_t>(ipk_)] : nullptr;
    if (key && key->type != Value::kInt && key->type != Value::kNull) {
      Errorf("internal error: text in {}.{}", name_, cols_[static_cast<size_t>(ipk_)].name);
    }
    rowid = key && key->type == Value::kInt ? key->i : table_->last_rowid() + 1;
    rec_.Clear();
    for (int c = 0; c < columns(); ++c) {
      const Value& v = stored_[static_cast<size_t>(c)];
      switch (c == ipk_ ? Value::kNull : v.type) {
        case Value::kNull: rec_.Null(); break;
        case Value::kInt: rec_.Int(v.i); break;
        case Value::kText: rec_.Text(v.s); break;
        case Value::kReal: {
          double d;
          std::memcpy(&d, &v.i, sizeof d);
          rec_.Real(d);
          break;
        }
        case Value::kBlob: rec_.Blob(v.s); break;
      }
    }
    table_->Append(rowid, rec_.Encode());
  }
  for (Index& x : indexes_) {
    if (x.fed) continue;
    bool in = true;
    for (const auto& [c, text] : x.where) {
      const Value& v = stored_[static_cast<size_t>(c)];
      in = in && (text.empty() ? v.type != Value::kNull : v.type == Value::kText && v.s == text);
    }
    if (!in) continue;
    size_t at = x.keys.size();
    x.keys.append(2, '\0');
    for (int c : x.cols) {
      const Value& v = stored_[static_cast<size_t>(c)];
      if (v.type == Value::kBlob || (v.type == Value::kReal && !reals_)) {
        Errorf("internal error: a REAL or BLOB in {}.{}, a column of index {}", name_,
               cols_[static_cast<size_t>(c)].name, x.name);
      }
      if (reals_) AppendNumericKey(x.keys, v, types_); else AppendKey(x.keys, v);
    }
    if (table_) {  // a rowid table's index
      const Value id{Value::kInt, rowid, {}};
      if (reals_) AppendNumericKey(x.keys, id, types_); else AppendKey(x.keys, id);
    }
    if (reals_) {
      x.keys.push_back(static_cast<char>(kKeyTypes));
      x.keys += types_;
      types_.clear();
    }
    size_t len = x.keys.size() - at - 2;
    if (len > 0xffff) Errorf("internal error: an index key of {} bytes in {}", len, x.name);
    x.keys[at] = static_cast<char>(len >> 8);
    x.keys[at + 1] = static_cast<char>(len);
    x.at.push_back(static_cast<uint32_t>(at));
    if (x.keys.size() > kRunBytes) FlushRun(x);
  }
}

void PagedTable::FlushRun(Index& x) {
  if (x.at.empty()) return;
  auto key = [&](uint32_t at) {
    size_t len = static_cast<size_t>(static_cast<uint8_t>(x.keys[at])) << 8 | static_cast<uint8_t>(x.keys[at + 1]);
    return std::string_view(x.keys).substr(at + 2, len);
  };
  if (!std::is_sorted(x.at.begin(), x.at.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); })) {
    std::sort(x.at.begin(), x.at.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  }
  std::string run;
  run.reserve(x.keys.size());
  for (uint32_t at : x.at) run.append(x.keys, at, key(at).size() + 2);
  x.runs.emplace_back(runs_.Add(run), run.size());
  x.keys.clear();
  x.at.clear();
}

void PagedTable::FlushRuns() {
  for (Index& x : indexes_) FlushRun(x);
}

void PagedTable::MergeRuns(Index& x) {
  FlushRun(x);
  std::vector<std::unique_ptr<RunReader>> readers;
  // The readers' buffers take up to kMergeBytes in all (at least 64 KB each).
  constexpr size_t kMergeBytes = 64 << 20;
  size_t chunk = std::clamp<size_t>(kMergeBytes / std::max<size_t>(x.runs.size(), 1), 64 << 10, 256 << 10);
  for (const auto& [at, size] : x.runs) readers.push_back(std::make_unique<RunReader>(runs_, at, size, chunk));
  // A k-way merge of the runs (each sorted; keys end with the rowid, so none are equal).
  auto later = [](RunReader* a, RunReader* b) { return a->key > b->key; };
  std::priority_queue<RunReader*, std::vector<RunReader*>, decltype(later)> heap(later);
  for (auto& r : readers) {
    if (r->Next()) heap.push(r.get());
  }
  if (!heap.empty() && x.merged && heap.top()->key <= x.last) {
    Errorf("internal error: index {}: keys of a segment sort before those of the one before", x.name);
  }
  while (!heap.empty()) {
    RunReader* r = heap.top();
    heap.pop();
    x.tree->Append(KeyToRecord(r->key, merge_rec_, scratch_, reals_));
    if (heap.empty()) {  // (the key's view ends with Next(): the last run's keys are kept as they go)
      x.last.assign(r->key);
      x.merged = true;
    }
    if (r->Next()) heap.push(r);
  }
  x.runs.clear();
}

void PagedTable::FeedIndex(size_t i, bool fed) {
  Index& x = Idx(i);
  if (fed && (!x.at.empty() || !x.runs.empty())) Errorf("internal error: index {} fed with keys waiting", x.name);
  x.fed = fed;
}

void PagedTable::AddIndexEntry(size_t i, const Value* key) {
  Index& x = Idx(i);
  size_t n = x.cols.size() + (table_ ? 1 : 0);
  key_.clear();
  merge_rec_.Clear();
  for (size_t k = 0; k < n; ++k) {
    const Value& v = key[k];
    if (v.type == Value::kBlob || (v.type == Value::kReal && !reals_)) {
      Errorf("internal error: a REAL or BLOB in a column of index {}", x.name);
    }
    if (reals_) AppendNumericKey(key_, v, types_); else AppendKey(key_, v);
    switch (v.type) {
      case Value::kNull: merge_rec_.Null(); break;
      case Value::kInt: merge_rec_.Int(v.i); break;
      case Value::kText: merge_rec_.Text(v.s); break;
      case Value::kReal: {
        double d;
        std::memcpy(&d, &v.i, sizeof d);
        merge_rec_.Real(d);
        break;
      }
      case Value::kBlob: break;
    }
  }
  if (reals_) {
    key_.push_back(static_cast<char>(kKeyTypes));
    key_ += types_;
    types_.clear();
  }
  if (x.merged && key_ <= x.last) Errorf("internal error: index {}: an entry out of key order", x.name);
  x.tree->Append(merge_rec_.Encode());
  x.last.swap(key_);
  x.merged = true;
}

void PagedTable::EndSegment(const std::vector<int>& growing) {
  for (Index& x : indexes_) {
    if (x.cols.empty() || std::find(growing.begin(), growing.end(), x.cols[0]) == growing.end()) continue;
    // The segment's keys are all in memory or runs: merged into the pages now.
    FlushRun(x);
    if (x.runs.empty()) continue;
    MergeRuns(x);
  }
}

void PagedTable::Finish(std::vector<std::pair<TreeWriter*, uint32_t>>& trees) {
  for (Index& x : indexes_) MergeRuns(x);
  if (table_) trees.emplace_back(table_.get(), root_);
  for (Index& x : indexes_) trees.emplace_back(x.tree.get(), x.root);
}

}  // namespace tracesql::btree

namespace tracesql::btree {

namespace {

uint32_t Get16(const uint8_t* p) { return static_cast<uint32_t>(p[0]) << 8 | p[1]; }

// SQLite's varint at p (at most 9 bytes, not past end): the bytes read, 0 if it runs past end.
int GetVarint(const uint8_t* p, const uint8_t* end, uint64_t* v) {
  uint64_t x = 0;
  for (int i = 0; i < 9; ++i) {
    if (p + i >= end) return 0;
    if (i == 8) {
      *v = x << 8 | p[i];
      return 9;
    }
    x = x << 7 | (p[i] & 0x7f);
    if (!(p[i] & 0x80)) {
      *v = x;
      return i + 1;
    }
  }
  return 0;
}

}  // namespace

TableReader::TableReader(const std::string& path, uint32_t root) : path_(path) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) Errorf("{}: cannot open it: {}", path, std::strerror(errno));
  uint8_t h[100];
  if (!ReadAt(fd_, h, sizeof h, 0)) Corrupt();
  page_size_ = Get16(h + 16) == 1 ? 65536 : Get16(h + 16);
  if (page_size_ < 512 || (page_size_ & (page_size_ - 1)) || h[20] >= page_size_ - 480 || Get32(h + 56) != 1) Corrupt();
  usable_ = page_size_ - h[20];
  struct stat st;
  if (fstat(fd_, &st) != 0) Corrupt();
  pages_ = static_cast<uint64_t>(st.st_size) / page_size_;
  Level top;
  Read(root, top.page);
  top.header = root == 1 ? 100 : 0;
  uint8_t flag = top.page[top.header];
  if (flag == 0x0D) {
    top.cells = Get16(top.page.data() + top.header + 3);
    leaf_ = std::move(top);
  } else if (flag == 0x05) {
    top.cells = Get16(top.page.data() + top.header + 3);
    stack_.push_back(std::move(top));
  } else {
    Corrupt();
  }
}

TableReader::~TableReader() {
  if (fd_ >= 0) close(fd_);
}

void TableReader::Corrupt() const { Errorf("{}: cannot read it: database disk image is malformed", path_); }

void TableReader::Read(uint32_t page, std::vector<uint8_t>& out) {
  if (page == 0 || page > pages_) Corrupt();
  out.resize(page_size_);
  if (!ReadAt(fd_, out.data(), page_size_, static_cast<uint64_t>(page - 1) * page_size_)) {
    Errorf("{}: cannot read it: {}", path_, std::strerror(errno));
  }
}

bool TableReader::NextLeaf() {
  while (!stack_.empty()) {
    Level& top = stack_.back();
    if (top.cell > top.cells) {
      stack_.pop_back();
      continue;
    }
    const uint8_t* p = top.page.data();
    uint32_t child;
    if (top.cell < top.cells) {
      uint32_t at = Get16(p + top.header + 12 + 2 * top.cell);
      if (at + 4 > page_size_) Corrupt();
      child = Get32(p + at);
    } else {
      child = Get32(p + top.header + 8);
    }
    ++top.cell;
    Level next;
    Read(child, next.page);
    uint8_t flag = next.page[0];
    next.cells = Get16(next.page.data() + 3);
    if (flag == 0x05) {
      if (stack_.size() > 64) Corrupt();
      stack_.push_back(std::move(next));
    } else if (flag == 0x0D) {
      leaf_ = std::move(next);
      return true;
    } else {
      Corrupt();
    }
  }
  return false;
}

bool TableReader::Next(int64_t* rowid, std::vector<Value>& values) {
  while (leaf_.page.empty() || leaf_.cell >= leaf_.cells) {
    if (!NextLeaf()) return false;
  }
  const uint8_t* page = leaf_.page.data();
  const uint8_t* end = page + usable_;
  uint32_t at = Get16(page + leaf_.header + 8 + 2 * leaf_.cell++);
  if (at >= usable_) Corrupt();
  const uint8_t* p = page + at;
  uint64_t size, id;
  int n = GetVarint(p, end, &size);
  if (!n) Corrupt();
  p += n;
  n = GetVarint(p, end, &id);
  if (!n) Corrupt();
  p += n;
  *rowid = static_cast<int64_t>(id);
  // The payload's local part (https://www.sqlite.org/fileformat2.html#b_tree_pages), the rest in
  // a chain of overflow pages.
  const uint64_t max_local = usable_ - 35;
  const uint8_t* data = p;
  const uint8_t* data_end;
  if (size <= max_local) {
    if (p + size > end) Corrupt();
    data_end = p + size;
  } else {
    uint64_t min_local = (static_cast<uint64_t>(usable_) - 12) * 32 / 255 - 23;
    uint64_t local = min_local + (size - min_local) % (usable_ - 4);
    if (local > max_local) local = min_local;
    if (p + local + 4 > end) Corrupt();
    payload_.assign(reinterpret_cast<const char*>(p), local);
    uint32_t next = Get32(p + local);
    for (int guard = 0; payload_.size() < size; ++guard) {
      if (next == 0 || guard > 1 << 22) Corrupt();
      Read(next, overflow_page_);
      size_t take = std::min<uint64_t>(size - payload_.size(), usable_ - 4);
      payload_.append(reinterpret_cast<const char*>(overflow_page_.data() + 4), take);
      next = Get32(overflow_page_.data());
    }
    data = reinterpret_cast<const uint8_t*>(payload_.data());
    data_end = data + size;
  }
  // The record: its header's size, the serial types, then the values.
  uint64_t header;
  n = GetVarint(data, data_end, &header);
  if (!n || header > static_cast<uint64_t>(data_end - data)) Corrupt();
  const uint8_t* types = data + n;
  const uint8_t* types_end = data + header;
  const uint8_t* body = types_end;
  size_t c = 0;
  while (types < types_end) {
    uint64_t t;
    n = GetVarint(types, types_end, &t);
    if (!n) Corrupt();
    types += n;
    Value v;
    if (t == 0) {
    } else if (t <= 6) {
      static constexpr uint8_t kBytes[] = {0, 1, 2, 3, 4, 6, 8};
      unsigned len = kBytes[t];
      if (body + len > data_end) Corrupt();
      uint64_t u = 0;
      for (unsigned k = 0; k < len; ++k) u = u << 8 | body[k];
      if (len < 8 && (u >> (8 * len - 1))) u |= ~uint64_t{0} << (8 * len);  // sign
      v = {Value::kInt, static_cast<int64_t>(u), {}};
      body += len;
    } else if (t == 7) {
      if (body + 8 > data_end) Corrupt();
      uint64_t u = 0;
      for (unsigned k = 0; k < 8; ++k) u = u << 8 | body[k];
      v = {Value::kReal, static_cast<int64_t>(u), {}};
      body += 8;
    } else if (t == 8 || t == 9) {
      v = {Value::kInt, static_cast<int64_t>(t - 8), {}};
    } else if (t >= 12) {
      uint64_t len = (t - 12) / 2;
      if (len > static_cast<uint64_t>(data_end - body)) Corrupt();
      v = {t & 1 ? Value::kText : Value::kBlob, 0, {reinterpret_cast<const char*>(body), static_cast<size_t>(len)}};
      body += len;
    } else {
      Corrupt();
    }
    if (c < values.size()) values[c] = v;
    ++c;
  }
  if (c > values.size()) Corrupt();
  for (; c < values.size(); ++c) values[c] = {};
  return true;
}

}  // namespace tracesql::btree
