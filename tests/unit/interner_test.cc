// StringIdMap / Interner / StackInterner (src/import/trace.h): the open-addressing maps behind
// the interners must give every distinct key its own id, the same id again for an equal key, and
// keep doing so as they grow.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "import/trace.h"

using namespace tracesql;

TEST_CASE("interner: StringIdMap finds each key it was given, and no other", "[interner]") {
  std::vector<std::string> keys;
  // Every length up to 40 (the hash reads short keys, 4..8-byte keys and longer ones differently),
  // keys differing in one byte at each position, the empty key, and NUL bytes.
  keys.emplace_back();
  for (size_t len = 1; len <= 40; ++len) {
    std::string base(len, 'a');
    keys.push_back(base);
    for (size_t at = 0; at < len; ++at) {
      std::string k = base;
      k[at] = 'b';
      keys.push_back(k);
      k[at] = '\0';
      keys.push_back(k);
    }
  }
  std::mt19937 rng(7);
  for (int i = 0; i < 20000; ++i) {
    std::string k(rng() % 64, ' ');
    for (char& c : k) c = static_cast<char>('a' + rng() % 3);  // many near-duplicates
    keys.push_back(k);
  }
  for (const std::string& k : keys) {
    std::string copy = k;
    CHECK(StringIdMap::Hash(k) == StringIdMap::Hash(copy));  // of the bytes, not of where they are
  }
  StringIdMap ids;
  std::vector<std::string> stored;
  stored.reserve(keys.size());
  std::vector<uint32_t> id_of(keys.size(), 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    uint32_t found = ids.Find(keys[i]);
    if (found == 0) {
      stored.push_back(keys[i]);
      found = static_cast<uint32_t>(stored.size());
      ids.Insert(stored.back(), StringIdMap::Hash(stored.back()), found);
    }
    id_of[i] = found;
  }
  // Equal keys got the same id, different keys different ids.
  for (size_t i = 0; i < keys.size(); ++i) {
    REQUIRE(id_of[i] >= 1);
    CHECK(stored[id_of[i] - 1] == keys[i]);
    CHECK(ids.Find(keys[i]) == id_of[i]);
  }
  CHECK(ids.Find("not a key") == 0);
  // An empty view may have no data at all (nullptr): found as the empty key, never compared.
  CHECK(ids.Find(std::string_view()) == ids.Find(std::string()));
  CHECK(ids.Find(std::string_view()) != 0);
  Interner strings;
  uint32_t empty = strings.Intern(std::string_view());
  CHECK(strings.Intern(std::string_view()) == empty);
  CHECK(strings.Intern(std::string()) == empty);
}

TEST_CASE("interner: Interner and StackInterner ids are first-come, stable across growth", "[interner]") {
  Interner strings;
  std::vector<uint32_t> first;
  for (int i = 0; i < 5000; ++i) first.push_back(strings.Intern("name" + std::to_string(i)));
  for (int i = 0; i < 5000; ++i) {
    CHECK(strings.Intern("name" + std::to_string(i)) == first[i]);
    CHECK(strings.Get(first[i]) == "name" + std::to_string(i));
    CHECK(strings.Find("name" + std::to_string(i)) == first[i]);
  }
  for (int i = 1; i < 5000; ++i) CHECK(first[i] == first[i - 1] + 1);
  CHECK(strings.Find("absent") == 0);

  StackInterner stacks;
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < 3000; ++i) ids.push_back(stacks.Intern(i / 3, i % 7, i % 5, static_cast<int>(i % 11)));
  for (uint32_t i = 0; i < 3000; ++i) CHECK(stacks.Intern(i / 3, i % 7, i % 5, 0) == ids[i]);
  // (parent, name, cat) decides; distinct triples get distinct ids, in first-seen order.
  CHECK(stacks.nodes().size() == 3000);
  for (uint32_t i = 0; i < 3000; ++i) CHECK(ids[i] == i + 1);
}
