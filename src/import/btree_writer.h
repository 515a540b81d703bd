// B-tree pages written without SQLite, in SQLite's file format
// (https://www.sqlite.org/fileformat2.html), for the one table whose rows dominate an import
// (events) and its indexes.
//
// SQLite inserts a row in ~1.2 µs of one thread however the rows arrive: it builds the record from
// bound values, seeks, and balances pages. The importer knows every row in rowid order and every
// index key in key order, so the pages can be laid out directly: records are encoded with the serial
// types SQLite itself picks, leaves are filled in order and written to an unlinked scratch file as
// they fill, and the interior levels are built once the last row is in. PlaceTrees() then appends
// the pages to the (committed, closed) database file, writes each tree's root over the empty root
// page SQLite created for it, and updates the header, so SQLite reopens a database whose table and
// indexes hold the rows exactly as INSERT and CREATE INDEX would have stored them (same records;
// only how full the pages are may differ). `PRAGMA integrity_check` verifies the result in the tests
// (page structure, key order, every row's index entries).
//
// Limits: a table's rows must come in strictly increasing rowid order, an index's entries in key
// order (the caller sorts them), index entries must fit in a page (no overflow pages; the caller's
// keys are a few integers), and the database must not use auto_vacuum (no pointer-map pages).
#ifndef SRC_IMPORT_BTREE_WRITER_H_
#define SRC_IMPORT_BTREE_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracesql::btree {

// SQLite's variable-length integer: writes v at p (at most 9 bytes), returns the bytes written.
int PutVarint(uint8_t* p, uint64_t v);
int VarintLen(uint64_t v);

// A record, built column by column, encoded with the serial types SQLite's OP_MakeRecord picks
// (0 and 1 as types 8 and 9, other integers in the fewest bytes, text as 13 + 2n).
class Record {
 public:
  static constexpr int kMaxColumns = 32;
  void Clear() { n_ = 0; }
  Record& Null() { return Add(0, 0, {}); }
  Record& Int(int64_t v);
  Record& Text(std::string_view s) { return Add(13 + 2 * static_cast<uint64_t>(s.size()), 0, s); }
  // The record's bytes, valid until the next Encode().
  std::string_view Encode();

 private:
  Record& Add(uint64_t type, int64_t i, std::string_view s);
  int n_ = 0;
  uint64_t type_[kMaxColumns];
  int64_t int_[kMaxColumns];
  std::string_view text_[kMaxColumns];
  std::string out_;
};

// A page being filled: cell pointers after the header, cell contents from the end down.
struct PageImage {
  explicit PageImage(uint32_t page_size) : bytes(page_size, 0), content(page_size) {}
  void Reset(uint32_t header_size);
  bool Fits(size_t cell) const { return header + 2 * (cells + 1) + cell <= content; }
  uint8_t* AddCell(size_t cell);  // room for a cell of that size (Fits() must hold)
  // Writes the page header (flag: 0x0D table leaf, 0x05 table interior, 0x0A index leaf, 0x02 index
  // interior; right_child for interior pages).
  void Seal(uint8_t flag, uint32_t right_child = 0);
  std::vector<uint8_t> bytes;
  uint32_t header = 8;
  uint32_t cells = 0;
  uint32_t content;  // offset of the first byte of cell content
};

// The scratch file of pages (unlinked at once: nothing is left behind, whatever happens). Pages are
// numbered from 1 in the order added; PlaceTrees() copies them to the database at a base page.
class PageSpill {
 public:
  // dir: where the file goes (the database's directory, so that the copy stays on one file system).
  // label: the name errors give (the database being built).
  PageSpill(const std::string& dir, uint32_t page_size, std::string label);
  ~PageSpill();
  PageSpill(const PageSpill&) = delete;
  PageSpill& operator=(const PageSpill&) = delete;

  uint32_t page_size() const { return page_size_; }
  uint32_t pages() const { return pages_; }
  // Appends a page; returns its number in the spill (1-based).
  uint32_t Add(const uint8_t* page);
  // Byte `at` of spill page `page` holds (big-endian) the number of a spill page: it is relocated
  // when the pages are placed.
  void NoteRef(uint32_t page, uint32_t at) { refs_.emplace_back(page, at); }
  // Writes every page to fd as pages base + 1 ... and relocates the noted references; then closes
  // the scratch file (its room is freed) and takes no more pages.
  void CopyTo(int fd, uint32_t base);

 private:
  void Flush();
  [[noreturn]] void Fail(const char* what) const;
  int fd_ = -1;
  uint32_t page_size_;
  std::string label_;
  uint32_t pages_ = 0;
  std::vector<uint8_t> buf_;  // pages added but not yet written
  std::vector<std::pair<uint32_t, uint32_t>> refs_;
};

// What the table and index writers share: the leaf being filled, the leaves written, the separators
// between them, and the interior levels built on top at the end.
class TreeWriter {
 public:
  virtual ~TreeWriter() = default;
  TreeWriter(const TreeWriter&) = delete;
  TreeWriter& operator=(const TreeWriter&) = delete;
  uint64_t entries() const { return entries_; }

 protected:
  TreeWriter(PageSpill& spill, uint8_t leaf_flag, uint8_t interior_flag);
  void SpillLeaf();  // the current leaf to the spill; a new one is started
  // Before the spill is copied: the last leaf spilled (unless it is the whole tree).
  virtual void Close();
  // After: the interior pages (numbered from next, which advances) and the root at root.
  void WriteTop(int fd, const std::string& path, uint32_t base, uint32_t root, uint32_t& next);

  PageSpill& spill_;
  PageImage leaf_;
  std::vector<uint32_t> leaf_refs_;  // offsets in leaf_ of spill page numbers (overflow chains)
  std::vector<uint32_t> leaves_;     // spill page of each leaf written
  std::vector<std::string> seps_;    // separator cell bytes (after the child pointer) between leaves
  uint64_t entries_ = 0;
  uint8_t leaf_flag_, interior_flag_;
  friend void PlaceTrees(const std::string&, PageSpill&, const std::vector<std::pair<TreeWriter*, uint32_t>>&,
                         int64_t);
};

// A rowid table, rows appended in strictly increasing rowid order.
class TableWriter : public TreeWriter {
 public:
  explicit TableWriter(PageSpill& spill) : TreeWriter(spill, 0x0D, 0x05) {}
  void Append(int64_t rowid, std::string_view record);
  int64_t last_rowid() const { return last_; }

 private:
  int64_t last_ = 0;
};

// An index, entries (records whose last column is the rowid) appended in key order.
class IndexWriter : public TreeWriter {
 public:
  explicit IndexWriter(PageSpill& spill) : TreeWriter(spill, 0x0A, 0x02) {}
  void Append(std::string_view record);

 private:
  void Close() override;
  std::string pending_;  // an entry that did not fit its leaf: the separator, once another follows
  bool has_pending_ = false;
  std::string cell_;
};

// Puts the trees into the SQLite database file at path, which SQLite has committed and closed:
// the spill's pages are appended after the database's last page, each tree's interior pages after
// them, and each tree's root page (the pair's second: the rootpage of its sqlite_schema row, an
// empty leaf that SQLite created) is overwritten. The header's page count and change counter are
// updated so that SQLite reads the file afresh. More than max_pages pages in all: "database or disk
// is full" (as SQLite's own limit says it).
void PlaceTrees(const std::string& path, PageSpill& spill, const std::vector<std::pair<TreeWriter*, uint32_t>>& trees,
                int64_t max_pages);

}  // namespace tracesql::btree

#endif  // SRC_IMPORT_BTREE_WRITER_H_
