#include "models/qwen3/frontend/tool_contract.h"

#include <algorithm>

#include "ninfer/constraint_error.h"
#include "text/json_formats.h"

namespace ninfer::qwen3 {
namespace {

constexpr int kMaxRefDepth = 32;

enum TypeMask : uint32_t {
  kNull = 1, kBool = 2, kNumber = 4, kString = 8, kArray = 16, kObject = 32, kAll = 63,
};

ConstraintError unsupported(const std::string& pointer, const std::string& keyword, const std::string& message) {
  ConstraintError e(ConstraintErrorKind::UnsupportedSchema, message);
  e.at_pointer(pointer).with_keyword(keyword);
  return e;
}

uint32_t type_bit(const std::string& t) {
  if (t == "null") return kNull;
  if (t == "boolean") return kBool;
  if (t == "integer" || t == "number") return kNumber;
  if (t == "string") return kString;
  if (t == "array") return kArray;
  if (t == "object") return kObject;
  return 0;
}

uint32_t value_type(const OJson& v) {
  if (v.is_null()) return kNull;
  if (v.is_boolean()) return kBool;
  if (v.is_number()) return kNumber;
  if (v.is_string()) return kString;
  if (v.is_array()) return kArray;
  return kObject;
}

// A local "$ref" of `root` ("#", "#/a/b"), or nullptr.
const OJson* resolve_ref(const OJson& root, const OJson& ref) {
  if (!ref.is_string()) return nullptr;
  const std::string& s = ref.get_ref<const std::string&>();
  if (s.empty() || s[0] != '#') return nullptr;
  try {
    const OJson::json_pointer p(s.substr(1));
    return root.contains(p) ? &root.at(p) : nullptr;
  } catch (const std::exception&) {
    return nullptr;
  }
}

// The types a `type` keyword names (a string or an array of strings).
uint32_t type_keyword_bits(const OJson& type) {
  uint32_t t = 0;
  if (type.is_string()) t = type_bit(type.get<std::string>());
  else if (type.is_array())
    for (const auto& x : type)
      if (x.is_string()) t |= type_bit(x.get<std::string>());
  return t;
}

// The JSON types a schema may admit, from type / enum / const / anyOf / oneOf / allOf / $ref
// (an over-approximation: other keywords only narrow further).
uint32_t admitted_types(const OJson& s, const OJson& root, int depth) {
  if (s.is_boolean()) return s.get<bool>() ? uint32_t{kAll} : 0u;
  if (!s.is_object() || depth > kMaxRefDepth) return kAll;
  uint32_t mask = kAll;
  if (auto it = s.find("$ref"); it != s.end()) {
    const OJson* target = resolve_ref(root, *it);
    if (target) mask &= admitted_types(*target, root, depth + 1);
  }
  if (auto it = s.find("type"); it != s.end()) mask &= type_keyword_bits(*it);
  if (auto it = s.find("enum"); it != s.end() && it->is_array()) {
    uint32_t t = 0;
    for (const auto& v : *it) t |= value_type(v);
    mask &= t;
  }
  if (auto it = s.find("const"); it != s.end()) mask &= value_type(*it);
  for (const char* k : {"anyOf", "oneOf"}) {
    if (auto it = s.find(k); it != s.end() && it->is_array()) {
      uint32_t t = 0;
      for (const auto& b : *it) t |= admitted_types(b, root, depth + 1);
      mask &= t;
    }
  }
  if (auto it = s.find("allOf"); it != s.end() && it->is_array())
    for (const auto& b : *it) mask &= admitted_types(b, root, depth + 1);
  return mask;
}

// Whether the schema surely admits `v` (type / enum / const / anyOf / oneOf / allOf / $ref);
// schemas with other assertions about such a value ("not", "if") answer false.
bool surely_admits(const OJson& s, const OJson& v, const OJson& root, int depth) {
  if (s.is_boolean()) return s.get<bool>();
  if (!s.is_object() || depth > kMaxRefDepth) return false;
  if (s.contains("not") || s.contains("if")) return false;
  if (auto it = s.find("$ref"); it != s.end()) {
    const OJson* target = resolve_ref(root, *it);
    if (!target || !surely_admits(*target, v, root, depth + 1)) return false;
  }
  if (auto it = s.find("type"); it != s.end() && !(type_keyword_bits(*it) & value_type(v))) return false;
  if (auto it = s.find("enum"); it != s.end()) {
    if (!it->is_array() || std::find(it->begin(), it->end(), v) == it->end()) return false;
  }
  if (auto it = s.find("const"); it != s.end() && *it != v) return false;
  if (auto it = s.find("anyOf"); it != s.end() && it->is_array()) {
    if (std::none_of(it->begin(), it->end(), [&](const OJson& b) { return surely_admits(b, v, root, depth + 1); }))
      return false;
  }
  if (auto it = s.find("oneOf"); it != s.end() && it->is_array()) {
    // Exactly one branch: only decidable here when every branch is decided surely.
    size_t yes = 0;
    for (const auto& b : *it) yes += surely_admits(b, v, root, depth + 1);
    if (yes != 1) return false;
  }
  if (auto it = s.find("allOf"); it != s.end() && it->is_array()) {
    if (!std::all_of(it->begin(), it->end(), [&](const OJson& b) { return surely_admits(b, v, root, depth + 1); }))
      return false;
  }
  return true;
}

// Every "$ref" inside `s` must point into $defs / definitions (what the property's own document
// carries along); returns the pointer (relative to `s`) of the first one that does not.
std::optional<std::string> foreign_ref(const OJson& s, const std::string& at, int depth) {
  if (depth > 256) return std::nullopt;
  if (s.is_object()) {
    for (auto it = s.begin(); it != s.end(); ++it) {
      if (it.key() == "$ref" && it->is_string()) {
        const std::string& r = it->get_ref<const std::string&>();
        if (r.rfind("#/$defs/", 0) != 0 && r.rfind("#/definitions/", 0) != 0) return at + "/$ref";
      }
      if (it->is_structured())
        if (auto f = foreign_ref(*it, at + "/" + pointer_token(it.key()), depth + 1)) return f;
    }
  } else if (s.is_array()) {
    for (size_t i = 0; i < s.size(); ++i)
      if (auto f = foreign_ref(s[i], at + "/" + std::to_string(i), depth + 1)) return f;
  }
  return std::nullopt;
}

// Root keywords that assert nothing about the top-level object (or are handled here).
bool root_keyword_allowed(const std::string& k) {
  static const char* ok[] = {"type", "properties", "required", "additionalProperties", "$defs", "definitions", "$schema",
                             "$id", "$comment", "title", "description", "default", "examples", "deprecated",
                             "readOnly", "writeOnly", "$anchor"};
  return std::any_of(std::begin(ok), std::end(ok), [&](const char* x) { return k == x; });
}

void plan(ToolContract& c) {
  const OJson& root = c.parameters;
  c.xml_parameters.clear();
  c.xml_additional = false;
  if (c.definition && c.definition->parameters.empty()) return;  // no parameters declared: none may come
  if (!root.is_object()) throw unsupported("", "type", "the XML tool-call format needs an object schema for the parameters");
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (!root_keyword_allowed(it.key()))
      throw unsupported("/" + pointer_token(it.key()), it.key(),
                        "the XML tool-call format writes top-level parameters one by one; '" + it.key() +
                            "' on the parameters object cannot be enforced");
  }
  if (auto t = root.find("type"); t != root.end() && !(t->is_string() && t->get<std::string>() == "object"))
    throw unsupported("/type", "type", "the parameters of an XML tool call must be an object");
  if (auto a = root.find("additionalProperties"); a == root.end()) {
    c.xml_additional = true;
  } else if (a->is_boolean()) {
    c.xml_additional = a->get<bool>();
  } else if (a->is_object() && a->empty()) {
    c.xml_additional = true;
  } else {
    throw unsupported("/additionalProperties", "additionalProperties",
                      "the XML tool-call format writes undeclared parameters as raw text: additionalProperties must be "
                      "true or false");
  }
  std::vector<std::string> required;
  if (auto r = root.find("required"); r != root.end()) {
    if (!r->is_array()) throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "required must be an array").at_pointer("/required");
    for (const auto& x : *r)
      if (x.is_string()) required.push_back(x.get<std::string>());
  }
  const OJson empty = OJson::object();
  const OJson* props = &empty;
  if (auto p = root.find("properties"); p != root.end()) {
    if (!p->is_object())
      throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "properties must be an object").at_pointer("/properties");
    props = &*p;
  }
  for (const auto& name : required)
    if (!props->contains(name))
      throw unsupported("/required", "required",
                        "required parameter '" + name + "' is not declared in properties (the XML format cannot type it)");
  for (auto it = props->begin(); it != props->end(); ++it) {
    XmlParameter p;
    p.name = it.key();
    p.pointer = "/properties/" + pointer_token(p.name);
    if (p.name.empty() || p.name.find('>') != std::string::npos || p.name.find('\n') != std::string::npos)
      throw unsupported(p.pointer, "properties", "an XML parameter name cannot be empty or hold '>' or a newline");
    p.required = std::find(required.begin(), required.end(), p.name) != required.end();
    if (auto f = foreign_ref(*it, p.pointer, 0))
      throw unsupported(*f, "$ref", "inside an XML parameter, $ref may only point into $defs or definitions");
    // The property as a document of its own.
    if (it->is_object()) {
      p.schema = *it;
      for (const char* k : {"$defs", "definitions", "$schema"})
        if (auto d = root.find(k); d != root.end() && !p.schema.contains(k)) p.schema[k] = *d;
    } else {
      p.schema = *it;
    }
    const uint32_t types = admitted_types(p.schema, p.schema, 0);
    if (types & kString) {
      if ((types & ~kString) == 0) p.kind = XmlValueKind::RawString;
      else if ((types & ~kString) == kNull) p.kind = XmlValueKind::RawStringOrNull;
      else
        throw unsupported(p.pointer, "type",
                          "parameter '" + p.name +
                              "' admits strings and other types: in the XML format its raw text would be ambiguous");
    } else {
      p.kind = XmlValueKind::Json;
      p.python_true = surely_admits(p.schema, OJson(true), p.schema, 0);
      p.python_false = surely_admits(p.schema, OJson(false), p.schema, 0);
      p.python_none = surely_admits(p.schema, OJson(nullptr), p.schema, 0);
    }
    c.xml_parameters.push_back(std::move(p));
  }
}

text::CharAutomaton string_language(const OJson& s, const OJson& root, const std::string& at, int depth) {
  using text::CharAutomaton;
  if (s.is_boolean()) return s.get<bool>() ? CharAutomaton::any_string() : CharAutomaton();
  if (!s.is_object()) throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "a schema must be an object or a boolean").at_pointer(at);
  if (depth > kMaxRefDepth) throw limit_exceeded("schema.max_depth", kMaxRefDepth, "$ref nesting").at_pointer(at);
  CharAutomaton lang = CharAutomaton::any_string();
  auto narrow = [&](const CharAutomaton& other) { lang = lang.intersect(other); };
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string& k = it.key();
    const std::string here = at + "/" + pointer_token(k);
    if (k == "$ref") {
      const OJson* target = resolve_ref(root, *it);
      if (!target) throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "unresolvable $ref").at_pointer(here);
      narrow(string_language(*target, root, it->get<std::string>().substr(1), depth + 1));
    } else if (k == "type") {
      if (!(admitted_types(OJson{{"type", *it}}, root, 0) & kString)) return CharAutomaton();
    } else if (k == "enum" || k == "const") {
      CharAutomaton set;
      const OJson values = k == "const" ? OJson::array({*it}) : *it;
      if (!values.is_array()) throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "enum must be an array").at_pointer(here);
      for (const auto& v : values)
        if (v.is_string()) set = set.unite(CharAutomaton::literal(text::utf8_to_u32(v.get<std::string>())));
      narrow(set);
    } else if (k == "minLength" || k == "maxLength") {
      if (!it->is_number_unsigned() && !(it->is_number_integer() && it->get<int64_t>() >= 0))
        throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, k + " must be a non-negative integer").at_pointer(here);
      const uint64_t n = it->get<uint64_t>();
      const uint32_t bound = n > 0xFFFFFFFEull ? 0xFFFFFFFEu : static_cast<uint32_t>(n);
      narrow(k == "minLength" ? CharAutomaton::length_between(bound, UINT32_MAX)
                              : CharAutomaton::length_between(0, bound));
    } else if (k == "pattern") {
      if (!it->is_string()) throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, "pattern must be a string").at_pointer(here);
      try {
        narrow(CharAutomaton::from_regex(it->get<std::string>(), text::RegexMode::Search));
      } catch (ConstraintError& e) {
        throw e.at_pointer(here);
      }
    } else if (k == "format") {
      if (!it->is_string()) continue;
      const std::string f = it->get<std::string>();
      if (text::integer_format_range(f) || text::format_is_annotation(f)) continue;
      auto re = text::string_format_regex(f);
      if (!re) throw unsupported(here, "format", "format '" + f + "' is not supported");
      narrow(CharAutomaton::from_regex(*re, text::RegexMode::FullMatch));
    } else if (k == "anyOf") {
      CharAutomaton u;
      for (size_t i = 0; i < it->size(); ++i)
        u = u.unite(string_language((*it)[i], root, here + "/" + std::to_string(i), depth + 1));
      narrow(u);
    } else if (k == "allOf") {
      for (size_t i = 0; i < it->size(); ++i) narrow(string_language((*it)[i], root, here + "/" + std::to_string(i), depth + 1));
    } else if (k == "not") {
      narrow(string_language(*it, root, here, depth + 1).complement());
    } else if (k == "oneOf" || k == "if" || k == "then" || k == "else" || k == "contentEncoding" ||
               k == "contentMediaType" || k == "contentSchema" || k == "dependentSchemas") {
      throw unsupported(here, k, "'" + k + "' on a raw string parameter of the XML format is not supported");
    }
    // Everything else asserts nothing on strings (number, array, object keywords) or is an annotation.
  }
  return lang;
}

}  // namespace

std::string pointer_token(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '~') out += "~0";
    else if (c == '/') out += "~1";
    else out += c;
  }
  return out;
}

ToolContract read_tool_contract(const ToolDefinition& tool, int index) {
  ToolContract c;
  c.index = index;
  c.definition = &tool;
  if (tool.parameters.empty()) return c;
  try {
    c.parameters = OJson::parse(tool.parameters);
  } catch (const std::exception& e) {
    throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, std::string("tool parameters are not JSON: ") + e.what())
        .at_pointer("")
        .in_tool(index);
  }
  return c;
}

void plan_xml_parameters(ToolContract& contract) {
  try {
    plan(contract);
  } catch (ConstraintError& e) {
    throw e.in_tool(contract.index);
  }
}

bool try_plan_xml_parameters(ToolContract& contract) {
  try {
    plan(contract);
    return true;
  } catch (const std::exception&) {
    contract.xml_parameters.clear();
    contract.xml_additional = false;
    return false;
  }
}

text::CharAutomaton xml_string_language(const XmlParameter& parameter) {
  return string_language(parameter.schema, parameter.schema, parameter.pointer, 0);
}

}  // namespace ninfer::qwen3
