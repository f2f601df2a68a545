// Helpers for the JSON Schema tests: a byte-level token domain, schema compilation, acceptance
// of a text by a matcher, serialisation in the generation language (compact separators,
// json.dumps(ensure_ascii=False) escapes) and the reordering of an instance's object keys into
// the schema's declared property order.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"
#include "ninfer/constraint_error.h"
#include "ninfer/output_constraint.h"
#include "text/constraint_compiler.h"
#include "text/json_text.h"

namespace ninfer::text::testing {

using OJson = nlohmann::ordered_json;

// One token per byte value 0..255 (ids 1..256) and an EOS control token (id 0).
inline std::shared_ptr<const grammar::TokenDomain> byte_domain() {
  static const std::shared_ptr<const grammar::TokenDomain> domain = [] {
    std::vector<std::string> bytes{"<eos>"};
    std::vector<grammar::TokenClass> classes{grammar::TokenClass::Control};
    for (int b = 0; b < 256; ++b) {
      bytes.emplace_back(1, static_cast<char>(b));
      classes.push_back(grammar::TokenClass::Normal);
    }
    return std::make_shared<const grammar::TokenDomain>(std::move(bytes), std::move(classes), std::vector<int32_t>{0});
  }();
  return domain;
}

inline JsonFormatOptions compact() { return {}; }
inline JsonFormatOptions flexible(uint32_t max_run = 8) { return {JsonWhitespace::Flexible, max_run}; }

// Compiles a JSON Schema against the byte domain; throws ConstraintError.
inline std::shared_ptr<const grammar::CompiledGrammar> compile_schema(const std::string& schema,
                                                                      const JsonFormatOptions& fmt = {}) {
  return compile_constraint(OutputConstraint::json_schema(schema, fmt), byte_domain()).grammar;
}

// The error a schema raises, or nullopt when it compiles.
inline std::optional<ConstraintError> schema_error(const std::string& schema, const JsonFormatOptions& fmt = {}) {
  try {
    compile_schema(schema, fmt);
  } catch (const ConstraintError& e) {
    return e;
  }
  return std::nullopt;
}

// The matcher accepts `text` byte by byte and may then end.
inline bool accepts(const std::shared_ptr<const grammar::CompiledGrammar>& g, std::string_view text) {
  grammar::Matcher m(g);
  for (char c : text)
    if (!m.accept_bytes(std::string_view(&c, 1))) return false;
  return m.can_end();
}

// Compact JSON with the canonical escapes of json.dumps(ensure_ascii=False); object keys in the
// order the value holds them.
inline std::string generation_text(const OJson& value) { return dump_json(value, JsonStyle{}); }

// Reorders every object of an instance like the generation language emits it: the names the
// schema declares (`properties` of every sub-schema that applies, in the order the compiler
// meets them: a schema before its `$ref`/`allOf` targets, depth first, then the alternatives of
// `anyOf`/`oneOf`), then names only `required` mentions, then every other key in its original
// order. The sub-schemas that apply to a value are found through `$ref` (local pointers, `#`,
// the root's own `$id`), `allOf`, `anyOf`, `oneOf`, `properties`, `patternProperties`,
// `additionalProperties`, `prefixItems`, `items` and draft-07 `additionalItems`.
class DeclaredOrder {
 public:
  explicit DeclaredOrder(const OJson& root) : root_(root) {
    if (root.is_object()) {
      if (auto it = root.find("$id"); it != root.end() && it->is_string())
        id_ = it->get<std::string>();
      else if (auto it2 = root.find("id"); it2 != root.end() && it2->is_string())
        id_ = it2->get<std::string>();
      if (auto it = root.find("$schema"); it != root.end() && it->is_string()) {
        const std::string& s = it->get_ref<const std::string&>();
        for (const char* d : {"draft-04", "draft-06", "draft-07", "draft/2019-09"})
          if (s.find(d) != std::string::npos) draft07_ = true;
      }
    }
  }

  OJson apply(const OJson& instance) const { return reorder(instance, {&root_}, 0); }

 private:
  const OJson& root_;
  std::string id_;
  bool draft07_ = false;

  const OJson* resolve(const std::string& ref) const {
    std::string frag;
    if (!ref.empty() && ref[0] == '#') {
      frag = ref.substr(1);
    } else {
      const size_t hash = ref.find('#');
      const std::string base = ref.substr(0, hash);
      if (id_.empty() || (base != id_ && base + "#" != id_ && base != id_.substr(0, id_.find('#')))) return nullptr;
      frag = hash == std::string::npos ? "" : ref.substr(hash + 1);
    }
    std::string decoded;
    for (size_t i = 0; i < frag.size(); ++i) {
      if (frag[i] == '%' && i + 2 < frag.size() && std::isxdigit(static_cast<unsigned char>(frag[i + 1])) &&
          std::isxdigit(static_cast<unsigned char>(frag[i + 2]))) {
        decoded.push_back(static_cast<char>(std::stoi(frag.substr(i + 1, 2), nullptr, 16)));
        i += 2;
      } else {
        decoded.push_back(frag[i]);
      }
    }
    if (!decoded.empty() && decoded[0] != '/') return nullptr;
    try {
      return &root_.at(OJson::json_pointer(decoded));
    } catch (const std::exception&) {
      return nullptr;
    }
  }

  // The node and everything it applies in place, in the compiler's order.
  void closure(const OJson* node, std::vector<const OJson*>& out, std::set<const OJson*>& seen, int depth) const {
    if (!node || !node->is_object() || depth > 64 || !seen.insert(node).second) return;
    out.push_back(node);
    std::vector<const OJson*> alternatives;
    for (const auto& [key, v] : node->items()) {
      if (key == "$ref" && v.is_string()) {
        closure(resolve(v.get<std::string>()), out, seen, depth + 1);
      } else if (key == "allOf" && v.is_array()) {
        for (const auto& x : v) closure(&x, out, seen, depth + 1);
      } else if ((key == "anyOf" || key == "oneOf") && v.is_array()) {
        for (const auto& x : v) alternatives.push_back(&x);
      }
    }
    for (const OJson* a : alternatives) closure(a, out, seen, depth + 1);
  }

  static bool search(const std::string& pattern, const std::string& text) {
    try {
      return std::regex_search(text, std::regex(pattern, std::regex::ECMAScript));
    } catch (const std::exception&) {
      return false;
    }
  }

  OJson reorder(const OJson& value, const std::vector<const OJson*>& schemas, int depth) const {
    if (depth > 64 || !(value.is_object() || value.is_array())) return value;
    std::vector<const OJson*> nodes;
    std::set<const OJson*> seen;
    for (const OJson* s : schemas) closure(s, nodes, seen, 0);
    if (value.is_array()) {
      OJson out = OJson::array();
      for (size_t i = 0; i < value.size(); ++i) {
        std::vector<const OJson*> subs;
        for (const OJson* n : nodes) {
          const OJson* prefix = nullptr;
          const OJson* rest = nullptr;
          if (auto it = n->find("prefixItems"); it != n->end() && it->is_array() && !draft07_) prefix = &*it;
          if (auto it = n->find("items"); it != n->end()) {
            if (it->is_array())
              prefix = &*it;
            else
              rest = &*it;
          }
          if (prefix && prefix->is_array() && rest == nullptr && draft07_)
            if (auto it = n->find("additionalItems"); it != n->end()) rest = &*it;
          if (prefix && i < prefix->size())
            subs.push_back(&(*prefix)[i]);
          else if (rest)
            subs.push_back(rest);
        }
        out.push_back(reorder(value[i], subs, depth + 1));
      }
      return out;
    }
    std::vector<std::string> declared, required_only;
    std::set<std::string> known;
    for (const OJson* n : nodes)
      if (auto it = n->find("properties"); it != n->end() && it->is_object())
        for (const auto& [name, sub] : it->items())
          if (known.insert(name).second) declared.push_back(name);
    for (const OJson* n : nodes)
      if (auto it = n->find("required"); it != n->end() && it->is_array())
        for (const auto& r : *it)
          if (r.is_string() && known.insert(r.get<std::string>()).second) required_only.push_back(r.get<std::string>());
    declared.insert(declared.end(), required_only.begin(), required_only.end());
    auto value_schemas = [&](const std::string& key) {
      std::vector<const OJson*> subs;
      for (const OJson* n : nodes) {
        bool matched = false;
        if (auto it = n->find("properties"); it != n->end() && it->is_object())
          if (auto p = it->find(key); p != it->end()) subs.push_back(&*p), matched = true;
        if (auto it = n->find("patternProperties"); it != n->end() && it->is_object())
          for (const auto& [pat, sub] : it->items())
            if (search(pat, key)) subs.push_back(&sub), matched = true;
        if (!matched)
          if (auto it = n->find("additionalProperties"); it != n->end()) subs.push_back(&*it);
      }
      return subs;
    };
    OJson out = OJson::object();
    for (const auto& name : declared)
      if (auto it = value.find(name); it != value.end()) out[name] = reorder(*it, value_schemas(name), depth + 1);
    for (const auto& [key, v] : value.items())
      if (!known.count(key)) out[key] = reorder(v, value_schemas(key), depth + 1);
    return out;
  }
};

// The instance in the generation language with its keys in declared order.
inline std::string declared_text(const OJson& schema, const OJson& instance) {
  return generation_text(DeclaredOrder(schema).apply(instance));
}

}  // namespace ninfer::text::testing
