// Open-addressing hash map from byte strings to token ids. Owns copies of its keys in one arena, so
// building it for a 150k-entry vocabulary costs no per-entry allocation (16 bytes per slot).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ninfer::tokenizer {

class StringIdMap {
 public:
  void reserve(size_t entries, size_t key_bytes);
  // Inserts; returns false (and changes nothing) if `key` is present. Throws std::length_error
  // past 4 GiB of keys.
  bool insert(std::string_view key, int32_t id);
  // Inserts or replaces.
  void assign(std::string_view key, int32_t id);
  std::optional<int32_t> find(std::string_view key) const;
  size_t size() const { return size_; }

 private:
  struct Slot {
    uint32_t hash = 0;
    uint32_t offset = 0;
    uint32_t length = 0;
    int32_t id = -1;  // -1: empty
  };
  static uint32_t hash_of(std::string_view key);
  size_t locate(std::string_view key, uint32_t hash) const;  // slot holding key, or the empty slot to use
  void rehash(size_t capacity);

  std::string arena_;
  std::vector<Slot> slots_;
  size_t size_ = 0;
};

}  // namespace ninfer::tokenizer
