// B-tree pages written without SQLite, in SQLite's file format
// (https://www.sqlite.org/fileformat2.html): tables and indexes of many rows, filled in bulk by a
// writer that knows its rows in order. A library of its own: it knows SQLite's file format and
// nothing of what the rows mean.
//
// SQLite inserts a row in ~1.2 µs of one thread however the rows arrive: it builds the record from
// bound values, seeks, and balances pages. A caller that knows every row in rowid order and every
// index key in key order can have the pages laid out directly: records are encoded with the serial
// types SQLite itself picks, leaves are filled in order and written to an unlinked scratch file as
// they fill, and the interior levels are built once the last row is in. PlaceTrees() then appends
// the pages to the (committed, closed) database file, writes each tree's root over the empty root
// page SQLite created for it, and updates the header, so SQLite reopens a database whose table and
// indexes hold the rows exactly as INSERT and CREATE INDEX would have stored them (same records;
// only how full the pages are may differ). `PRAGMA integrity_check` verifies the result in the tests
// (page structure, key order, every row's index entries).
//
// Limits: a table's rows must come in strictly increasing rowid order, an index's entries in key
// order (the caller sorts them), and the database must not use auto_vacuum (no pointer-map pages).
#ifndef SRC_BTREE_BTREE_WRITER_H_
#define SRC_BTREE_BTREE_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tracesql {
class Db;
}

namespace tracesql::btree {

// Opens a scratch file in dir that no name refers to (O_TMPFILE, else a name unlinked at once): it
// is gone, whatever happens, once closed. Errors name label; what goes into the fallback's name.
// *linkable (if given): whether it is an O_TMPFILE, which linkat() can give a name later.
int OpenScratch(const std::string& dir, const char* what, const std::string& label, bool* linkable = nullptr);

// SQLite's variable-length integer: writes v at p (at most 9 bytes), returns the bytes written.
int PutVarint(uint8_t* p, uint64_t v);
int VarintLen(uint64_t v);

// A record, built column by column, encoded with the serial types SQLite's OP_MakeRecord picks
// (0 and 1 as types 8 and 9, other integers in the fewest bytes, text as 13 + 2n).
class Record {
 public:
  static constexpr int kMaxColumns = 32;
  void Clear() {
    n_ = 0;
    header_ = 0;
    body_ = 0;
  }
  Record& Null() { return Add(0, 0, 0, {}); }
  Record& Int(int64_t v) {
    // As sqlite3VdbeSerialType (file format 4).
    uint64_t u = v < 0 ? ~static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
    if (u <= 127) return (v & 1) == v ? Add(8 + static_cast<uint64_t>(v), 0, 0, {}) : Add(1, 1, v, {});
    if (u <= 32767) return Add(2, 2, v, {});
    if (u <= 8388607) return Add(3, 3, v, {});
    if (u <= 2147483647) return Add(4, 4, v, {});
    if (u <= 0x7fffffffffffULL) return Add(5, 6, v, {});
    return Add(6, 8, v, {});
  }
  Record& Text(std::string_view s) { return Add(13 + 2 * static_cast<uint64_t>(s.size()), s.size(), 0, s); }
  Record& Real(double d) {
    int64_t bits;
    static_assert(sizeof bits == sizeof d);
    __builtin_memcpy(&bits, &d, sizeof bits);
    return Add(7, 8, bits, {});
  }
  Record& Blob(std::string_view s) { return Add(12 + 2 * static_cast<uint64_t>(s.size()), s.size(), 0, s); }
  // The record's bytes, valid until the next Encode().
  std::string_view Encode();

 private:
  Record& Add(uint64_t type, uint64_t bytes, int64_t i, std::string_view s) {
    if (n_ == kMaxColumns) TooMany();
    type_[n_] = type;
    int_[n_] = i;
    text_[n_] = s;
    ++n_;
    header_ += type < 0x80 ? 1 : static_cast<uint64_t>(VarintLen(type));
    body_ += bytes;
    return *this;
  }
  [[noreturn]] static void TooMany();
  int n_ = 0;
  uint64_t header_ = 0, body_ = 0;  // the serial types' bytes; the values'
  uint64_t type_[kMaxColumns];
  int64_t int_[kMaxColumns];
  std::string_view text_[kMaxColumns];
  std::unique_ptr<uint8_t[]> out_;  // not zero-filled as it grows
  size_t capacity_ = 0;
};

// A page being filled: cell pointers after the header, cell contents from the end down.
struct PageImage {
  explicit PageImage(uint32_t page_size) : bytes(page_size, 0), content(page_size) {}
  void Reset(uint32_t header_size);
  bool Fits(size_t cell) const { return header + 2 * (cells + 1) + cell <= content; }
  uint8_t* AddCell(size_t cell);  // room for a cell of that size (Fits() must hold)
  // Takes the last cell added (of that size) out again; its bytes are copied to out.
  void RemoveLastCell(size_t cell, std::string& out);
  // Writes the page header (flag: 0x0D table leaf, 0x05 table interior, 0x0A index leaf, 0x02 index
  // interior; right_child for interior pages).
  void Seal(uint8_t flag, uint32_t right_child = 0);
  std::vector<uint8_t> bytes;
  uint32_t header = 8;
  uint32_t cells = 0;
  uint32_t content;  // offset of the first byte of cell content
};

class TreeWriter;

// Where spill pages go in the database: spill page n at page base + n, or one further from the
// lock page on (lock: that page's number, 0 if none of these pages reach it).
struct Placement {
  uint32_t base = 0, lock = 0;
  uint32_t Page(uint64_t number) const;
};

// The scratch file of pages (unlinked at once: nothing is left behind, whatever happens). Pages are
// numbered from 1 in the order added; PlaceTrees() puts them into the database at a base page.
// They are written in pieces of kBufferPages with O_DIRECT (page sizes of 4 KB and more, where the
// file system takes it): no copy into the page cache, nothing left for the final fsync to write;
// and by a thread of the spill's own, so that the device's time overlaps the work of the thread
// that adds them (at most kBuffers pieces in flight). A write error is reported by the next Add()
// or by PlaceTrees().
class PageSpill {
 public:
  // dir: where the file goes (the database's directory: the file becomes the database, or is
  // copied into it, on one file system). label: the name errors give (the database being built).
  PageSpill(const std::string& dir, uint32_t page_size, std::string label);
  // A second spill (for another thread) in first's file, from byte kSecondOrigin on: the file is
  // sparse until placed, when the gap is collapsed. Where the file system cannot hold a file that
  // large (or first has pages already), its pages go to a file of its own.
  explicit PageSpill(PageSpill& first);
  static constexpr uint64_t kSecondOrigin = uint64_t{1} << 42;  // 4 TiB
  static constexpr uint32_t kBufferPages = 64;
  static constexpr int kBuffers = 2;
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

 private:
  friend bool PlaceTrees(const std::string&, const std::vector<PageSpill*>&,
                         const std::vector<std::pair<TreeWriter*, uint32_t>>&, int64_t, uint64_t, bool);
  struct File {
    int fd = -1;
    bool linkable = false;  // an O_TMPFILE
    ~File();
  };
  class Writer;
  void OwnFile();  // a scratch file of this spill's own (pages from its start)
  void Flush();    // the buffer to the writer; waits until every piece is written
  void Submit();   // the buffer to the writer
  // Writes every page to fd at its place, then Placed() (after Flush()).
  void CopyTo(int fd, const Placement& at);
  // The pages are at their places in fd (copied there, or this file became the database):
  // relocates the noted references; takes no more pages; closes the file (unless shared).
  void Placed(int fd, const Placement& at);
  [[noreturn]] void Fail(const char* what) const;
  std::string dir_;
  uint32_t page_size_;
  std::string label_;
  std::shared_ptr<File> file_;
  uint64_t origin_ = 0;  // byte of the file where page 1 is
  uint32_t pages_ = 0;
  bool placed_ = false;
  std::unique_ptr<Writer> writer_;
  uint8_t* buf_ = nullptr;  // pages added but not yet submitted (a buffer of the writer's)
  uint32_t buffered_ = 0;   // how many
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
  void WriteTop(int fd, const std::string& path, const Placement& at, uint32_t root, uint32_t& next);

  PageSpill& spill_;
  PageImage leaf_;
  std::vector<uint32_t> leaf_refs_;  // offsets in leaf_ of spill page numbers (overflow chains)
  std::vector<uint32_t> leaves_;     // spill page of each leaf written
  // A separator between two children: its cell's bytes after the child pointer; overflow: they end
  // with the number of a spill page (an index key's overflow chain).
  struct Sep {
    std::string bytes;
    bool overflow = false;
  };
  // cell_ = prefix, the payload's local part and, when it overflows, the number of the first of the
  // overflow pages written to the spill for the rest (cell_overflow_).
  void MakeCell(const uint8_t* prefix, size_t prefix_size, std::string_view payload, uint32_t max_local);
  void AddCellToLeaf();  // cell_ into the leaf (Fits() must hold)
  std::vector<Sep> seps_;            // between the leaves
  std::string cell_;
  bool cell_overflow_ = false;
  uint64_t entries_ = 0;
  uint8_t leaf_flag_, interior_flag_;
  friend bool PlaceTrees(const std::string&, const std::vector<PageSpill*>&,
                         const std::vector<std::pair<TreeWriter*, uint32_t>>&, int64_t, uint64_t, bool);
};

// A rowid table, rows appended in strictly increasing rowid order.
class TableWriter : public TreeWriter {
 public:
  explicit TableWriter(PageSpill& spill) : TreeWriter(spill, 0x0D, 0x05) {}
  void Append(int64_t rowid, std::string_view record);
  int64_t last_rowid() const { return last_; }  // 0 before the first row

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
  // An entry that did not fit the leaf: the separator between that leaf (held in leaf_, not yet
  // spilled) and the next, once another entry follows.
  Sep pending_;
  bool has_pending_ = false;
  size_t last_cell_size_ = 0;  // of the leaf's last cell
  bool last_cell_overflow_ = false;
};

// Puts the trees into the SQLite database file at path, which SQLite has committed and closed:
// the spills' pages go after the database's last page (each spill's after the one before), each
// tree's interior pages after them, and each tree's root page (the pair's second: the rootpage of
// its sqlite_schema row, an empty leaf that SQLite created) is overwritten. The header's page
// count and change counter are updated so that SQLite reads the file afresh. More than max_pages
// pages in all: "database or disk is full" (as SQLite's own limit says it). Every tree's pages must
// be in one of the spills. No page goes where byte pending_byte of the file is (SQLite's lock page;
// the byte is SQLite's PENDING_BYTE, 1 GB unless a test moved it).
//
// Where the file system can (Linux ext4, XFS: fallocate's FALLOC_FL_COLLAPSE_RANGE and
// FALLOC_FL_INSERT_RANGE), the spills' file itself becomes the database: the gap between the spills
// is collapsed, room for SQLite's pages is inserted before them and they are copied there, and the
// file, given a name, replaces the one at path (keeping its permissions). Nothing of the spills is
// copied. Elsewhere (or with may_adopt false, for tests) the spills are copied into the database
// file. Returns whether the spills' file became the database.
bool PlaceTrees(const std::string& path, const std::vector<PageSpill*>& spills,
                const std::vector<std::pair<TreeWriter*, uint32_t>>& trees, int64_t max_pages,
                uint64_t pending_byte = 0x40000000, bool may_adopt = true);

// A value of a row (kReal: the double's bits in i). A REAL or BLOB is stored in a table's record
// as it is; a REAL in an index key only where the table allows it (PagedTable::AllowReals), a
// BLOB never.
struct Value {
  enum Type : uint8_t { kNull, kInt, kText, kReal, kBlob } type = kNull;
  int64_t i = 0;
  std::string_view s;
};

// Reads the rows of a rowid table from a SQLite database file without SQLite, in rowid order (the
// b-tree's leaves left to right): for a file that nothing writes meanwhile (the caller holds a
// read transaction on it) in UTF-8 and not in WAL mode. Errors name path.
class TableReader {
 public:
  TableReader(const std::string& path, uint32_t root);
  ~TableReader();
  TableReader(const TableReader&) = delete;
  TableReader& operator=(const TableReader&) = delete;
  // The next row: its rowid and its record's values (text and blobs valid until the next call;
  // columns past the record's, NULL); false after the last.
  bool Next(int64_t* rowid, std::vector<Value>& values);

 private:
  struct Level {
    std::vector<uint8_t> page;
    uint32_t header = 0, cell = 0, cells = 0;
  };
  void Read(uint32_t page, std::vector<uint8_t>& out);
  bool NextLeaf();
  [[noreturn]] void Corrupt() const;
  std::string path_;
  int fd_ = -1;
  uint32_t page_size_ = 0, usable_ = 0;
  uint64_t pages_ = 0;
  std::vector<Level> stack_;  // the interior pages above the leaf
  Level leaf_;
  std::string payload_;       // a payload that spills into overflow pages
  std::vector<uint8_t> overflow_page_;
};

// Sorted runs of index keys, in an unlinked scratch file.
class RunSpill {
 public:
  RunSpill(const std::string& dir, std::string label);
  ~RunSpill();
  RunSpill(const RunSpill&) = delete;
  RunSpill& operator=(const RunSpill&) = delete;
  // Appends bytes; returns their offset.
  uint64_t Add(std::string_view bytes);
  // Reads size bytes at offset at into out.
  void Read(void* out, uint64_t size, uint64_t at) const;
  int fd() const { return fd_; }
  const std::string& label() const { return label_; }

 private:
  int fd_ = -1;
  uint64_t size_ = 0;
  std::string label_;
};

// One table of the database (a rowid table or WITHOUT ROWID) and its indexes, written as pages
// from rows: the layout is read from the database's schema (columns, declared types, NOT NULL,
// INTEGER PRIMARY KEY, indexes with their columns and partial-index WHERE terms of the forms
// `col IS NOT NULL` and `col = 'text'`, joined by AND). A value is stored as SQLite would store it
// in its column (an integer put into a TEXT column becomes its decimal text). Rows must come in
// rowid order; index entries (and a WITHOUT ROWID table's rows) are sorted here: kept as byte
// strings that compare as SQLite orders the keys, sorted into runs of kRunBytes in a RunSpill, and
// merged into the index pages by Finish().
class PagedTable {
 public:
  PagedTable(Db& db, const std::string& name, PageSpill& spill, RunSpill& runs);
  ~PagedTable();
  PagedTable(const PagedTable&) = delete;
  PagedTable& operator=(const PagedTable&) = delete;

  const std::string& name() const { return name_; }
  int columns() const { return static_cast<int>(cols_.size()); }
  // The table positions of the named columns ("a, b, c"); an unknown name is an internal error, as
  // is leaving out a column that is NOT NULL.
  std::vector<int> Positions(std::string_view names) const;
  // A row: values[c] for the table's column c.
  void Add(const Value* values);
  // The last row's rowid; 0 before the first (and for a WITHOUT ROWID table).
  int64_t last_rowid() const { return table_ ? table_->last_rowid() : 0; }
  // The table's indexes in the schema (a WITHOUT ROWID table's rows are not one).
  size_t indexes() const { return indexes_.size() - (without_rowid_ ? 1 : 0); }
  // The index keys still in memory, as sorted runs.
  void FlushRuns();
  // Lets REAL values into the indexes' keys (the rows of another database, copied): keys take 17
  // bytes per number rather than 9. Before the first row.
  void AllowReals() { reals_ = true; }
  // Merges the runs into the index pages; then appends each tree and its root page to trees.
  void Finish(std::vector<std::pair<TreeWriter*, uint32_t>>& trees);
  // The rows added so far make a segment whose keys sort, in every index whose first column is one
  // of `growing` (positions), before those of every row added later (the caller knows: ids that
  // grow from one segment to the next, never NULL): those indexes' keys are merged into their pages
  // now, not at Finish() (a merge of few runs, read back at once). A segment whose keys do not sort
  // after the last one's is an internal error.
  void EndSegment(const std::vector<int>& growing);
  // The indexes (a WITHOUT ROWID table's rows are not one): name, table positions of the key
  // columns, and the partial index's WHERE clause ("" if none), as in the schema.
  const std::string& IndexName(size_t i) const { return Idx(i).name; }
  const std::vector<int>& IndexColumns(size_t i) const { return Idx(i).cols; }
  const std::string& IndexWhere(size_t i) const { return Idx(i).where_sql; }
  // Index i's entries are given by the caller (AddIndexEntry) rather than made from the rows
  // added (while fed is true): for rows whose entries the caller reads in key order elsewhere.
  // The index must hold no keys waiting to be merged (EndSegment()).
  void FeedIndex(size_t i, bool fed);
  // An entry of index i: its key columns' values, then (a rowid table) the rowid, in key order,
  // after every entry before (an internal error otherwise).
  void AddIndexEntry(size_t i, const Value* key);

 private:
  struct Column {
    std::string name;
    char affinity;  // 'i' INTEGER, 't' TEXT, 'b' BLOB (none), 'r' REAL, 'n' NUMERIC
    bool not_null;
  };
  struct Index {
    std::string name;
    uint32_t root = 0;
    std::vector<int> cols;
    // Partial index: every term must hold (text empty: `col IS NOT NULL`, else `col = 'text'`).
    std::vector<std::pair<int, std::string>> where;
    std::unique_ptr<IndexWriter> tree;
    std::string keys;          // keys not yet in a run: each a 2-byte length, then the key
    std::vector<uint32_t> at;  // their offsets in keys
    std::vector<std::pair<uint64_t, uint64_t>> runs;  // (offset, bytes) in the RunSpill
    std::string last;     // the last key merged into the tree (merged: any was)
    bool merged = false;
    bool fed = false;     // entries given by AddIndexEntry
    std::string where_sql;
  };
  const Index& Idx(size_t i) const { return indexes_[i + (without_rowid_ ? 1 : 0)]; }
  Index& Idx(size_t i) { return indexes_[i + (without_rowid_ ? 1 : 0)]; }
  std::string key_;
  void FlushRun(Index& index);
  void MergeRuns(Index& index);  // the runs into the index's pages
  Record merge_rec_;
  std::string scratch_;
  int ColumnIndex(std::string_view name) const;  // -1: none
  std::string name_;
  std::vector<Column> cols_;
  std::vector<Index> indexes_;
  int ipk_ = -1;             // the INTEGER PRIMARY KEY column (the rowid), if any
  bool without_rowid_ = false;
  uint32_t root_ = 0;
  PageSpill& spill_;
  RunSpill& runs_;
  // Index keys held before they are sorted into a run: bounds the memory they take (the import's
  // peak is while these tables are written).
  static constexpr size_t kRunBytes = 256 << 10;
  // A rowid table; WITHOUT ROWID: indexes_[0] holds the rows (keys of every column, no rowid).
  std::unique_ptr<TableWriter> table_;
  Record rec_;
  std::vector<Value> stored_;
  std::vector<std::string> text_;  // integers stored as text
  bool reals_ = false;
  std::string types_;  // a key's numbers' types (AllowReals)
};

}  // namespace tracesql::btree

#endif  // SRC_BTREE_BTREE_WRITER_H_
