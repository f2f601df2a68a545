#include "tokenizer/tokenizer_json.h"

#include <limits>
#include <optional>

namespace ninfer::tokenizer {
namespace {

using json = nlohmann::json;

}  // namespace

std::string escape_pointer_token(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

namespace {

// Builds the DOM like nlohmann's own DOM parser, except for /model/vocab and /model/merges.
class Handler final : public nlohmann::json_sax<json> {
 public:
  explicit Handler(TokenizerJson& out) : out_(out) {}

  std::optional<size_t> error_offset;
  std::string error_message;
  bool inconsistent = false;
  std::string inconsistent_pointer;

  bool null() override { return value(json(nullptr)); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override {
    if (top_is(Kind::Vocab)) return vocab_value(v);
    return value(json(v));
  }
  bool number_unsigned(number_unsigned_t v) override {
    if (top_is(Kind::Vocab)) {
      if (v > static_cast<number_unsigned_t>(std::numeric_limits<int64_t>::max())) return vocab_bad("vocabulary id out of range");
      return vocab_value(static_cast<int64_t>(v));
    }
    return value(json(v));
  }
  bool number_float(number_float_t v, const string_t&) override {
    if (top_is(Kind::Vocab)) return vocab_bad("vocabulary ids must be integers");
    return value(json(v));
  }
  bool string(string_t& v) override {
    if (top_is(Kind::Vocab)) return vocab_bad("vocabulary ids must be integers");
    if (top_is(Kind::Merges)) {
      const size_t sp = v.find(' ');
      if (sp == std::string::npos || v.find(' ', sp + 1) != std::string::npos)
        return bad("/model/merges/" + std::to_string(out_.merges.size()), "a merge must be two tokens separated by one space");
      const size_t off = out_.merges_arena.size();
      out_.merges_arena.append(v, 0, sp);
      out_.merges_arena.append(v, sp + 1, std::string::npos);
      out_.merges.push_back({u32(off), u32(sp), u32(v.size() - sp - 1)});
      return true;
    }
    if (top_is(Kind::MergePair)) {
      Frame& f = frames_.back();
      if (f.count == 0) {
        pair_offset_ = out_.merges_arena.size();
        pair_left_ = v.size();
      }
      if (f.count < 2) out_.merges_arena.append(v);
      ++f.count;
      return true;
    }
    return value(json(std::move(v)));
  }
  bool binary(binary_t&) override { return bad("", "binary values are not JSON"); }

  bool start_object(std::size_t) override {
    if (at_model_member("vocab") && !out_.vocab_streamed) {
      out_.vocab_streamed = true;
      frames_.push_back({Kind::Vocab, nullptr, {}, 0});
      return true;
    }
    if (top_is(Kind::Vocab) || top_is(Kind::Merges) || top_is(Kind::MergePair)) return special_bad();
    json* child = open(json::object());
    frames_.push_back({Kind::Object, child, {}, 0});
    return true;
  }
  bool key(string_t& k) override {
    if (top_is(Kind::Vocab)) {
      vocab_key_offset_ = out_.vocab_arena.size();
      out_.vocab_arena.append(k);
      return true;
    }
    frames_.back().key = std::move(k);
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    if (at_model_member("merges") && !out_.merges_streamed) {
      out_.merges_streamed = true;
      frames_.push_back({Kind::Merges, nullptr, {}, 0});
      return true;
    }
    if (top_is(Kind::Merges)) {
      frames_.push_back({Kind::MergePair, nullptr, {}, 0});
      return true;
    }
    if (top_is(Kind::Vocab) || top_is(Kind::MergePair)) return special_bad();
    json* child = open(json::array());
    frames_.push_back({Kind::Array, child, {}, 0});
    return true;
  }
  bool end_array() override {
    if (top_is(Kind::MergePair)) {
      if (frames_.back().count != 2)
        return bad("/model/merges/" + std::to_string(out_.merges.size()), "a merge pair must hold exactly two strings");
      out_.merges.push_back({u32(pair_offset_), u32(pair_left_), u32(out_.merges_arena.size() - pair_offset_ - pair_left_)});
    }
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& ex) override {
    error_offset = position;
    error_message = ex.what();
    return false;
  }

 private:
  // Arena offsets and lengths fit: the whole file is smaller than 4 GiB (checked up front).
  static uint32_t u32(size_t v) { return static_cast<uint32_t>(v); }

  enum class Kind { Object, Array, Vocab, Merges, MergePair };
  struct Frame {
    Kind kind;
    json* node;
    std::string key;  // pending key (objects) / vocabulary key
    size_t count;
  };

  bool top_is(Kind k) const { return !frames_.empty() && frames_.back().kind == k; }

  bool at_model_member(const char* name) const {
    return frames_.size() == 2 && frames_[0].kind == Kind::Object && frames_[0].key == "model" &&
           frames_[1].kind == Kind::Object && frames_[1].key == name;
  }

  // Places a new container in the current parent and returns a pointer to it.
  json* open(json&& v) {
    if (frames_.empty()) {
      out_.root = std::move(v);
      return &out_.root;
    }
    Frame& f = frames_.back();
    if (f.kind == Kind::Array) {
      f.node->push_back(std::move(v));
      return &f.node->back();
    }
    json& slot = (*f.node)[f.key];
    slot = std::move(v);
    return &slot;
  }

  bool value(json&& v) {
    if (top_is(Kind::Vocab) || top_is(Kind::Merges) || top_is(Kind::MergePair)) return special_bad();
    open(std::move(v));
    return true;
  }

  bool vocab_value(int64_t id) {
    out_.vocab.push_back({u32(vocab_key_offset_), u32(out_.vocab_arena.size() - vocab_key_offset_), id});
    return true;
  }
  bool vocab_bad(const std::string& message) {
    return bad("/model/vocab/" + escape_pointer_token(out_.vocab_arena.substr(vocab_key_offset_)), message);
  }
  bool special_bad() {
    if (top_is(Kind::Vocab)) return vocab_bad("vocabulary ids must be integers");
    return bad("/model/merges/" + std::to_string(out_.merges.size()),
               "merges must be \"a b\" strings or [\"a\", \"b\"] pairs");
  }
  bool bad(const std::string& pointer, const std::string& message) {
    inconsistent = true;
    inconsistent_pointer = pointer;
    error_message = message;
    return false;
  }

  TokenizerJson& out_;
  std::vector<Frame> frames_;
  size_t vocab_key_offset_ = 0;
  size_t pair_offset_ = 0, pair_left_ = 0;
};

std::string type_name(const json& v) { return v.type_name(); }

}  // namespace

std::string json_location(const std::string& path, const std::string& pointer) { return path + "#" + pointer; }

void fail(TokenizerErrorKind kind, const std::string& path, const std::string& pointer, const std::string& message) {
  std::string full = message;
  if (!pointer.empty()) full += " (at " + pointer + ")";
  throw TokenizerError(kind, full, json_location(path, pointer));
}

TokenizerJson parse_tokenizer_json(std::string_view text, const std::string& path) {
  if (text.size() >= std::numeric_limits<uint32_t>::max())
    throw TokenizerError(TokenizerErrorKind::Unsupported, "tokenizer file of 4 GiB or more", path);
  TokenizerJson out;
  // Rough pre-sizing: the two tables are most of a tokenizer.json.
  // Rough pre-sizing (untouched capacity costs no page faults): the two tables are most of a
  // tokenizer.json.
  out.vocab_arena.reserve(text.size() / 4);
  out.merges_arena.reserve(text.size() / 4);
  out.vocab.reserve(text.size() / 32);
  out.merges.reserve(text.size() / 32);
  Handler h(out);
  bool ok = false;
  try {
    ok = json::sax_parse(text.begin(), text.end(), &h);
  } catch (const std::exception& e) {
    throw TokenizerError(TokenizerErrorKind::BadJson, std::string("invalid JSON: ") + e.what(), path);
  }
  if (!ok) {
    if (h.inconsistent) fail(TokenizerErrorKind::Inconsistent, path, h.inconsistent_pointer, h.error_message);
    const size_t off = h.error_offset.value_or(text.size());
    throw TokenizerError(TokenizerErrorKind::BadJson, "invalid JSON at byte " + std::to_string(off) + ": " + h.error_message,
                         path + ":" + std::to_string(off));
  }
  return out;
}

JsonSite JsonSite::child(const std::string& key) const {
  const std::string p = pointer + "/" + escape_pointer_token(key);
  if (!value.is_object()) tokenizer::fail(TokenizerErrorKind::Inconsistent, path, pointer, "expected an object, found " + type_name(value));
  auto it = value.find(key);
  if (it == value.end()) tokenizer::fail(TokenizerErrorKind::Inconsistent, path, p, "missing member \"" + key + "\"");
  return JsonSite{path, p, *it};
}

JsonSite JsonSite::at(size_t index) const {
  return JsonSite{path, pointer + "/" + std::to_string(index), value.at(index)};
}

bool JsonSite::has(const std::string& key) const {
  if (!value.is_object()) return false;
  auto it = value.find(key);
  return it != value.end() && !it->is_null();
}

void JsonSite::fail(TokenizerErrorKind kind, const std::string& message) const {
  tokenizer::fail(kind, path, pointer, message);
}

const json& JsonSite::require_object() const {
  if (!value.is_object()) fail(TokenizerErrorKind::Inconsistent, "expected an object, found " + type_name(value));
  return value;
}

const json& JsonSite::require_array() const {
  if (!value.is_array()) fail(TokenizerErrorKind::Inconsistent, "expected an array, found " + type_name(value));
  return value;
}

const std::string& JsonSite::require_string() const {
  if (!value.is_string()) fail(TokenizerErrorKind::Inconsistent, "expected a string, found " + type_name(value));
  return value.get_ref<const std::string&>();
}

std::string JsonSite::string_or(const std::string& key, const std::string& fallback) const {
  if (!has(key)) return fallback;
  return child(key).require_string();
}

bool JsonSite::bool_or(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const JsonSite c = child(key);
  if (!c.value.is_boolean()) c.fail(TokenizerErrorKind::Inconsistent, "expected a boolean, found " + type_name(c.value));
  return c.value.get<bool>();
}

const std::string& JsonSite::type() const {
  require_object();
  if (!has("type")) fail(TokenizerErrorKind::Inconsistent, "missing \"type\"");
  return child("type").require_string();
}

std::optional<std::string> config_token(const nlohmann::json& config, const char* key) {
  auto it = config.find(key);
  if (it == config.end()) return std::nullopt;
  if (it->is_string()) return it->get<std::string>();
  if (it->is_object()) {
    auto c = it->find("content");
    if (c != it->end() && c->is_string()) return c->get<std::string>();
  }
  return std::nullopt;
}

}  // namespace ninfer::tokenizer
