#include "api/request_field.h"

#include <cmath>
#include <utility>
#include <vector>

#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

const Json& null_json() {
  static const Json null_value;
  return null_value;
}

std::string quoted_list(std::initializer_list<std::string_view> items) {
  std::string out;
  for (auto it = items.begin(); it != items.end(); ++it) {
    if (it != items.begin()) out += it + 1 == items.end() ? " or " : ", ";
    out += "'" + std::string(*it) + "'";
  }
  return out;
}

// A value for a message, cut short: a request may hold megabytes in one string.
std::string short_dump(const Json& v) {
  std::string s = v.dump();
  if (s.size() > 80) {
    size_t cut = 77;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // whole UTF-8 sequences only
    s = s.substr(0, cut) + "...";
  }
  return s;
}

std::string number_text(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<int64_t>(v));
  Json j = v;
  return j.dump();
}

}  // namespace

Json parse_request_body(std::string_view body) {
  Json value;
  try {
    // The parser is iterative, so deep nesting cannot overflow the stack here; the depth check follows.
    value = Json::parse(body.begin(), body.end());
  } catch (const Json::exception& e) {
    // The parser quotes what it last read, which may be invalid UTF-8 from the body; the message
    // goes into a JSON error body.
    throw ApiError(400, "invalid_request_error",
                   "The request body is not valid JSON: " + valid_utf8(e.what()), "", "invalid_json");
  }
  check_request_depth(value);
  return value;
}

void check_request_depth(const Json& value) {
  // Each structured node visited keeps its parent and its key or index, so that the too-deep one can
  // be named; scalars are never visited.
  struct Visit {
    const Json* node;
    int depth;
    size_t parent;           // index in `visited`, or kRoot
    const std::string* key;  // the member name in an object parent, else null
    size_t index;            // the position in an array parent
  };
  constexpr size_t kRoot = static_cast<size_t>(-1);
  if (!value.is_structured()) return;
  std::vector<Visit> visited;
  std::vector<Visit> stack{{&value, 1, kRoot, nullptr, 0}};
  while (!stack.empty()) {
    visited.push_back(stack.back());
    stack.pop_back();
    const size_t self = visited.size() - 1;
    const Visit cur = visited[self];
    if (cur.depth > kMaxRequestDepth) {
      std::vector<size_t> chain;
      for (size_t i = self; visited[i].parent != kRoot; i = visited[i].parent) chain.push_back(i);
      std::string path;
      for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        const Visit& v = visited[*it];
        if (v.key) path += (path.empty() ? "" : ".") + *v.key;
        else path += "[" + std::to_string(v.index) + "]";
      }
      throw ApiError(400, "invalid_request_error",
                     "Invalid '" + path + "': the value nests deeper than " + std::to_string(kMaxRequestDepth) +
                         " levels.",
                     path, "nesting_too_deep");
    }
    if (cur.node->is_object()) {
      for (const auto& [key, child] : cur.node->items())
        if (child.is_structured()) stack.push_back({&child, cur.depth + 1, self, &key, 0});
    } else {
      size_t i = 0;
      for (const auto& child : *cur.node) {
        if (child.is_structured()) stack.push_back({&child, cur.depth + 1, self, nullptr, i});
        ++i;
      }
    }
  }
}

std::string json_type_phrase(const Json& value) {
  switch (value.type()) {
    case Json::value_t::null: return "null";
    case Json::value_t::boolean: return "a boolean";
    case Json::value_t::string: return "a string";
    case Json::value_t::number_integer:
    case Json::value_t::number_unsigned: return "an integer";
    case Json::value_t::number_float: return "a number";
    case Json::value_t::array: return "an array";
    case Json::value_t::object: return "an object";
    default: return "an unsupported value";
  }
}

std::string Field::child_path(std::string_view key) const {
  return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
}

Field Field::member(std::string_view key) const {
  const Json& obj = object();
  auto it = obj.find(key);
  return Field(it == obj.end() ? null_json() : *it, child_path(key));
}

std::optional<Field> Field::optional_member(std::string_view key) const {
  Field f = member(key);
  if (f.is_null()) return std::nullopt;
  return f;
}

Field Field::required_member(std::string_view key) const {
  Field f = member(key);
  if (f.is_null()) throw invalid_request(f.path(), "Missing required parameter: '" + f.path() + "'.", "missing_required_parameter");
  return f;
}

Field Field::element(size_t index) const {
  const Json& arr = array();
  return Field(index < arr.size() ? arr[index] : null_json(), path_ + "[" + std::to_string(index) + "]");
}

const Json& Field::object() const {
  if (!value_->is_object()) fail_type("an object");
  return *value_;
}

const Json& Field::array() const {
  if (!value_->is_array()) fail_type("an array");
  return *value_;
}

const std::string& Field::string() const {
  if (!value_->is_string()) fail_type("a string");
  return value_->get_ref<const std::string&>();
}

bool Field::boolean() const {
  if (!value_->is_boolean()) fail_type("a boolean");
  return value_->get<bool>();
}

int64_t Field::integer(int64_t min, int64_t max) const {
  int64_t v = 0;
  bool above = false, below = false;
  if (value_->is_number_unsigned()) {
    const uint64_t u = value_->get<uint64_t>();
    if (u > static_cast<uint64_t>(max)) above = true;
    else v = static_cast<int64_t>(u);
  } else if (value_->is_number_integer()) {
    v = value_->get<int64_t>();
  } else if (value_->is_number_float()) {
    const double d = value_->get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) fail_type("an integer");
    if (d >= 9.2e18) above = true;
    else if (d <= -9.2e18) below = true;
    else v = static_cast<int64_t>(d);
  } else {
    fail_type("an integer");
  }
  if (above || v > max)
    fail("Invalid '" + path_ + "': integer above maximum value. Expected a value <= " + std::to_string(max) +
             ", but got " + short_dump(*value_) + " instead.",
         "integer_above_max_value");
  if (below || v < min)
    fail("Invalid '" + path_ + "': integer below minimum value. Expected a value >= " + std::to_string(min) +
             ", but got " + short_dump(*value_) + " instead.",
         "integer_below_min_value");
  return v;
}

double Field::number(double min, double max, bool min_exclusive) const {
  if (!value_->is_number()) fail_type("a number");
  const double v = value_->get<double>();
  if (!(v <= max))  // NaN too (a huge literal parses as infinity)
    fail("Invalid '" + path_ + "': decimal above maximum value. Expected a value <= " + number_text(max) +
             ", but got " + short_dump(*value_) + " instead.",
         "decimal_above_max_value");
  if (min_exclusive ? !(v > min) : !(v >= min))
    fail("Invalid '" + path_ + "': decimal below minimum value. Expected a value " + (min_exclusive ? "> " : ">= ") +
             number_text(min) + ", but got " + short_dump(*value_) + " instead.",
         "decimal_below_min_value");
  return v;
}

const std::string& Field::one_of(std::initializer_list<std::string_view> allowed) const {
  const std::string& s = string();
  for (std::string_view a : allowed)
    if (s == a) return s;
  fail("Invalid value for '" + path_ + "': expected one of " + quoted_list(allowed) + ", but got " + short_dump(*value_) +
       ".");
}

void Field::only_members(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, value] : object().items()) {
    bool found = false;
    for (std::string_view k : known) found = found || key == k;
    if (!found) {
      const std::string p = child_path(key);
      throw invalid_request(p, "Unrecognized request argument supplied: " + p, "unknown_parameter");
    }
  }
}

void Field::fail(const std::string& message, const std::string& code) const { throw invalid_request(path_, message, code); }

void Field::fail_type(const std::string& expected) const {
  fail("Invalid type for '" + path_ + "': expected " + expected + ", but got " + json_type_phrase(*value_) + " instead.",
       "invalid_type");
}

Field body_field(const Json& body) {
  if (!body.is_object())
    throw ApiError(400, "invalid_request_error",
                   "The request body must be a JSON object, but it is " + json_type_phrase(body) + ".", "",
                   "invalid_type");
  return Field(body, "");
}

}  // namespace ninfer::api
