#include "text/schema_shape.h"

#include <algorithm>
#include <cmath>
#include <unordered_map>
#include <unordered_set>

#include "ninfer/constraint_error.h"
#include "text/char_automaton.h"
#include "text/json_formats.h"
#include "text/schema_errors.h"

namespace ninfer::text {
namespace {

[[noreturn]] void unsupported(const std::string& keyword, const std::string& pointer, const std::string& why = "") {
  throw_unsupported(keyword, pointer, why);
}
[[noreturn]] void invalid(const std::string& pointer, const std::string& why) { throw_invalid_schema(pointer, why); }

std::string child(const std::string& pointer, const std::string& key) {
  return pointer + "/" + SchemaDocument::escape_token(key);
}

// Keywords that a draft defines and that assert nothing (the table is in schema_keywords.cpp).
bool is_annotation(const std::string& k) {
  const KeywordInfo* info = find_keyword(k);
  return info && info->kind == KeywordKind::Annotation;
}

bool asserts_nothing(const Json& j) {
  if (j.is_boolean()) return j.get<bool>();
  if (!j.is_object()) return false;
  for (const auto& [k, v] : j.items())
    if (is_assertion_keyword(k)) return false;
  return true;
}

// The `not` forms apply_not handles directly (one assertion whose negation is a shape field).
bool is_primitive_not(const Json& v) {
  if (v.is_boolean()) return true;
  if (!v.is_object()) return true;  // apply_not reports the invalid schema
  const std::string* only = nullptr;
  for (const auto& [k, x] : v.items()) {
    if (!is_assertion_keyword(k)) continue;
    if (only) return false;
    only = &k;
  }
  if (!only) return true;
  const Json& x = v[*only];
  if (*only == "type" || *only == "enum" || *only == "const") return true;
  if (*only == "pattern") return x.is_string();
  if (*only == "required") return x.is_array() && x.size() == 1 && x[0].is_string();
  return false;
}

Json object_of(std::initializer_list<std::pair<const char*, Json>> members) {
  Json o = Json::object();
  for (const auto& [k, v] : members) o[k] = v;
  return o;
}
Json not_of(Json x) { return object_of({{"not", std::move(x)}}); }
Json all_of(Json items) { return object_of({{"allOf", std::move(items)}}); }
Json any_of(Json items) { return object_of({{"anyOf", std::move(items)}}); }

bool contains_ref(const Json& j) {
  if (j.is_object()) {
    if (j.contains("$ref")) return true;
    for (const auto& [k, v] : j.items())
      if (contains_ref(v)) return true;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (contains_ref(v)) return true;
  }
  return false;
}

uint32_t type_mask(const std::string& t, const std::string& pointer) {
  if (t == "null") return kNull;
  if (t == "boolean") return kBool;
  if (t == "integer") return kInt;
  if (t == "number") return kInt | kFrac;
  if (t == "string") return kString;
  if (t == "array") return kArray;
  if (t == "object") return kObject;
  invalid(pointer, "unknown type '" + t + "'");
}

uint64_t non_negative(const Json& v, const std::string& pointer) {
  if (!v.is_number()) invalid(pointer, "expected a non-negative integer");
  double d = v.get<double>();
  if (d < 0 || std::floor(d) != d) invalid(pointer, "expected a non-negative integer");
  if (d > 1.8e19) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(d);
}

// A key that json_equal values share (numbers by binary64 value, containers by type and size).
std::string equality_bucket(const Json& v) {
  if (v.is_string()) return "s" + v.get<std::string>();
  if (v.is_number()) {
    double d = v.get<double>();
    if (d == 0) d = 0;  // -0 == 0
    std::string key = "n";
    key.append(reinterpret_cast<const char*>(&d), sizeof d);
    return key;
  }
  if (v.is_array() || v.is_object()) return (v.is_array() ? "a" : "o") + std::to_string(v.size());
  return v.dump();
}

bool json_equal(const Json& a, const Json& b) {
  if (a.is_number() && b.is_number()) {
    // Integers compare exactly (values above 2^53 collapse in double).
    if (a.is_number_integer() && b.is_number_integer()) {
      const bool au = a.is_number_unsigned(), bu = b.is_number_unsigned();
      if (au == bu) return au ? a.get<uint64_t>() == b.get<uint64_t>() : a.get<int64_t>() == b.get<int64_t>();
      const Json& u = au ? a : b;
      const Json& i = au ? b : a;
      return i.get<int64_t>() >= 0 && static_cast<uint64_t>(i.get<int64_t>()) == u.get<uint64_t>();
    }
    return a.get<double>() == b.get<double>();
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (const auto& [k, v] : a.items()) {
      auto it = b.find(k);
      if (it == b.end() || !json_equal(v, *it)) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!json_equal(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

CharAutomaton regex_or_unsupported(const std::string& pattern, RegexMode mode, const std::string& keyword,
                                   const std::string& pointer) {
  try {
    return CharAutomaton::from_regex(pattern, mode);
  } catch (const ConstraintError& e) {
    unsupported(keyword, pointer, e.what());
  }
}

// `not` with a single assertion whose negation stays in the shape vocabulary: true/{} (nothing
// passes), false (no effect), type (types removed), enum/const (values excluded).
void apply_not(const Json& v, const std::string& ptr, Shape& s, bool& unsat) {
  if (v.is_boolean()) {
    if (v.get<bool>()) unsat = true;
    return;
  }
  if (!v.is_object()) invalid(ptr, "not must be a schema");
  std::vector<std::string> assertions;
  for (const auto& [k, x] : v.items())
    if (is_assertion_keyword(k)) assertions.push_back(k);
  if (assertions.empty()) {
    unsat = true;
    return;
  }
  if (assertions.size() != 1)
    unsupported("not", ptr, "only the negation of one type, enum, const, pattern or single required keyword");
  const std::string& k = assertions[0];
  const Json& x = v[k];
  if (k == "type") {
    uint32_t m = 0;
    if (x.is_string()) m = type_mask(x.get<std::string>(), ptr + "/type");
    else if (x.is_array())
      for (const auto& t : x) m |= t.is_string() ? type_mask(t.get<std::string>(), ptr + "/type") : 0;
    else invalid(ptr + "/type", "type must be a string or an array");
    // "not integer" keeps non-integral numbers only.
    s.types &= ~m;
  } else if (k == "enum" || k == "const") {
    if (k == "enum" && !x.is_array()) invalid(ptr + "/enum", "enum must be an array");
    if (k == "const") s.excluded_values.push_back(x);
    else
      for (const auto& e : x) s.excluded_values.push_back(e);
    if (s.excluded_pointer.empty()) s.excluded_pointer = ptr;
  } else if (k == "pattern" && x.is_string()) {
    // Non-strings satisfy any pattern, so they fail the negation: strings that do not match.
    s.types &= kString;
    s.excluded_patterns.push_back({x.get<std::string>(), ptr + "/pattern"});
  } else if (k == "required" && x.is_array() && x.size() == 1 && x[0].is_string()) {
    // Non-objects satisfy `required`, so they fail the negation: objects without that name.
    s.types &= kObject;
    s.forbidden_properties.push_back(x[0].get<std::string>());
  } else {
    unsupported("not", ptr, "only the negation of one type, enum, const, pattern or single required keyword");
  }
}

// Inclusive integer bound implied by a numeric bound value. A lower bound above int64 (or an upper
// bound below it) sets out_of_range; an upper bound above int64 (a lower bound below it) is clamped
// to the int64 extreme: bounded integers stay within signed 64 bits, so no generated value can pass
// the schema's own bound (an unbounded digit string could: 9223372036854776001 > 9223372036854776000).
std::optional<int64_t> integer_bound(const Json& v, bool lower, bool exclusive, bool& out_of_range) {
  if (v.is_number_unsigned()) {
    const uint64_t u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(INT64_MAX)) {
      if (lower) {
        out_of_range = true;  // no int64 reaches it
        return std::nullopt;
      }
      return INT64_MAX;
    }
  }
  if (v.is_number_integer()) {
    const int64_t m = v.get<int64_t>();
    if (!exclusive) return m;
    if (lower) {
      if (m == INT64_MAX) { out_of_range = true; return std::nullopt; }
      return m + 1;
    }
    if (m == INT64_MIN) { out_of_range = true; return std::nullopt; }
    return m - 1;
  }
  const double d = v.get<double>();
  const double r = lower ? (exclusive ? std::floor(d) + 1 : std::ceil(d)) : (exclusive ? std::ceil(d) - 1 : std::floor(d));
  if (r >= 9223372036854775807.0) {  // 2^63 as a double: above every int64
    if (lower) {
      out_of_range = true;
      return std::nullopt;
    }
    return INT64_MAX;
  }
  if (r < -9223372036854775808.0) {
    if (!lower) {
      out_of_range = true;
      return std::nullopt;
    }
    return INT64_MIN;
  }
  return static_cast<int64_t>(r);
}

}  // namespace

uint32_t json_type_bit(const Json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null: return kNull;
    case nlohmann::json::value_t::boolean: return kBool;
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return kInt;
    case nlohmann::json::value_t::number_float: {
      double d = v.get<double>();
      return std::isfinite(d) && std::floor(d) == d ? kInt : kFrac;
    }
    case nlohmann::json::value_t::string: return kString;
    case nlohmann::json::value_t::array: return kArray;
    case nlohmann::json::value_t::object: return kObject;
    default: return 0;
  }
}

namespace {

// Clears the type bits whose assertions admit nothing, so contradictory alternatives (from
// distributing anyOf/oneOf and negations) are dropped before they multiply. Returns the pointer
// of the first conflict that emptied the shape ("" if it did not).
std::string prune_empty_types(Shape& s) {
  const uint32_t before = s.types;
  std::string conflict;
  auto drop = [&](uint32_t bits, const std::string& where) {
    if (s.types & bits && conflict.empty()) conflict = where.empty() ? s.pointer : where;
    s.types &= ~bits;
  };
  if (s.min_length > s.max_length) drop(kString, s.pointer);
  if (s.min_items > s.max_items) drop(kArray, s.pointer);
  if (s.min_properties > s.max_properties) drop(kObject, s.object_pointer);
  for (const auto& r : s.required)
    if (std::find(s.forbidden_properties.begin(), s.forbidden_properties.end(), r) != s.forbidden_properties.end()) {
      drop(kObject, s.object_pointer);
      break;
    }
  if (s.lower > s.upper) drop(kInt | kFrac, s.number_pointer);
  if (!(s.types & kFrac) && (s.int_out_of_range || (s.int_lower && s.int_upper && *s.int_lower > *s.int_upper)))
    drop(kInt, s.number_pointer);
  auto excluded = [&](const Json& v) {
    return std::any_of(s.excluded_values.begin(), s.excluded_values.end(), [&](const Json& e) { return json_equal(e, v); });
  };
  if (excluded(Json(nullptr))) drop(kNull, s.excluded_pointer);
  if (excluded(Json(true)) && excluded(Json(false))) drop(kBool, s.excluded_pointer);
  if (s.has_enum) {
    uint32_t t = 0;
    for (const auto& v : s.enum_values)
      if (!excluded(v)) t |= json_type_bit(v);
    drop(s.types & ~t, s.enum_pointer);
  }
  return before != 0 && s.types == 0 ? conflict : "";
}

}  // namespace

void ShapeReducer::apply_node(const SchemaNode& n, Shape& s, std::vector<SchemaNode>& queue, std::vector<Group>& groups,
                              const Skip& skip, bool& unsat) {
  const Json& j = *n.node;
  if (j.is_boolean()) {
    if (!j.get<bool>()) unsat = true;
    return;
  }
  if (!j.is_object()) invalid(n.pointer, "a schema must be an object or a boolean");
  if (s.pointer.empty()) s.pointer = n.pointer;
  const bool draft07 = doc_.draft() == SchemaDraft::Draft07;
  ObjectPart obj;
  obj.pointer = n.pointer;
  bool has_obj = false;
  ArrayPart arr;
  arr.pointer = n.pointer;
  bool has_arr = false;
  // draft-04 boolean exclusive bounds modify minimum/maximum.
  bool excl_min_bool = false, excl_max_bool = false;
  if (auto it = j.find("exclusiveMinimum"); it != j.end() && it->is_boolean()) excl_min_bool = it->get<bool>();
  if (auto it = j.find("exclusiveMaximum"); it != j.end() && it->is_boolean()) excl_max_bool = it->get<bool>();

  for (const auto& [key, v] : j.items()) {
    const std::string ptr = located(&v, child(n.pointer, key));
    if (key == "$ref") {
      if (!v.is_string()) invalid(ptr, "$ref must be a string");
      queue.push_back(doc_.resolve_ref(v.get<std::string>(), n.pointer));
    } else if (key == "$id" || key == "id") {
      if (key == "id" && !v.is_string()) continue;  // not an identifier: a vendor annotation (listed by the audit)
      if (!n.pointer.empty() && contains_ref(j)) unsupported(key, ptr, "nested base URI changes with $ref inside");
    } else if (is_annotation(key)) {
      continue;
    } else if (key == "type") {
      uint32_t m = 0;
      if (v.is_string()) {
        m = type_mask(v.get<std::string>(), ptr);
      } else if (v.is_array()) {
        for (size_t i = 0; i < v.size(); ++i) {
          if (!v[i].is_string()) invalid(ptr, "type entries must be strings");
          m |= type_mask(v[i].get<std::string>(), child(ptr, std::to_string(i)));
        }
      } else {
        invalid(ptr, "type must be a string or an array");
      }
      s.types &= m;
    } else if (key == "enum" || key == "const") {
      std::vector<Json> values;
      if (key == "const") {
        values.push_back(v);
      } else {
        if (!v.is_array()) invalid(ptr, "enum must be an array");
        for (const auto& x : v) values.push_back(x);
      }
      if (!s.has_enum) {
        s.has_enum = true;
        s.enum_values = std::move(values);
        s.enum_pointer = ptr;
      } else {
        // Hashed by a key that equal values share: linear in the values, not quadratic.
        std::unordered_multimap<std::string, const Json*> index;
        for (const auto& y : values) index.emplace(equality_bucket(y), &y);
        std::vector<Json> kept;
        for (const auto& x : s.enum_values) {
          auto [lo, hi] = index.equal_range(equality_bucket(x));
          if (std::any_of(lo, hi, [&](const auto& e) { return json_equal(x, *e.second); })) kept.push_back(x);
        }
        s.enum_values = std::move(kept);
      }
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
      if (!v.is_array() || v.empty()) invalid(ptr, key + " must be a non-empty array");
      if (key == "allOf") {
        for (size_t i = 0; i < v.size(); ++i) queue.push_back({&v[i], located(&v[i], child(ptr, std::to_string(i)))});
      } else if (!skip.count(&v)) {
        Group g{ptr, &v, key == "oneOf", {}};
        for (size_t i = 0; i < v.size(); ++i)
          g.alternatives.push_back({&v[i], located(&v[i], child(ptr, std::to_string(i)))});
        groups.push_back(std::move(g));
      }
    } else if (key == "minLength") {
      s.min_length = std::max(s.min_length, non_negative(v, ptr));
    } else if (key == "maxLength") {
      s.max_length = std::min(s.max_length, non_negative(v, ptr));
    } else if (key == "pattern") {
      if (!v.is_string()) invalid(ptr, "pattern must be a string");
      s.patterns.push_back({v.get<std::string>(), ptr});
    } else if (key == "format") {
      if (!v.is_string()) invalid(ptr, "format must be a string");
      s.formats.push_back({v.get<std::string>(), ptr});
    } else if (key == "minimum" || key == "exclusiveMinimum") {
      if (v.is_boolean()) continue;  // draft-04 form, applied with minimum
      if (!v.is_number()) invalid(ptr, key + " must be a number");
      const double d = v.get<double>();
      const bool excl = key == "exclusiveMinimum" || excl_min_bool;
      if (d > s.lower || (d == s.lower && excl)) s.lower = d, s.lower_exclusive = excl;
      if (auto b = integer_bound(v, true, excl, s.int_out_of_range); b && (!s.int_lower || *b > *s.int_lower)) s.int_lower = b;
      if (s.number_pointer.empty()) s.number_pointer = ptr;
    } else if (key == "maximum" || key == "exclusiveMaximum") {
      if (v.is_boolean()) continue;
      if (!v.is_number()) invalid(ptr, key + " must be a number");
      const double d = v.get<double>();
      const bool excl = key == "exclusiveMaximum" || excl_max_bool;
      if (d < s.upper || (d == s.upper && excl)) s.upper = d, s.upper_exclusive = excl;
      if (auto b = integer_bound(v, false, excl, s.int_out_of_range); b && (!s.int_upper || *b < *s.int_upper)) s.int_upper = b;
      if (s.number_pointer.empty()) s.number_pointer = ptr;
    } else if (key == "multipleOf") {
      if (!v.is_number() || v.get<double>() <= 0) invalid(ptr, "multipleOf must be a positive number");
      s.multiple_of.push_back(v.get<double>());
      if (s.number_pointer.empty()) s.number_pointer = ptr;
    } else if (key == "minItems") {
      s.min_items = std::max(s.min_items, non_negative(v, ptr));
    } else if (key == "maxItems") {
      s.max_items = std::min(s.max_items, non_negative(v, ptr));
    } else if (key == "uniqueItems") {
      if (!v.is_boolean()) invalid(ptr, "uniqueItems must be a boolean");
      if (v.get<bool>()) unsupported(key, ptr);
    } else if (key == "prefixItems" && !draft07) {
      if (!v.is_array()) invalid(ptr, "prefixItems must be an array");
      has_arr = true;
      for (size_t i = 0; i < v.size(); ++i) arr.prefix.push_back({&v[i], child(ptr, std::to_string(i))});
    } else if (key == "items") {
      has_arr = true;
      if (v.is_array()) {
        if (!draft07) invalid(ptr, "items must be a schema in draft 2020-12 (use prefixItems)");
        for (size_t i = 0; i < v.size(); ++i) arr.prefix.push_back({&v[i], child(ptr, std::to_string(i))});
        // Without additionalItems, items past the array are unconstrained.
      } else if (v.is_boolean() && !v.get<bool>()) {
        arr.rest_false = true;
      } else {
        arr.rest = SchemaNode{&v, ptr};
      }
    } else if (key == "additionalItems" && draft07) {
      has_arr = true;
      auto items = j.find("items");
      if (items == j.end() || !items->is_array()) continue;  // ignored unless items is an array
      if (v.is_boolean() && !v.get<bool>()) arr.rest_false = true;
      else arr.rest = SchemaNode{&v, ptr};
    } else if (key == "properties") {
      if (!v.is_object()) invalid(ptr, "properties must be an object");
      has_obj = true;
      for (const auto& [name, sub] : v.items()) obj.properties.push_back({name, {&sub, located(&sub, child(ptr, name))}});
    } else if (key == "patternProperties") {
      if (!v.is_object()) invalid(ptr, "patternProperties must be an object");
      has_obj = true;
      for (const auto& [pat, sub] : v.items()) obj.pattern_properties.push_back({pat, {&sub, child(ptr, pat)}});
    } else if (key == "additionalProperties") {
      has_obj = true;
      if (v.is_boolean() && !v.get<bool>()) obj.additional_false = true;
      else if (!(v.is_boolean() && v.get<bool>())) obj.additional = SchemaNode{&v, ptr};
    } else if (key == "required") {
      if (!v.is_array()) invalid(ptr, "required must be an array");
      for (const auto& r : v) {
        if (!r.is_string()) invalid(ptr, "required entries must be strings");
        const std::string name = r.get<std::string>();
        if (std::find(s.required.begin(), s.required.end(), name) == s.required.end()) s.required.push_back(name);
      }
      if (s.object_pointer.empty()) s.object_pointer = ptr;
    } else if (key == "minProperties") {
      s.min_properties = std::max(s.min_properties, non_negative(v, ptr));
    } else if (key == "maxProperties") {
      s.max_properties = std::min(s.max_properties, non_negative(v, ptr));
    } else if (key == "propertyNames") {
      has_obj = true;
      if (v.is_boolean()) {
        if (!v.get<bool>()) s.max_properties = 0;
      } else if (v.is_object()) {
        for (const auto& [pk, pv] : v.items()) {
          if (pk == "pattern" && pv.is_string()) s.property_names.push_back({pv.get<std::string>(), child(ptr, pk)});
          else if (pk == "type" && pv == "string") continue;
          else if (is_assertion_keyword(pk) || is_unsupported_keyword(pk))
            unsupported("propertyNames", child(ptr, pk), "only a pattern is supported");
        }
      } else {
        invalid(ptr, "propertyNames must be a schema");
      }
    } else if (key == "not") {
      if (is_primitive_not(v)) apply_not(v, ptr, s, unsat);
      else queue.push_back(negate({&v, ptr}));
    } else if (key == "if") {
      // (if and then) or (not if and else); a missing then/else is `true`. Built once per `if`
      // (the anyOf is recognised as distributed by its address).
      if (j.find("then") == j.end() && j.find("else") == j.end()) continue;  // asserts nothing
      if (auto d = derived_.find(&v); d != derived_.end()) {
        queue.push_back(d->second);
        continue;
      }
      Json yes = Json::array({ref_to({&v, ptr})}), no = Json::array({not_of(ref_to({&v, ptr}))});
      if (auto t = j.find("then"); t != j.end()) yes.push_back(ref_to({&*t, child(n.pointer, "then")}));
      if (auto e = j.find("else"); e != j.end()) no.push_back(ref_to({&*e, child(n.pointer, "else")}));
      queue.push_back(derived_[&v] = build(any_of(Json::array({all_of(std::move(yes)), all_of(std::move(no))})), ptr));
    } else if (key == "then" || key == "else") {
      continue;  // applied with `if`; without `if` they assert nothing
    } else if (key == "dependencies" || key == "dependentRequired" || key == "dependentSchemas") {
      // Per entry: not an object, or an object without the name, or one with it that satisfies
      // the dependency (the listed names present, or the schema). Three disjoint alternatives.
      if (!v.is_object()) invalid(ptr, key + " must be an object");
      for (const auto& [name, dep] : v.items()) {
        const std::string dptr = located(&dep, child(ptr, name));
        if (auto d = derived_.find(&dep); d != derived_.end()) {
          queue.push_back(d->second);
          continue;
        }
        Json with = object_of({{"type", "object"}, {"required", Json::array({name})}});
        if (dep.is_array() && key != "dependentSchemas") {
          // The listed names before the name itself: they are emitted in `required` order.
          Json names = Json::array();
          for (const auto& d : dep) {
            if (!d.is_string()) invalid(dptr, key + " names must be strings");
            names.push_back(d);
          }
          names.push_back(name);
          with["required"] = std::move(names);
        } else if ((dep.is_object() || dep.is_boolean()) && key != "dependentRequired") {
          if (asserts_nothing(dep)) continue;
          with["allOf"] = Json::array({ref_to({&dep, dptr})});
        } else {
          invalid(dptr, key + " entries must be " + (key == "dependentSchemas" ? "schemas" : "arrays of names"));
        }
        Json alts = Json::array({not_of(object_of({{"type", "object"}})),
                                 not_of(object_of({{"required", Json::array({name})}})), std::move(with)});
        queue.push_back(derived_[&dep] = build(any_of(std::move(alts)), dptr));
      }
    } else if (is_unsupported_keyword(key)) {
      unsupported(key, ptr);
    }
    // Any other keyword asserts nothing here: one that no draft defines (an annotation by the
    // specification: "javaType", "_format"), or one of another draft. The keyword audit
    // (schema_keywords.h) lists them all, over the whole document.
  }
  if (has_obj) {
    s.objects.push_back(std::move(obj));
    if (s.object_pointer.empty()) s.object_pointer = n.pointer;
  }
  if (has_arr) s.arrays.push_back(std::move(arr));
}

bool ShapeReducer::apply_all(const PartList& parts, const Skip& skip, Shape& shape,
                             std::vector<Group>& groups) {
  std::vector<SchemaNode> queue(parts.rbegin(), parts.rend());
  bool unsat = false;
  size_t steps = 0;
  while (!queue.empty()) {
    SchemaNode n = queue.back();
    queue.pop_back();
    if (++merges_ > limits_.max_merges)
      throw limit_exceeded("schema.max_merges", limits_.max_merges, "merging schema nodes").at_pointer(n.pointer).with_keyword("allOf");
    if (++steps > limits_.max_depth * 16)
      unsupported("$ref", n.pointer, "reference chain does not reduce (self-referencing allOf/$ref)");
    // A node met twice adds nothing (A and A = A); applying it again would duplicate its parts.
    // Nodes with a $ref or allOf are followed again, so a cycle of references still meets the step limit.
    if (!shape.applied.insert(n.node).second && !(n.node->is_object() && (n.node->contains("$ref") || n.node->contains("allOf"))))
      continue;
    std::vector<SchemaNode> more;
    apply_node(n, shape, more, groups, skip, unsat);
    for (auto it = more.rbegin(); it != more.rend(); ++it) queue.push_back(*it);
  }
  return !unsat;
}

void ShapeReducer::expand(PartList parts, Skip skip, int depth, std::vector<Shape>& out) {
  Shape shape;
  std::vector<Group> groups;
  if (!apply_all(parts, skip, shape, groups)) return;
  distribute(std::move(shape), std::move(groups), std::move(skip), depth, out);
}

// Distributes the pending groups of a shape: each alternative of the first group is applied to a
// copy of the shape (only its own nodes: the rest is already in the shape), then the remaining
// groups are distributed over the result.
void ShapeReducer::distribute(Shape shape, std::vector<Group> groups, Skip skip, int depth, std::vector<Shape>& out) {
  if (depth > static_cast<int>(limits_.max_depth))
    throw limit_exceeded("schema.max_depth", limits_.max_depth, "nesting of anyOf/oneOf alternatives").at_pointer(shape.pointer).with_keyword("anyOf");
  if (std::string conflict = prune_empty_types(shape); !conflict.empty() && first_conflict_.empty())
    first_conflict_ = conflict;
  if ((shape.types & kObject) && !groups.empty() && reducing_ < 4 && !required_values_possible(shape))
    shape.types &= ~kObject;
  if (shape.types == 0) return;
  if (groups.empty()) {
    out.push_back(std::move(shape));
    return;
  }
  const Group g = groups.front();
  groups.erase(groups.begin());
  // Pending groups met again through an alternative are the same conjunct (A and A = A).
  skip.insert(g.key);
  for (const auto& r : groups) skip.insert(r.key);
  auto branch = [&](const PartList& extra, std::vector<Shape>& into) {
    Shape s = shape;
    std::vector<Group> more = groups;
    if (!apply_all(extra, skip, s, more)) return;
    distribute(std::move(s), std::move(more), skip, depth + 1, into);
  };
  std::vector<std::vector<Shape>> per_alt(g.alternatives.size());
  for (size_t i = 0; i < g.alternatives.size(); ++i) branch({g.alternatives[i]}, per_alt[i]);
  if (g.one_of) {
    const auto overlaps = overlapping(per_alt);
    if (!overlaps.empty()) {
      // Exactly one alternative: alternative i and the negation of every alternative that may
      // overlap it. Exact when each such negation is expressible; otherwise oneOf stays refused.
      const std::string why = "alternatives " + std::to_string(overlaps[0].first) + " and " +
                              std::to_string(overlaps[0].second) + " are not provably exclusive";
      try {
        for (size_t i = 0; i < g.alternatives.size(); ++i) {
          PartList with{g.alternatives[i]};
          for (const auto& [a, b] : overlaps)
            if (a == i || b == i) with.push_back(negate(g.alternatives[a == i ? b : a]));
          if (with.size() == 1) continue;
          per_alt[i].clear();
          branch(with, per_alt[i]);
        }
      } catch (const ConstraintError& e) {
        if (e.kind() != ConstraintErrorKind::UnsupportedSchema) throw;
        unsupported("oneOf", g.pointer, why + " and one of them has no expressible negation (" + e.what() + ")");
      }
    }
  }
  for (auto& shapes : per_alt)
    for (auto& sh : shapes) out.push_back(std::move(sh));
}

// False when a required property can hold no value: its schemas from several parts (say a
// discriminator `const` and the `not const` of another if/then branch) intersect to nothing.
// Checked while distributing groups, so contradictory branches are cut before they multiply.
bool ShapeReducer::required_values_possible(const Shape& s) {
  for (const auto& name : s.required) {
    PartList parts;
    for (const auto& part : s.objects) {
      bool declared = false;
      for (const auto& property : part.properties)
        if (property.first == name) {
          declared = true;
          const SchemaNode& node = property.second;  // a plain reference: lambdas may capture it (clang 14)
          if (std::none_of(parts.begin(), parts.end(), [&](const SchemaNode& p) { return p.node == node.node; }))
            parts.push_back(node);
        }
      if (declared || !part.pattern_properties.empty()) continue;  // pattern schemas: not checked here
      if (part.additional_false) return false;
      if (part.additional) parts.push_back(*part.additional);
    }
    if (parts.size() < 2) continue;
    if (reduce(parts).empty()) return false;
  }
  return true;
}

std::string ShapeReducer::located(const Json* v, std::string fallback) const {
  auto it = origin_.find(v);
  return it == origin_.end() ? std::move(fallback) : it->second;
}

SchemaNode ShapeReducer::build(Json j, const std::string& origin) {
  built_.push_back(std::move(j));
  const Json& b = built_.back();
  std::vector<const Json*> stack{&b};
  while (!stack.empty()) {
    const Json* x = stack.back();
    stack.pop_back();
    origin_[x] = origin;
    if (x->is_object())
      for (const auto& [k, v] : x->items()) stack.push_back(&v);
    else if (x->is_array())
      for (const auto& v : *x) stack.push_back(&v);
  }
  return {&b, origin};
}

Json ShapeReducer::ref_to(const SchemaNode& n) const {
  if (n.node->is_boolean() || origin_.count(n.node)) return *n.node;
  std::string ref = "#";
  for (char c : n.pointer) {
    if (c == '%') ref += "%25";  // $ref fragments are percent-decoded
    else ref.push_back(c);
  }
  return object_of({{"$ref", ref}});
}

SchemaNode ShapeReducer::negate(const SchemaNode& n) {
  auto it = negations_.find(n.node);
  if (it != negations_.end()) return it->second;
  SchemaNode out = build(negation_of(n, 0), n.pointer);
  negations_.emplace(n.node, out);
  return out;
}

// The complement of a schema as a schema in the supported vocabulary (De Morgan over its
// keywords): an instance fails the schema iff it fails one keyword. Each keyword's complement is
// exact; sub-schemas are referenced, and negated lazily when the result is reduced.
Json ShapeReducer::negation_of(const SchemaNode& n, int depth) {
  if (depth > 32) throw limit_exceeded("schema.max_negation_depth", 32, "nesting of negations").at_pointer(n.pointer).with_keyword("not");
  const Json& j = *n.node;
  if (j.is_boolean()) return Json(!j.get<bool>());
  if (!j.is_object()) invalid(n.pointer, "a schema must be an object or a boolean");
  const bool draft07 = doc_.draft() == SchemaDraft::Draft07;
  auto sub = [&](const Json& v, const std::string& p) { return ref_to({&v, located(&v, p)}); };
  auto has = [&](const char* k) { return j.find(k) != j.end(); };
  auto trivial = [&](const char* k) { return !has(k) || asserts_nothing(j[k]); };
  bool excl_min_bool = false, excl_max_bool = false;
  if (auto it = j.find("exclusiveMinimum"); it != j.end() && it->is_boolean()) excl_min_bool = it->get<bool>();
  if (auto it = j.find("exclusiveMaximum"); it != j.end() && it->is_boolean()) excl_max_bool = it->get<bool>();
  Json pieces = Json::array();  // the complement is their union
  for (const auto& [key, v] : j.items()) {
    const std::string ptr = located(&v, child(n.pointer, key));
    auto refuse = [&](const std::string& why) { unsupported("not", ptr, why); };
    if (key == "$ref") {
      if (!v.is_string()) invalid(ptr, "$ref must be a string");
      if (draft07)
        for (const auto& [k, x] : j.items())
          if (k != "$ref" && is_assertion_keyword(k)) refuse("a $ref with sibling keywords (draft-07 ignores them)");
      pieces.push_back(negation_of(doc_.resolve_ref(v.get<std::string>(), n.pointer), depth + 1));
    } else if (key == "$id" || key == "id") {
      if (v.is_string() && !n.pointer.empty() && contains_ref(j))
        unsupported(key, ptr, "nested base URI changes with $ref inside");
    } else if (!is_assertion_keyword(key) || key == "then" || key == "else") {
      continue;
    } else if (key == "type" || key == "enum" || key == "const" || key == "pattern") {
      pieces.push_back(not_of(object_of({{key.c_str(), v}})));
    } else if (key == "required") {
      if (!v.is_array()) invalid(ptr, "required must be an array");
      for (const auto& r : v) {
        if (!r.is_string()) invalid(ptr, "required entries must be strings");
        pieces.push_back(not_of(object_of({{"required", Json::array({r})}})));
      }
    } else if (key == "minimum" || key == "exclusiveMinimum" || key == "maximum" || key == "exclusiveMaximum") {
      if (v.is_boolean()) continue;  // draft-04 form, applied with minimum/maximum
      if (!v.is_number()) invalid(ptr, key + " must be a number");
      const bool lower = key == "minimum" || key == "exclusiveMinimum";
      const bool excl = key == "exclusiveMinimum" || key == "exclusiveMaximum" ||
                        (key == "minimum" && excl_min_bool) || (key == "maximum" && excl_max_bool);
      // Numbers on the other side: below an inclusive minimum is below it exclusively, etc.
      const char* other = lower ? (excl ? "maximum" : "exclusiveMaximum") : (excl ? "minimum" : "exclusiveMinimum");
      pieces.push_back(object_of({{"type", "number"}, {other, v}}));
    } else if (key == "minLength" || key == "minItems" || key == "minProperties") {
      const uint64_t m = non_negative(v, ptr);
      const char* type = key == "minLength" ? "string" : key == "minItems" ? "array" : "object";
      const char* other = key == "minLength" ? "maxLength" : key == "minItems" ? "maxItems" : "maxProperties";
      if (m > 0) pieces.push_back(object_of({{"type", type}, {other, m - 1}}));
    } else if (key == "maxLength" || key == "maxItems" || key == "maxProperties") {
      const uint64_t m = non_negative(v, ptr);
      const char* type = key == "maxLength" ? "string" : key == "maxItems" ? "array" : "object";
      const char* other = key == "maxLength" ? "minLength" : key == "maxItems" ? "minItems" : "minProperties";
      if (m != std::numeric_limits<uint64_t>::max()) pieces.push_back(object_of({{"type", type}, {other, m + 1}}));
    } else if (key == "properties") {
      if (!v.is_object()) invalid(ptr, "properties must be an object");
      // Failing it means having a declared name whose value fails its schema. Names matched by
      // patternProperties, or failing additionalProperties, would need "some undeclared name".
      if (!trivial("patternProperties") || !trivial("additionalProperties"))
        refuse("properties with patternProperties or additionalProperties");
      for (const auto& [name, s] : v.items()) {
        if (asserts_nothing(s)) continue;
        Json props = Json::object();
        props[name] = not_of(sub(s, child(ptr, name)));
        pieces.push_back(object_of({{"type", "object"}, {"required", Json::array({name})}, {"properties", props}}));
      }
    } else if (key == "additionalProperties" || key == "patternProperties" || key == "propertyNames") {
      if (key == "additionalProperties" && has("properties")) continue;  // checked with properties
      if (key == "patternProperties" ? !(v.is_object() && v.empty()) : !asserts_nothing(v))
        refuse(key + " (failing it needs some property that fails)");
    } else if ((key == "prefixItems" && !draft07) || (key == "items" && v.is_array() && draft07)) {
      if (!v.is_array()) invalid(ptr, key + " must be an array");
      if (draft07 ? !trivial("additionalItems") : !trivial("items"))
        refuse("items past the prefix (failing them needs some item that fails)");
      // Failing it means an item at position i (the array has more than i) failing its schema.
      for (size_t i = 0; i < v.size(); ++i) {
        if (asserts_nothing(v[i])) continue;
        Json prefix = Json::array();
        for (size_t k = 0; k < i; ++k) prefix.push_back(true);
        prefix.push_back(not_of(sub(v[i], child(ptr, std::to_string(i)))));
        pieces.push_back(object_of({{"type", "array"}, {"minItems", i + 1}, {draft07 ? "items" : "prefixItems", prefix}}));
      }
    } else if (key == "items" || key == "additionalItems") {
      if (key == "additionalItems" && (!draft07 || !has("items") || j["items"].is_array())) continue;  // with items
      if (key == "items" && !draft07 && has("prefixItems")) continue;  // checked with prefixItems
      if (key == "additionalItems" && !draft07) continue;
      if (!asserts_nothing(v)) refuse(key + " (failing it needs some item that fails)");
    } else if (key == "allOf" || key == "anyOf" || key == "oneOf") {
      if (!v.is_array() || v.empty()) invalid(ptr, key + " must be a non-empty array");
      Json negs = Json::array();
      for (size_t i = 0; i < v.size(); ++i) negs.push_back(not_of(sub(v[i], child(ptr, std::to_string(i)))));
      if (key == "allOf") {
        for (auto& x : negs) pieces.push_back(std::move(x));
      } else if (key == "anyOf") {
        pieces.push_back(all_of(std::move(negs)));
      } else {
        // Not exactly one: none, or some two at once.
        if (v.size() > 4) refuse("the negation of a oneOf with more than 4 alternatives");
        pieces.push_back(all_of(std::move(negs)));
        for (size_t a = 0; a < v.size(); ++a)
          for (size_t b = a + 1; b < v.size(); ++b)
            pieces.push_back(all_of(Json::array({sub(v[a], child(ptr, std::to_string(a))),
                                                 sub(v[b], child(ptr, std::to_string(b)))})));
      }
    } else if (key == "not") {
      pieces.push_back(sub(v, ptr));
    } else if (key == "if") {
      // Failing if/then/else: the `if` holds and `then` fails, or it fails and `else` fails.
      if (auto t = j.find("then"); t != j.end())
        pieces.push_back(all_of(Json::array({sub(v, ptr), not_of(sub(*t, child(n.pointer, "then")))})));
      if (auto e = j.find("else"); e != j.end())
        pieces.push_back(all_of(Json::array({not_of(sub(v, ptr)), not_of(sub(*e, child(n.pointer, "else")))})));
    } else if (key == "dependentRequired" || key == "dependentSchemas" || (key == "dependencies" && draft07)) {
      if (!v.is_object()) invalid(ptr, key + " must be an object");
      // Failing it: an object with the name whose dependency fails.
      for (const auto& [name, dep] : v.items()) {
        Json fail;
        if (dep.is_array()) {
          if (dep.empty()) continue;
          fail = not_of(object_of({{"required", dep}}));
        } else {
          if (asserts_nothing(dep)) continue;
          fail = not_of(sub(dep, child(ptr, name)));
        }
        pieces.push_back(object_of({{"type", "object"}, {"required", Json::array({name})}, {"allOf", Json::array({fail})}}));
      }
    } else if (key == "format") {
      if (!v.is_string()) invalid(ptr, "format must be a string");
      // Our format languages may be narrower than a validator's: their complement is not exact.
      if (!format_is_annotation(v.get<std::string>()) || integer_format_range(v.get<std::string>()))
        refuse("the negation of format '" + v.get<std::string>() + "'");
    } else if (key == "uniqueItems") {
      if (!(v.is_boolean() && !v.get<bool>())) refuse("the negation of uniqueItems");
    } else {
      refuse("the negation of " + key);
    }
  }
  if (pieces.empty()) return Json(false);
  if (pieces.size() == 1) return pieces[0];
  return any_of(std::move(pieces));
}

std::vector<Shape> ShapeReducer::reduce(const PartList& parts) {
  // The merge limit holds per reduction (the outermost call), not per compile.
  const bool outermost = reducing_++ == 0;
  if (outermost) merges_ = 0;
  std::vector<Shape> out;
  try {
    expand(parts, {}, 0, out);
  } catch (...) {
    --reducing_;
    throw;
  }
  --reducing_;
  return out;
}

namespace {

// Values a shape can take when it is a finite set: const/enum, or a single-type null/boolean.
bool finite_values(const Shape& s, std::vector<Json>& values) {
  if (s.has_enum) {
    for (const auto& v : s.enum_values)
      if (json_type_bit(v) & s.types) values.push_back(v);
    return true;
  }
  return false;
}

// A required property whose value is fixed to a finite set (discriminator), per shape.
bool disjoint_by_discriminator(const Shape& a, const Shape& b, ShapeReducer& reducer) {
  for (const auto& name : a.required) {
    if (std::find(b.required.begin(), b.required.end(), name) == b.required.end()) continue;
    // Every part declaring the name bounds its values; finite bounds of a and b that share no
    // value prove the shapes disjoint.
    auto value_sets = [&](const Shape& s) {
      std::vector<std::vector<Json>> sets;
      for (const auto& part : s.objects)
        for (const auto& [pname, node] : part.properties)
          if (pname == name) {
            auto shapes = reducer.reduce({node});
            std::vector<Json> vals;
            bool finite = !shapes.empty();
            for (const auto& sh : shapes) finite = finite && finite_values(sh, vals);
            if (finite) sets.push_back(std::move(vals));
          }
      return sets;
    };
    for (const auto& va : value_sets(a))
      for (const auto& vb : value_sets(b)) {
        bool overlap = false;
        for (const auto& x : va)
          for (const auto& y : vb) overlap |= json_equal(x, y);
        if (!overlap) return true;
      }
  }
  return false;
}

// Number shapes whose ranges do not meet (strictly: equal binary64 bounds may stand for different decimals).
bool disjoint_ranges(const Shape& a, const Shape& b) {
  if ((a.types & kInt) && (b.types & kInt) && !(a.types & kFrac) && !(b.types & kFrac)) {
    if ((a.int_upper && b.int_lower && *a.int_upper < *b.int_lower) || (b.int_upper && a.int_lower && *b.int_upper < *a.int_lower))
      return true;
  }
  return a.upper < b.lower || b.upper < a.lower;
}

// `a` requires a property that `b` can never hold (a part of `b` forbids undeclared names and
// does not declare it, or declares it with the `false` schema).
bool required_forbidden(const Shape& a, const Shape& b) {
  for (const auto& name : a.required) {
    if (std::find(b.forbidden_properties.begin(), b.forbidden_properties.end(), name) != b.forbidden_properties.end())
      return true;
    for (const auto& part : b.objects) {
      bool declared = false, declared_false = false;
      for (const auto& [pname, node] : part.properties)
        if (pname == name) {
          declared = true;
          declared_false |= node.node->is_boolean() && !node.node->get<bool>();
        }
      if (declared_false || (!declared && part.additional_false && part.pattern_properties.empty())) return true;
    }
  }
  return false;
}

}  // namespace

std::vector<std::pair<size_t, size_t>> ShapeReducer::overlapping(const std::vector<std::vector<Shape>>& alternatives) {
  // Alternatives are exclusive when every pair of their shapes is provably disjoint.
  std::vector<std::pair<size_t, size_t>> out;
  for (size_t i = 0; i < alternatives.size(); ++i)
    for (size_t j = i + 1; j < alternatives.size(); ++j) {
      bool disjoint = true;
      for (const auto& a : alternatives[i])
        for (const auto& b : alternatives[j]) {
          if (!disjoint) break;
          uint32_t common = a.types & b.types;
          if (common == 0) continue;
          std::vector<Json> va, vb;
          if (finite_values(a, va) && finite_values(b, vb)) {
            bool overlap = false;
            for (const auto& x : va)
              for (const auto& y : vb) overlap |= json_equal(x, y);
            if (!overlap) continue;
          }
          if (common == kObject &&
              (disjoint_by_discriminator(a, b, *this) || required_forbidden(a, b) || required_forbidden(b, a)))
            continue;
          if ((common & ~(kInt | kFrac)) == 0 && disjoint_ranges(a, b)) continue;
          disjoint = false;
        }
      if (!disjoint) out.emplace_back(i, j);
    }
  return out;
}

bool value_matches_shape(const Json& value, const Shape& s, ShapeReducer& reducer, int depth) {
  // Values nest at most schema.max_document_depth; a deeper bound here would say so, not narrow.
  if (depth > 64) throw limit_exceeded("schema.max_value_depth", 64, "nesting of an enum/const value checked against its schema");
  const uint32_t t = json_type_bit(value);
  if (!(t & s.types)) return false;
  if (s.has_enum &&
      !std::any_of(s.enum_values.begin(), s.enum_values.end(), [&](const Json& e) { return json_equal(e, value); }))
    return false;
  if (std::any_of(s.excluded_values.begin(), s.excluded_values.end(), [&](const Json& e) { return json_equal(e, value); }))
    return false;
  if (t == kString) {
    const std::string& str = value.get_ref<const std::string&>();
    uint64_t len = 0;
    for (unsigned char c : str) len += (c & 0xC0) != 0x80;
    if (len < s.min_length || len > s.max_length) return false;
    const std::u32string u = utf8_to_u32(str);
    for (const auto& p : s.patterns)
      if (!regex_or_unsupported(p.pattern, RegexMode::Search, "pattern", p.pointer).accepts(u)) return false;
    for (const auto& p : s.excluded_patterns)
      if (regex_or_unsupported(p.pattern, RegexMode::Search, "not", p.pointer).accepts(u)) return false;
    for (const auto& f : s.formats) {
      if (integer_format_range(f.pattern) || format_is_annotation(f.pattern)) continue;
      auto re = string_format_regex(f.pattern);
      if (!re) unsupported("format", f.pointer, "format '" + f.pattern + "'");
      if (!regex_or_unsupported(*re, RegexMode::FullMatch, "format", f.pointer).accepts(u)) return false;
      if (f.pattern == "hostname" && u.size() > 253) return false;
    }
  } else if (t == kInt || t == kFrac) {
    if (t == kInt && value.is_number_integer()) {
      // Exact integer comparison against the exact integer bounds.
      if (s.int_out_of_range) return false;
      if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        if (s.int_upper) return false;
      } else {
        const int64_t x = value.get<int64_t>();
        if ((s.int_lower && x < *s.int_lower) || (s.int_upper && x > *s.int_upper)) return false;
      }
      for (const auto& f : s.formats)
        if (auto r = integer_format_range(f.pattern); r && (value.is_number_unsigned() ? value.get<uint64_t>() > uint64_t(INT64_MAX) || value.get<int64_t>() > r->second : value.get<int64_t>() < r->first || value.get<int64_t>() > r->second))
          return false;
      for (double m : s.multiple_of) {
        if (std::floor(m) != m) return false;  // fractional divisors are refused at emission anyway
        const uint64_t k = static_cast<uint64_t>(m);
        const int64_t x = value.is_number_unsigned() ? 0 : value.get<int64_t>();
        if (value.is_number_unsigned() ? value.get<uint64_t>() % k != 0 : (x < 0 ? uint64_t(0) - uint64_t(x) : uint64_t(x)) % k != 0)
          return false;
      }
      return true;
    }
    const double d = value.get<double>();
    if (d < s.lower || (d == s.lower && s.lower_exclusive)) return false;
    if (d > s.upper || (d == s.upper && s.upper_exclusive)) return false;
    for (const auto& f : s.formats)
      if (auto r = integer_format_range(f.pattern); r && (t != kInt || d < double(r->first) || d > double(r->second)))
        return false;
    for (double m : s.multiple_of) {
      double q = d / m;
      if (std::fabs(q - std::round(q)) > 1e-9) return false;
    }
  } else if (t == kArray) {
    if (value.size() < s.min_items || value.size() > s.max_items) return false;
    for (const auto& part : s.arrays) {
      for (size_t i = 0; i < value.size(); ++i) {
        std::optional<SchemaNode> sub;
        if (i < part.prefix.size()) sub = part.prefix[i];
        else if (part.rest_false) return false;
        else sub = part.rest;
        if (!sub) continue;
        auto shapes = reducer.reduce({*sub});
        if (std::none_of(shapes.begin(), shapes.end(),
                         [&](const Shape& sh) { return value_matches_shape(value[i], sh, reducer, depth + 1); }))
          return false;
      }
    }
  } else if (t == kObject) {
    if (value.size() < s.min_properties || value.size() > s.max_properties) return false;
    for (const auto& r : s.required)
      if (!value.contains(r)) return false;
    for (const auto& f : s.forbidden_properties)
      if (value.contains(f)) return false;
    for (const auto& pn : s.property_names)
      for (const auto& [k, v] : value.items())
        if (!regex_or_unsupported(pn.pattern, RegexMode::Search, "propertyNames", pn.pointer).accepts(utf8_to_u32(k)))
          return false;
    for (const auto& part : s.objects) {
      for (const auto& [k, v] : value.items()) {
        std::vector<SchemaNode> subs;
        bool declared = false;
        for (const auto& [name, node] : part.properties)
          if (name == k) subs.push_back(node), declared = true;
        bool matched = false;
        for (const auto& [pat, node] : part.pattern_properties)
          if (regex_or_unsupported(pat, RegexMode::Search, "patternProperties", node.pointer).accepts(utf8_to_u32(k)))
            subs.push_back(node), matched = true;
        if (!declared && !matched) {
          if (part.additional_false) return false;
          if (part.additional) subs.push_back(*part.additional);
        }
        const Json& member = v;  // a named reference: lambdas may not capture structured bindings before C++20 in clang 14
        for (const auto& sub : subs) {
          auto shapes = reducer.reduce({sub});
          if (std::none_of(shapes.begin(), shapes.end(),
                           [&](const Shape& sh) { return value_matches_shape(member, sh, reducer, depth + 1); }))
            return false;
        }
      }
    }
  }
  return true;
}

}  // namespace ninfer::text
