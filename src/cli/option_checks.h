// Validators for numeric command-line options. CLI11's own range checks print their bounds as
// doubles ("Value 0 not in range 0.000000 to 1797…"); these say what the option takes in the
// words of our other usage errors, e.g. "--max-tokens: must be an integer >= 1 (got 0)". They
// run on the text before conversion, so a non-number or an overflow reads the same way.
#pragma once

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace ninfer::cli {

// An integer in [min, max]; max defaults to the limit of the option's type T.
template <typename T>
CLI::Validator integer_option(int64_t min, std::optional<int64_t> max = std::nullopt) {
  const int64_t type_max = std::numeric_limits<T>::max() > static_cast<uint64_t>(INT64_MAX)
                               ? INT64_MAX
                               : static_cast<int64_t>(std::numeric_limits<T>::max());
  const int64_t hi = max.value_or(type_max);
  const std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(hi);
  // Without an explicit maximum, the type's limit is named only to a value beyond it.
  const std::string wanted = max ? range : "an integer >= " + std::to_string(min);
  return CLI::Validator(
      [min, hi, range, wanted](std::string& text) -> std::string {
        int64_t v = 0;
        const char* end = text.data() + text.size();
        auto [ptr, ec] = std::from_chars(text.data(), end, v);
        const bool too_large = (ec == std::errc::result_out_of_range && text[0] != '-') || (ec == std::errc() && v > hi);
        if (text.empty() || ec != std::errc() || ptr != end || v < min || v > hi)
          return "must be " + (too_large ? range : wanted) + " (got " + text + ")";
        return {};
      },
      max ? "INT in [" + std::to_string(min) + ", " + std::to_string(hi) + "]" : "INT >= " + std::to_string(min));
}

// A finite number in the interval from lo to hi; each end open or closed, absent = unbounded.
struct NumberRange {
  std::optional<double> lo, hi;
  bool lo_open = false, hi_open = false;
};

inline std::string number_range_words(const NumberRange& r) {
  auto num = [](double d) {
    std::string s = std::to_string(d);
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  };
  if (r.lo && r.hi)
    return "a number in " + std::string(r.lo_open ? "(" : "[") + num(*r.lo) + ", " + num(*r.hi) + (r.hi_open ? ")" : "]");
  if (r.lo) return std::string("a number ") + (r.lo_open ? "> " : ">= ") + num(*r.lo);
  if (r.hi) return std::string("a number ") + (r.hi_open ? "< " : "<= ") + num(*r.hi);
  return "a finite number";
}

inline CLI::Validator number_option(const NumberRange& r) {
  const std::string wanted = number_range_words(r);
  return CLI::Validator(
      [r, wanted](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const double v = text.empty() ? NAN : std::strtod(text.c_str(), &end);
        const bool ok = !text.empty() && end == text.c_str() + text.size() && std::isfinite(v) &&
                        (!r.lo || (r.lo_open ? v > *r.lo : v >= *r.lo)) && (!r.hi || (r.hi_open ? v < *r.hi : v <= *r.hi));
        return ok ? std::string() : "must be " + wanted + " (got " + text + ")";
      },
      "NUMBER: " + wanted);
}

inline NumberRange any_number() { return {std::nullopt, std::nullopt, false, false}; }
inline NumberRange at_least(double lo) { return {lo, std::nullopt, false, false}; }
inline NumberRange above(double lo) { return {lo, std::nullopt, true, false}; }
inline NumberRange at_most(double hi) { return {std::nullopt, hi, false, false}; }
// [lo, hi], or (lo, hi] when lo_open.
inline NumberRange between(double lo, double hi, bool lo_open = false) { return {lo, hi, lo_open, false}; }

}  // namespace ninfer::cli
