#include "import/btree_writer.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

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

// How much of a payload of p bytes stays on a b-tree page of usable size u (the rest goes to
// overflow pages), for a table leaf (max_local u - 35) or an index page.
uint32_t LocalSize(uint64_t p, uint32_t u, uint32_t max_local) {
  if (p <= max_local) return static_cast<uint32_t>(p);
  uint32_t min_local = (u - 12) * 32 / 255 - 23;
  uint64_t k = min_local + (p - min_local) % (u - 4);
  return k <= max_local ? static_cast<uint32_t>(k) : min_local;
}

}  // namespace

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

Record& Record::Add(uint64_t type, int64_t i, std::string_view s) {
  if (n_ == kMaxColumns) Errorf("internal error: a record of more than {} columns", kMaxColumns);
  type_[n_] = type;
  int_[n_] = i;
  text_[n_] = s;
  ++n_;
  return *this;
}

Record& Record::Int(int64_t v) {
  // As sqlite3VdbeSerialType (file format 4).
  uint64_t u = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  uint64_t type;
  if (u <= 127) {
    type = (v & 1) == v ? 8 + static_cast<uint64_t>(v) : 1;
  } else if (u <= 32767) {
    type = 2;
  } else if (u <= 8388607) {
    type = 3;
  } else if (u <= 2147483647) {
    type = 4;
  } else if (u <= 0x7fffffffffffULL) {
    type = 5;
  } else {
    type = 6;
  }
  return Add(type, v, {});
}

std::string_view Record::Encode() {
  static constexpr uint8_t kIntBytes[] = {0, 1, 2, 3, 4, 6, 8, 8, 0, 0};
  uint64_t header = 0, body = 0;
  for (int c = 0; c < n_; ++c) {
    header += static_cast<uint64_t>(VarintLen(type_[c]));
    body += type_[c] >= 12 ? (type_[c] - 12) / 2 : kIntBytes[type_[c]];
  }
  // As OP_MakeRecord: the header's size counts its own varint.
  if (header <= 126) {
    header += 1;
  } else {
    int n = VarintLen(header);
    header += static_cast<uint64_t>(n);
    if (n < VarintLen(header)) ++header;
  }
  out_.resize(header + body);
  uint8_t* p = reinterpret_cast<uint8_t*>(out_.data());
  uint8_t* h = p + PutVarint(p, header);
  uint8_t* b = p + header;
  for (int c = 0; c < n_; ++c) {
    uint64_t t = type_[c];
    h += PutVarint(h, t);
    if (t >= 12) {
      std::memcpy(b, text_[c].data(), text_[c].size());
      b += text_[c].size();
    } else if (uint8_t len = kIntBytes[t]; len) {
      uint64_t v = static_cast<uint64_t>(int_[c]);
      for (int k = len - 1; k >= 0; --k) {
        b[k] = static_cast<uint8_t>(v);
        v >>= 8;
      }
      b += len;
    }
  }
  return out_;
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

void PageImage::Seal(uint8_t flag, uint32_t right_child) {
  uint8_t* p = bytes.data();
  p[0] = flag;
  Put16(p + 1, 0);  // no freeblock
  Put16(p + 3, cells);
  Put16(p + 5, content == 65536 ? 0 : content);
  p[7] = 0;  // no fragmented bytes
  if (header == 12) Put32(p + 8, right_child);
}

PageSpill::PageSpill(const std::string& dir, uint32_t page_size, std::string label)
    : page_size_(page_size), label_(std::move(label)) {
  fd_ = open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd_ < 0) {  // a file system without O_TMPFILE: a named file, unlinked at once
    std::string tmpl = dir + "/.tracesql-pages-XXXXXX";
    fd_ = mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd_ < 0) Fail("create");
    unlink(tmpl.c_str());
  }
  buf_.reserve(size_t{64} * page_size_);
}

PageSpill::~PageSpill() {
  if (fd_ >= 0) close(fd_);
}

void PageSpill::Fail(const char* what) const {
  Errorf("{}: cannot {} temporary data: {}", label_, what, std::strerror(errno));
}

uint32_t PageSpill::Add(const uint8_t* page) {
  if (fd_ < 0) Errorf("internal error: pages added after they were placed");
  if (pages_ == UINT32_MAX - 1) Errorf("{}: database or disk is full (too many pages)", label_);
  buf_.insert(buf_.end(), page, page + page_size_);
  ++pages_;
  if (buf_.size() >= size_t{64} * page_size_) Flush();
  return pages_;
}

void PageSpill::Flush() {
  if (buf_.empty()) return;
  uint64_t at = (uint64_t{pages_} - buf_.size() / page_size_) * page_size_;
  if (!WriteAt(fd_, buf_.data(), buf_.size(), at)) Fail("write");
  buf_.clear();
}

void PageSpill::CopyTo(int fd, uint32_t base) {
  Flush();
  uint64_t size = uint64_t{pages_} * page_size_;
  loff_t in = 0, out = static_cast<loff_t>(uint64_t{base} * page_size_);
  // In the kernel where it can (no copy through user space); else through a buffer.
  while (static_cast<uint64_t>(in) < size) {
    ssize_t n = copy_file_range(fd_, &in, fd, &out, static_cast<size_t>(size - static_cast<uint64_t>(in)), 0);
    if (n > 0) continue;
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno != EXDEV && errno != ENOSYS && errno != EOPNOTSUPP && errno != EINVAL) Fail("copy");
    std::vector<uint8_t> chunk(size_t{256} * page_size_);
    while (static_cast<uint64_t>(in) < size) {
      size_t want = static_cast<size_t>(std::min<uint64_t>(chunk.size(), size - static_cast<uint64_t>(in)));
      if (!ReadAt(fd_, chunk.data(), want, static_cast<uint64_t>(in))) Fail("read");
      if (!WriteAt(fd, chunk.data(), want, static_cast<uint64_t>(out))) Fail("copy");
      in += static_cast<loff_t>(want);
      out += static_cast<loff_t>(want);
    }
  }
  for (const auto& [page, at] : refs_) {
    uint64_t where = (uint64_t{base} + page - 1) * page_size_ + at;
    uint8_t b[4];
    if (!ReadAt(fd, b, 4, where)) Fail("read");
    Put32(b, Get32(b) + base);
    if (!WriteAt(fd, b, 4, where)) Fail("copy");
  }
  close(fd_);
  fd_ = -1;
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

void TreeWriter::WriteTop(int fd, const std::string& path, uint32_t base, uint32_t root, uint32_t& next) {
  const uint32_t page_size = spill_.page_size();
  auto write = [&](const PageImage& page, uint32_t no) {
    if (!WriteAt(fd, page.bytes.data(), page.bytes.size(), (uint64_t{no} - 1) * page_size)) {
      Errorf("{}: cannot write database: {}", path, std::strerror(errno));
    }
  };
  if (leaves_.empty()) {
    // The whole tree is one leaf (or nothing: the empty root SQLite wrote stays).
    if (leaf_.cells == 0) return;
    for (uint32_t at : leaf_refs_) Put32(leaf_.bytes.data() + at, Get32(leaf_.bytes.data() + at) + base);
    leaf_.Seal(leaf_flag_);
    write(leaf_, root);
    return;
  }
  // Level by level: children are grouped into pages as full as they go, each group's separators
  // between its children as cells, its last child as the right child; the separators between
  // groups go up. A last group of one child (a page without cells) takes one from the group before.
  std::vector<uint32_t> child(leaves_.size());
  for (size_t i = 0; i < leaves_.size(); ++i) child[i] = base + leaves_[i];
  std::vector<std::string> sep = std::move(seps_);
  PageImage page(page_size);
  for (;;) {
    const size_t m = child.size();
    std::vector<std::pair<size_t, size_t>> groups;  // [first, last] child
    for (size_t s = 0; s < m;) {
      size_t used = 12, e = s;
      while (e + 1 < m && used + 2 + 4 + sep[e].size() <= page_size) used += 2 + 4 + sep[e].size(), ++e;
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
    std::vector<std::string> up_sep;
    for (const auto& [s, e] : groups) {
      page.Reset(12);
      for (size_t k = s; k < e; ++k) {
        uint8_t* cell = page.AddCell(4 + sep[k].size());
        Put32(cell, child[k]);
        std::memcpy(cell + 4, sep[k].data(), sep[k].size());
      }
      page.Seal(interior_flag_, child[e]);
      uint32_t no = top ? root : next++;
      write(page, no);
      up_child.push_back(no);
      if (e + 1 < m) up_sep.push_back(std::move(sep[e]));
    }
    if (top) return;
    child = std::move(up_child);
    sep = std::move(up_sep);
  }
}

void TableWriter::Append(int64_t rowid, std::string_view record) {
  if (entries_ > 0 && rowid <= last_) Errorf("internal error: rowid {} after {}", rowid, last_);
  const uint32_t u = spill_.page_size();
  const uint64_t p = record.size();
  const uint32_t local = LocalSize(p, u, u - 35);
  const bool overflow = local < p;
  const size_t cell = static_cast<size_t>(VarintLen(p) + VarintLen(static_cast<uint64_t>(rowid))) + local +
                      (overflow ? 4 : 0);
  if (!leaf_.Fits(cell)) {
    seps_.emplace_back();
    uint8_t key[9];
    seps_.back().assign(reinterpret_cast<char*>(key), static_cast<size_t>(PutVarint(key, static_cast<uint64_t>(last_))));
    SpillLeaf();
  }
  uint32_t first_overflow = 0;
  if (overflow) {
    // The rest of the payload in a chain of overflow pages: a 4-byte next page, then u - 4 bytes.
    std::vector<uint8_t> page(u, 0);
    const uint8_t* rest = reinterpret_cast<const uint8_t*>(record.data()) + local;
    uint64_t left = p - local;
    uint64_t count = (left + (u - 4) - 1) / (u - 4);
    first_overflow = spill_.pages() + 1;
    for (uint64_t k = 0; k < count; ++k) {
      size_t n = static_cast<size_t>(std::min<uint64_t>(left, u - 4));
      std::fill(page.begin(), page.end(), 0);
      uint32_t next = k + 1 < count ? first_overflow + static_cast<uint32_t>(k) + 1 : 0;
      Put32(page.data(), next);
      std::memcpy(page.data() + 4, rest, n);
      uint32_t no = spill_.Add(page.data());
      if (next) spill_.NoteRef(no, 0);
      rest += n;
      left -= n;
    }
  }
  uint8_t* c = leaf_.AddCell(cell);
  uint8_t* w = c + PutVarint(c, p);
  w += PutVarint(w, static_cast<uint64_t>(rowid));
  std::memcpy(w, record.data(), local);
  w += local;
  if (overflow) {
    Put32(w, first_overflow);
    leaf_refs_.push_back(static_cast<uint32_t>(w - leaf_.bytes.data()));
  }
  last_ = rowid;
  ++entries_;
}

void IndexWriter::Append(std::string_view record) {
  const uint32_t u = spill_.page_size();
  const uint64_t p = record.size();
  if (p > (u - 12) * 64 / 255 - 23) Errorf("internal error: index entry of {} bytes", p);
  cell_.resize(static_cast<size_t>(VarintLen(p)) + p);
  size_t at = static_cast<size_t>(PutVarint(reinterpret_cast<uint8_t*>(cell_.data()), p));
  std::memcpy(cell_.data() + at, record.data(), record.size());
  ++entries_;
  if (has_pending_) {
    // The entry that did not fit the last leaf separates it from the leaf this one starts.
    seps_.push_back(std::move(pending_));
    has_pending_ = false;
  } else if (!leaf_.Fits(cell_.size())) {
    SpillLeaf();
    pending_ = cell_;
    has_pending_ = true;
    return;
  }
  std::memcpy(leaf_.AddCell(cell_.size()), cell_.data(), cell_.size());
}

void IndexWriter::Close() {
  if (has_pending_) {  // the last entry alone in the last leaf
    std::memcpy(leaf_.AddCell(pending_.size()), pending_.data(), pending_.size());
    has_pending_ = false;
  }
  TreeWriter::Close();
}

void PlaceTrees(const std::string& path, PageSpill& spill, const std::vector<std::pair<TreeWriter*, uint32_t>>& trees,
                int64_t max_pages) {
  for (const auto& [tree, root] : trees) tree->Close();
  int fd = open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (fd < 0) Errorf("{}: cannot open database: {}", path, std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { close(fd); }
  } closer{fd};
  uint8_t header[100];
  if (!ReadAt(fd, header, sizeof header, 0)) Errorf("{}: cannot read database: {}", path, std::strerror(errno));
  struct stat st {};
  if (fstat(fd, &st) != 0) Errorf("{}: cannot read database: {}", path, std::strerror(errno));
  const uint32_t page_size = header[16] == 0 && header[17] == 1 ? 65536u : (uint32_t{header[16]} << 8) | header[17];
  const uint32_t pages = Get32(header + 28), counter = Get32(header + 24);
  if (std::memcmp(header, "SQLite format 3", 16) != 0 || page_size != spill.page_size() || header[20] != 0 ||
      Get32(header + 92) != counter || uint64_t{pages} * page_size != static_cast<uint64_t>(st.st_size) ||
      Get32(header + 52) != 0) {
    Errorf("internal error: {}: not a committed database of {}-byte pages without auto_vacuum", path,
           spill.page_size());
  }
  for (const auto& [tree, root] : trees) {
    if (root < 2 || root > pages) Errorf("internal error: {}: root page {} out of range", path, root);
  }
  spill.CopyTo(fd, pages);
  uint32_t next = pages + spill.pages() + 1;
  for (const auto& [tree, root] : trees) tree->WriteTop(fd, path, pages, root, next);
  const uint32_t total = next - 1;
  if (static_cast<int64_t>(total) > max_pages) Errorf("{}: database or disk is full", path);
  Put32(header + 28, total);
  Put32(header + 24, counter + 1);
  Put32(header + 92, counter + 1);
  Put32(header + 96, static_cast<uint32_t>(sqlite3_libversion_number()));
  if (!WriteAt(fd, header, sizeof header, 0)) Errorf("{}: cannot write database: {}", path, std::strerror(errno));
}

}  // namespace tracesql::btree
