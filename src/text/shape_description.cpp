#include "text/shape_description.h"

#include <cmath>
#include <cstdio>

namespace ninfer::text {
namespace {

constexpr size_t kMaxText = 240;  // a description is one line, whatever the schema holds

std::string number_text(double d) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", d);
  // The shortest text that reads back as the same double.
  for (int p = 1; p <= 17; ++p) {
    char t[40];
    std::snprintf(t, sizeof t, "%.*g", p, d);
    if (std::strtod(t, nullptr) == d) return t;
  }
  return buf;
}

std::string bounds_text(const std::string& lo, bool lo_ex, const std::string& hi, bool hi_ex) {
  if (!lo.empty() && !hi.empty()) return " in " + std::string(lo_ex ? "(" : "[") + lo + ", " + hi + (hi_ex ? ")" : "]");
  if (!lo.empty()) return (lo_ex ? " > " : " >= ") + lo;
  if (!hi.empty()) return (hi_ex ? " < " : " <= ") + hi;
  return "";
}

std::string number_description(const Shape& s) {
  const bool integer = !(s.types & kFrac);
  std::string out = integer ? "integer" : "number";
  if (integer && (s.int_lower || s.int_upper)) {
    out += bounds_text(s.int_lower ? std::to_string(*s.int_lower) : "", false,
                       s.int_upper ? std::to_string(*s.int_upper) : "", false);
  } else {
    out += bounds_text(std::isfinite(s.lower) ? number_text(s.lower) : "", s.lower_exclusive,
                       std::isfinite(s.upper) ? number_text(s.upper) : "", s.upper_exclusive);
  }
  for (double m : s.multiple_of) out += ", multiple of " + number_text(m);
  return out;
}

std::string count_text(const char* what, uint64_t lo, uint64_t hi) {
  constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
  if (lo == 0 && hi == kNone) return "";
  if (hi == kNone) return " of at least " + std::to_string(lo) + " " + what;
  if (lo == 0) return " of at most " + std::to_string(hi) + " " + what;
  if (lo == hi) return " of exactly " + std::to_string(lo) + " " + what;
  return " of " + std::to_string(lo) + " to " + std::to_string(hi) + " " + what;
}

std::string string_description(const Shape& s) {
  std::string out = "string";
  for (size_t i = 0; i < s.patterns.size(); ++i) out += (i ? " and " : " matching ") + s.patterns[i].pattern;
  for (const auto& f : s.formats) out += " of format " + f.pattern;
  return out + count_text("characters", s.min_length, s.max_length);
}

std::string object_description(const Shape& s) {
  std::string out = "object";
  size_t keys = 0;
  for (const auto& part : s.objects)
    for (const auto& [name, node] : part.properties) {
      if (out.size() > kMaxText) break;
      out += (keys++ ? ", \"" : " with keys \"") + name + "\"";
    }
  return out + count_text("properties", s.min_properties, s.max_properties);
}

std::string shape_description(const Shape& s) {
  if (s.has_enum) return s.enum_values.size() == 1 ? "const value" : "enum of " + std::to_string(s.enum_values.size()) + " values";
  if ((s.types & kAllTypes) == kAllTypes) return "any value";
  std::vector<std::string> kinds;
  if (s.types & kNull) kinds.push_back("null");
  if (s.types & kBool) kinds.push_back("boolean");
  if (s.types & (kInt | kFrac)) kinds.push_back(number_description(s));
  if (s.types & kString) kinds.push_back(string_description(s));
  if (s.types & kArray) kinds.push_back("array" + count_text("items", s.min_items, s.max_items));
  if (s.types & kObject) kinds.push_back(object_description(s));
  std::string out;
  for (const auto& k : kinds) out += (out.empty() ? "" : " or ") + k;
  return out;
}

}  // namespace

std::string describe_shapes(const std::vector<Shape>& shapes) {
  if (shapes.empty()) return "no value (unsatisfiable)";
  std::string out;
  for (const auto& s : shapes) {
    out += (out.empty() ? "" : " or ") + shape_description(s);
    if (out.size() > kMaxText) return out.substr(0, kMaxText) + "...";
  }
  return out;
}

}  // namespace ninfer::text
