#include "text/number_spellings.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace ninfer::text {
namespace {

constexpr int64_t kMaxPosition = 400;  // beyond binary64's decimal exponents (about ±324)

struct Decimal {
  bool negative = false;
  std::string digits;  // significant digits, no leading or trailing zero; empty = zero
  int64_t point = 0;   // the value is 0.digits x 10^point
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

Decimal parse_number(std::string_view t) {
  const auto bad = [&] { return std::invalid_argument("not a JSON number: " + std::string(t)); };
  Decimal d;
  size_t i = 0;
  if (i < t.size() && t[i] == '-') d.negative = true, ++i;
  const size_t int_start = i;
  while (i < t.size() && is_digit(t[i])) ++i;
  const size_t int_len = i - int_start;
  if (int_len == 0 || (int_len > 1 && t[int_start] == '0')) throw bad();
  std::string all(t.substr(int_start, int_len));
  if (i < t.size() && t[i] == '.') {
    const size_t f = ++i;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == f) throw bad();
    all += t.substr(f, i - f);
  }
  int64_t exp = 0;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) neg = t[i] == '-', ++i;
    const size_t e = i;
    while (i < t.size() && is_digit(t[i])) {
      exp = std::min<int64_t>(exp * 10 + (t[i] - '0'), int64_t(1) << 40);
      ++i;
    }
    if (i == e) throw bad();
    if (neg) exp = -exp;
  }
  if (i != t.size()) throw bad();
  const size_t first = all.find_first_not_of('0');
  if (first == std::string::npos) return d;  // zero
  const size_t last = all.find_last_not_of('0');
  d.digits = all.substr(first, last - first + 1);
  d.point = static_cast<int64_t>(int_len) - static_cast<int64_t>(first) + exp;
  if (d.point > kMaxPosition || d.point < -kMaxPosition) throw std::invalid_argument("number exponent out of range: " + std::string(t));
  return d;
}

}  // namespace

uint32_t NumberSpellings::state(bool accepting) {
  a_.edges.emplace_back();
  a_.accepting.push_back(accepting ? 1 : 0);
  return a_.num_states() - 1;
}

void NumberSpellings::edge(uint32_t from, uint8_t lo, uint8_t hi, uint32_t to) { a_.edges[from].push_back({lo, hi, to}); }

uint32_t NumberSpellings::exponent(int64_t e) {
  auto it = exponent_tail_.find(e);
  if (it != exponent_tail_.end()) return it->second;
  const uint32_t x = state(false);
  exponent_tail_.emplace(e, x);
  if (e == 0) {
    // [+-]? 0+
    const uint32_t sign = state(false), zeros = state(true);
    edge(x, '+', '+', sign), edge(x, '-', '-', sign);
    edge(x, '0', '0', zeros), edge(sign, '0', '0', zeros), edge(zeros, '0', '0', zeros);
    return x;
  }
  // sign (required when negative), leading zeros, then the digits of |e|.
  const std::string digits = std::to_string(e < 0 ? -e : e);
  const uint32_t zeros = state(false);
  if (e < 0) {
    edge(x, '-', '-', zeros);
  } else {
    edge(x, '+', '+', zeros);
    edge(x, '0', '0', zeros);
  }
  edge(zeros, '0', '0', zeros);
  uint32_t cur = state(false);
  edge(zeros, static_cast<uint8_t>(digits[0]), static_cast<uint8_t>(digits[0]), cur);
  if (e > 0) edge(x, static_cast<uint8_t>(digits[0]), static_cast<uint8_t>(digits[0]), cur);
  for (size_t k = 1; k < digits.size(); ++k) {
    const uint32_t next = state(false);
    edge(cur, static_cast<uint8_t>(digits[k]), static_cast<uint8_t>(digits[k]), next);
    cur = next;
  }
  a_.accepting[cur] = 1;
  return x;
}

uint32_t NumberSpellings::mantissa_end(int64_t e) {
  auto it = mantissa_end_.find(e);
  if (it != mantissa_end_.end()) return it->second;
  const uint32_t f = state(e == 0);
  mantissa_end_.emplace(e, f);
  edge(f, '0', '0', f);
  const uint32_t x = exponent(e);
  edge(f, 'E', 'E', x), edge(f, 'e', 'e', x);
  return f;
}

uint32_t NumberSpellings::zero_fraction(int64_t e) {
  auto it = zero_fraction_.find(e);
  if (it != zero_fraction_.end()) return it->second;
  const uint32_t z = state(false);
  zero_fraction_.emplace(e, z);
  edge(z, '0', '0', mantissa_end(e));
  return z;
}

void NumberSpellings::add_zero(uint32_t from) {
  if (zero_exponent_ == 0) {
    // [+-]? [0-9]+ : any exponent keeps zero zero.
    zero_exponent_ = state(false);
    const uint32_t sign = state(false), digits = state(true);
    edge(zero_exponent_, '+', '+', sign), edge(zero_exponent_, '-', '-', sign);
    edge(zero_exponent_, '0', '9', digits), edge(sign, '0', '9', digits), edge(digits, '0', '9', digits);
  }
  const uint32_t minus = state(false), zero = state(true), point = state(false), frac = state(true);
  edge(from, '-', '-', minus);
  edge(from, '0', '0', zero), edge(minus, '0', '0', zero);
  edge(zero, '.', '.', point), edge(point, '0', '0', frac), edge(frac, '0', '0', frac);
  for (uint32_t s : {zero, frac}) edge(s, 'E', 'E', zero_exponent_), edge(s, 'e', 'e', zero_exponent_);
}

void NumberSpellings::add(uint32_t from, std::string_view text, int shift) {
  const Decimal d = parse_number(text);
  if (d.digits.empty()) return add_zero(from);
  uint32_t start = from;
  if (d.negative) {
    start = state(false);
    edge(from, '-', '-', start);
  }
  const int64_t n = static_cast<int64_t>(d.digits.size()), p = d.point;
  const int64_t rlo = std::min<int64_t>(1, p) - shift, rhi = std::max<int64_t>(n, p) + shift;
  auto digit = [&](int64_t k) { return static_cast<uint8_t>(d.digits[static_cast<size_t>(k)]); };
  // A fraction that must start with `first` digits of D from index k, then the zeros loop.
  auto fraction = [&](uint32_t s, int64_t k, int64_t e) {
    uint32_t cur = s;
    for (; k + 1 < n; ++k) {
      const uint32_t next = state(false);
      edge(cur, digit(k), digit(k), next);
      cur = next;
    }
    const uint32_t end = mantissa_end(e);
    edge(cur, digit(n - 1), digit(n - 1), end);
  };
  // Integer part D[0..r) (r <= n) or D 0^(r-n): the point sits at r.
  uint32_t cur = start;
  for (int64_t r = 1; r <= rhi; ++r) {
    const uint32_t next = state(false);
    const uint8_t c = r <= n ? digit(r - 1) : '0';
    edge(cur, c, c, next);
    cur = next;
    const int64_t e = p - r;
    if (r < n) {
      const uint32_t point = state(false);
      edge(cur, '.', '.', point);
      fraction(point, r, e);
    } else {
      // All significant digits written: the number may end, take an exponent, or a zero fraction.
      a_.accepting[cur] = e == 0 ? 1 : 0;
      const uint32_t x = exponent(e);
      edge(cur, 'E', 'E', x), edge(cur, 'e', 'e', x);
      edge(cur, '.', '.', zero_fraction(e));
    }
  }
  // "0." then zeros: the point sits at r = -zeros.
  if (rlo <= 0) {
    const uint32_t zero = state(false);
    edge(start, '0', '0', zero);
    uint32_t w = state(false);
    edge(zero, '.', '.', w);
    for (int64_t r = 0; r >= rlo && r >= -kMaxPosition; --r) {
      fraction(w, 0, p - r);
      if (r - 1 < rlo) break;
      const uint32_t next = state(false);
      edge(w, '0', '0', next);
      w = next;
    }
  }
}

}  // namespace ninfer::text
