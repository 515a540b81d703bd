// The trace model's interners and arg spill (trace.h).
#include "import/trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>

#include "btree/btree_writer.h"
#include "tracesql/error.h"

namespace tracesql {

uint64_t StringIdMap::Hash(std::string_view s) {
  // 8 bytes at a time, multiply-xorshift mixed; the tail read as one overlapping word.
  const char* p = s.data();
  size_t n = s.size();
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xFF51AFD7ED558CCDull);
  auto mix = [&](uint64_t w) {
    h = (h ^ w) * 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
  };
  uint64_t w = 0;
  if (n >= 8) {
    for (; n > 8; p += 8, n -= 8) {
      std::memcpy(&w, p, 8);
      mix(w);
    }
    std::memcpy(&w, p + n - 8, 8);
  } else if (n >= 4) {
    uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    w = uint64_t{a} << 32 | b;
  } else if (n > 0) {
    w = uint64_t{static_cast<unsigned char>(p[0])} << 16 | uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
        static_cast<unsigned char>(p[n - 1]);
  }
  mix(w);
  h *= 0x94D049BB133111EBull;
  return h ^ (h >> 32);
}

uint32_t StringIdMap::Find(std::string_view s, uint64_t h) const {
  if (slots_.empty()) return 0;
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& slot = slots_[i];
    if (slot.id == 0) return 0;
    if (slot.hash == h && slot.size == s.size() && (s.empty() || std::memcmp(slot.data, s.data(), s.size()) == 0)) {
      return slot.id;  // (memcmp must not see the null data of an empty view)
    }
  }
}

void StringIdMap::Insert(std::string_view s, uint64_t h, uint32_t id) {
  if (2 * (used_ + 1) > slots_.size()) Grow();  // at most half full
  const size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (slots_[i].id != 0) i = (i + 1) & mask;
  slots_[i] = {h, s.data(), static_cast<uint32_t>(s.size()), id};
  ++used_;
}

void StringIdMap::Grow() {
  std::vector<Slot> slots(std::max<size_t>(256, slots_.size() * 2));
  const size_t mask = slots.size() - 1;
  for (const Slot& slot : slots_) {
    if (slot.id == 0) continue;
    size_t i = slot.hash & mask;
    while (slots[i].id != 0) i = (i + 1) & mask;
    slots[i] = slot;
  }
  slots_.swap(slots);
}

uint32_t Interner::Intern(std::string_view s) {
  return map_.FindOrAdd(s, [&] {
    views_.push_back(storage_.emplace_back(s));
    return std::pair{views_.back(), static_cast<uint32_t>(views_.size() - 1)};
  });
}

uint32_t StackInterner::Intern(uint32_t parent, uint32_t name, uint32_t cat, int depth) {
  if (2 * (nodes_.size() + 1) > slots_.size()) Grow();  // at most half full
  const size_t mask = slots_.size() - 1;
  for (size_t i = Hash(parent, name, cat) & mask;; i = (i + 1) & mask) {
    uint32_t id = slots_[i];
    if (id == 0) {
      nodes_.push_back({parent, name, cat, depth});
      cpu_total_.push_back(0);
      cpu_slices_.push_back(0);
      slots_[i] = static_cast<uint32_t>(nodes_.size());
      return slots_[i];
    }
    const Node& n = nodes_[id - 1];
    if (n.parent == parent && n.name == name && n.cat == cat) return id;
  }
}

void StackInterner::Grow() {
  std::vector<uint32_t> slots(std::max<size_t>(1024, slots_.size() * 2), 0);
  const size_t mask = slots.size() - 1;
  for (uint32_t id = 1; id <= nodes_.size(); ++id) {
    const Node& n = nodes_[id - 1];
    size_t i = Hash(n.parent, n.name, n.cat) & mask;
    while (slots[i] != 0) i = (i + 1) & mask;
    slots[i] = id;
  }
  slots_.swap(slots);
}

uint32_t ArgShapes::Intern(std::string_view sig) {
  if (last_id_ && sig == last_sig_) return last_id_;
  const uint32_t id = map_.FindOrAdd(sig, [&] {
    return std::pair{std::string_view(sigs_.emplace_back(sig)), static_cast<uint32_t>(sigs_.size())};
  });
  last_sig_ = sigs_[id - 1];
  last_id_ = id;
  return id;
}

uint32_t ArgShapes::Concat(uint32_t a, uint32_t b) {
  std::string sig = a ? sigs_[a - 1] : std::string();
  if (b) sig += sigs_[b - 1];
  return Intern(sig);
}

uint32_t InputShapes::Intern(bool has_dims, std::string_view dims, bool has_types, std::string_view types) {
  key_.clear();
  key_.push_back(static_cast<char>((has_dims ? 1 : 0) | (has_types ? 2 : 0)));
  key_.append(dims);
  key_.push_back('\0');
  key_.append(types);
  return map_.FindOrAdd(key_, [&] {
    shapes_.push_back({has_dims, has_types, std::string(dims), std::string(types)});
    return std::pair{std::string_view(keys_.emplace_back(key_)), static_cast<uint32_t>(shapes_.size())};
  });
}

bool LikeProfilerStep(std::string_view name) {
  static constexpr std::string_view kStep = "profilerstep#";
  return name.size() >= kStep.size() &&
         std::equal(kStep.begin(), kStep.end(), name.begin(),
                    [](char a, char b) { return a == std::tolower(static_cast<unsigned char>(b)); });
}

ArgSpill::ArgSpill(std::string dir, std::string trace) : dir_(std::move(dir)), trace_(std::move(trace)) {
  File(kKindCpuOp);  // fail early if the directory cannot take temporary files
}

ArgSpill::~ArgSpill() {
  for (FILE* f : files_) {
    if (f) std::fclose(f);
  }
}

FILE* ArgSpill::File(int file) {
  if (files_[file]) return files_[file];
  // A temporary file next to the database: never visible, gone when closed.
  int fd = btree::OpenScratch(dir_, "spill", dir_);
  FILE* f = fdopen(fd, "w+b");
  if (!f) {
    close(fd);
    Errorf("{}: cannot open a temporary file: {}", dir_, std::strerror(errno));
  }
  setvbuf(f, nullptr, _IOFBF, 256 << 10);  // one buffer per kind
  files_[file] = f;
  return f;
}

uint64_t ArgSpill::Append(int file, std::string_view text) {
  FILE* f = File(file);
  uint64_t off = sizes_[file];
  if (fwrite_unlocked(text.data(), 1, text.size(), f) != text.size()) {
    Errorf("{}: cannot write temporary data: {}", trace_, std::strerror(errno));
  }
  sizes_[file] += text.size();
  return off;
}

void ArgSpill::Flush() {
  for (FILE* f : files_) {
    if (f && std::fflush(f) != 0) Errorf("{}: cannot write temporary data: {}", trace_, std::strerror(errno));
  }
}

}  // namespace tracesql
