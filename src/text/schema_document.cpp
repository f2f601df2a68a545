#include "text/schema_document.h"

#include "ninfer/constraint_error.h"

namespace ninfer::text {

namespace {

// Byte offset where the JSON text first nests deeper than `max_depth`, or npos.
size_t too_deep_at(std::string_view text, uint32_t max_depth) {
  uint32_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth) return i;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

SchemaDocument::SchemaDocument(std::string_view text, uint32_t max_depth) {
  if (const size_t at = too_deep_at(text, max_depth); at != std::string_view::npos)
    throw limit_exceeded("schema.max_document_depth", max_depth, "schema text nesting at byte " + std::to_string(at))
        .at_pointer("")
        .at_offset(static_cast<int64_t>(at));
  try {
    root_ = Json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema,
                          "schema is not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what())
        .at_pointer("")
        .at_offset(static_cast<int64_t>(e.byte));
  } catch (const nlohmann::json::exception& e) {
    // Valid JSON syntax the parser cannot hold, such as a number beyond binary64 (1e400).
    throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, std::string("schema cannot be read: ") + e.what())
        .at_pointer("");
  }
  if (!root_.is_object() && !root_.is_boolean())
    throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "a schema must be an object or a boolean").at_pointer("");
  if (root_.is_object()) {
    auto it = root_.find("$schema");
    if (it != root_.end() && it->is_string()) {
      const std::string& s = it->get_ref<const std::string&>();
      if (s.find("draft-04") != std::string::npos || s.find("draft-06") != std::string::npos ||
          s.find("draft-07") != std::string::npos || s.find("draft/2019-09") != std::string::npos)
        draft_ = SchemaDraft::Draft07;
    }
  }
}

std::string SchemaDocument::escape_token(const std::string& token) {
  std::string out;
  for (char c : token) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out.push_back(c);
  }
  return out;
}

namespace {

std::string percent_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out.push_back(static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

}  // namespace

SchemaNode SchemaDocument::resolve_ref(const std::string& ref, const std::string& at) const {
  const std::string where = at + "/$ref";
  if (ref.empty() || ref[0] != '#') {
    // Refs to the document itself by its own $id are local too.
    std::string id;
    if (root_.is_object()) {
      auto it = root_.find("$id");
      if (it == root_.end()) it = root_.find("id");
      if (it != root_.end() && it->is_string()) id = it->get<std::string>();
    }
    const size_t hash = ref.find('#');
    const std::string base = ref.substr(0, hash);
    if (id.empty() || (base != id && base + "#" != id && base != id.substr(0, id.find('#'))))
      throw ConstraintError(ConstraintErrorKind::UnsupportedSchema, "remote $ref '" + ref + "' is not supported")
          .at_pointer(where)
          .with_keyword("$ref");
    return resolve_ref(hash == std::string::npos ? "#" : ref.substr(hash), at);
  }
  std::string frag = percent_decode(ref.substr(1));
  if (!frag.empty() && frag[0] != '/')
    throw ConstraintError(ConstraintErrorKind::UnsupportedSchema, "anchor $ref '" + ref + "' is not supported")
        .at_pointer(where)
        .with_keyword("$ref");
  const Json* cur = &root_;
  std::string pointer;
  size_t pos = 0;
  while (pos < frag.size()) {
    size_t next = frag.find('/', pos + 1);
    std::string raw = frag.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    std::string token;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        token.push_back(raw[i + 1] == '0' ? '~' : '/');
        ++i;
      } else {
        token.push_back(raw[i]);
      }
    }
    if (cur->is_object()) {
      auto it = cur->find(token);
      if (it == cur->end()) cur = nullptr;
      else cur = &*it;
    } else if (cur->is_array()) {
      size_t idx = 0;
      bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
      if (numeric) idx = std::stoul(token);
      cur = numeric && idx < cur->size() ? &(*cur)[idx] : nullptr;
    } else {
      cur = nullptr;
    }
    if (!cur)
      throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "$ref '" + ref + "' points to nothing")
          .at_pointer(where);
    pointer += "/" + escape_token(token);
    if (next == std::string::npos) break;
    pos = next;
  }
  return {cur, pointer};
}

}  // namespace ninfer::text
