// Reading tokenizer.json: a SAX pass that streams the two big tables (/model/vocab, /model/merges)
// straight into vectors and builds an ordinary nlohmann DOM for everything else, plus typed-error
// helpers for walking that DOM.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "tokenizer/tokenizer.h"

namespace ninfer::tokenizer {

struct TokenizerJson {
  nlohmann::json root;  // the document without /model/vocab and /model/merges when those were streamed

  // /model/vocab, when it was an object of string -> integer. Keys live in vocab_arena.
  struct VocabEntry {
    uint32_t offset;  // files are limited to 4 GiB
    uint32_t length;
    int64_t id;
  };
  bool vocab_streamed = false;
  std::string vocab_arena;
  std::vector<VocabEntry> vocab;
  std::string_view vocab_key(const VocabEntry& e) const { return std::string_view(vocab_arena).substr(e.offset, e.length); }

  // /model/merges, when it was an array of "a b" strings or ["a", "b"] pairs. Each pair is stored
  // as the two strings back to back in merges_arena, so "ab" is a substring too.
  struct MergeEntry {
    uint32_t offset;
    uint32_t left_length;
    uint32_t right_length;
  };
  bool merges_streamed = false;
  std::string merges_arena;
  std::vector<MergeEntry> merges;
};

// Parses `text` (the contents of `path`). Throws TokenizerError: BadJson (location "path:OFFSET")
// for malformed JSON, Inconsistent for a vocabulary or merge list of the wrong shape, Unsupported
// for a file of 4 GiB or more.
TokenizerJson parse_tokenizer_json(std::string_view text, const std::string& path);

// A key escaped for use in a JSON pointer ("~" -> "~0", "/" -> "~1").
std::string escape_pointer_token(std::string_view key);

// "path#pointer".
std::string json_location(const std::string& path, const std::string& pointer);

[[noreturn]] void fail(TokenizerErrorKind kind, const std::string& path, const std::string& pointer,
                       const std::string& message);

// A position in the DOM, for typed errors.
struct JsonSite {
  const std::string& path;  // the file
  std::string pointer;      // JSON pointer of `value`
  const nlohmann::json& value;

  JsonSite child(const std::string& key) const;  // value[key]; missing -> Inconsistent
  JsonSite at(size_t index) const;               // value[index]
  bool has(const std::string& key) const;         // object with a non-null member `key`
  [[noreturn]] void fail(TokenizerErrorKind kind, const std::string& message) const;

  const nlohmann::json& require_object() const;
  const nlohmann::json& require_array() const;
  const std::string& require_string() const;
  // Optional members with defaults (null counts as absent); wrong types are Inconsistent.
  std::string string_or(const std::string& key, const std::string& fallback) const;
  bool bool_or(const std::string& key, bool fallback) const;
  // The "type" member, required.
  const std::string& type() const;
};

// tokenizer_config.json: "eos_token": "x" or {"content": "x", ...}; nullopt for null/absent.
std::optional<std::string> config_token(const nlohmann::json& config, const char* key);

}  // namespace ninfer::tokenizer
