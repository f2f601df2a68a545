#include "text/integer_ranges.h"

#include "text/ir_builder.h"

#include <string>
#include <vector>

namespace ninfer::text {
namespace {

using grammar::CodepointRange;
using grammar::Expr;
using grammar::ExprKind;
using grammar::Grammar;

int32_t digit_class(Grammar& g, char lo, char hi) {
  return ir::char_class(g, {CodepointRange{static_cast<uint32_t>(lo), static_cast<uint32_t>(hi)}});
}
int32_t literal(Grammar& g, const std::string& s) { return ir::literal(g, s); }
int32_t seq(Grammar& g, std::vector<int32_t> items) { return ir::seq(g, std::move(items)); }
int32_t choice(Grammar& g, std::vector<int32_t> items) { return ir::choice(g, std::move(items)); }
int32_t repeat(Grammar& g, int32_t item, uint32_t min, uint32_t max) { return ir::repeat(g, item, min, max); }

// Same-length digit strings x <= y.
int32_t same_length(Grammar& g, const std::string& x, const std::string& y) {
  size_t p = 0;
  while (p < x.size() && x[p] == y[p]) ++p;
  if (p == x.size()) return literal(g, x);
  std::vector<int32_t> prefix;
  if (p) prefix.push_back(literal(g, x.substr(0, p)));
  const std::string xs = x.substr(p + 1), ys = y.substr(p + 1);
  const size_t rest = xs.size();
  if (rest == 0) {
    prefix.push_back(digit_class(g, x[p], y[p]));
    return seq(g, prefix);
  }
  const bool x_zeros = xs.find_first_not_of('0') == std::string::npos;
  const bool y_nines = ys.find_first_not_of('9') == std::string::npos;
  std::vector<int32_t> alts;
  char mid_lo = x[p] + 1, mid_hi = y[p] - 1;
  if (x_zeros) mid_lo = x[p];
  else alts.push_back(seq(g, {literal(g, std::string(1, x[p])), same_length(g, xs, std::string(rest, '9'))}));
  if (y_nines) mid_hi = y[p];
  if (mid_lo <= mid_hi) alts.push_back(seq(g, {digit_class(g, mid_lo, mid_hi), repeat(g, digit_class(g, '0', '9'), rest, rest)}));
  if (!y_nines) alts.push_back(seq(g, {literal(g, std::string(1, y[p])), same_length(g, std::string(rest, '0'), ys)}));
  prefix.push_back(choice(g, alts));
  return seq(g, prefix);
}

// Non-negative magnitudes [a, b], b absent = unbounded.
int32_t magnitude_range(Grammar& g, uint64_t a, std::optional<uint64_t> b) {
  std::vector<int32_t> alts;
  const std::string as = std::to_string(a);
  const size_t ka = as.size();
  const size_t kb = b ? std::to_string(*b).size() : ka;
  for (size_t k = ka; k <= kb; ++k) {
    std::string lo = k == ka ? as : "1" + std::string(k - 1, '0');
    std::string hi = (b && k == kb) ? std::to_string(*b) : std::string(k, '9');
    alts.push_back(same_length(g, lo, hi));
  }
  if (!b) {
    // Every number with more digits than `a`.
    alts.push_back(seq(g, {digit_class(g, '1', '9'), repeat(g, digit_class(g, '0', '9'), static_cast<uint32_t>(ka), grammar::kUnbounded)}));
  }
  return choice(g, alts);
}

uint64_t magnitude(int64_t v) { return v < 0 ? uint64_t(0) - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

}  // namespace

int32_t integer_range_expr(Grammar& g, std::optional<int64_t> lo, std::optional<int64_t> hi) {
  std::vector<int32_t> alts;
  // Negative part: [lo, min(hi, -1)] as "-" + magnitudes [max(1, |min(hi,-1)|), |lo|].
  if (!lo || *lo < 0) {
    if (!hi || *hi < 0) {
      const uint64_t small = hi ? magnitude(*hi) : 1;
      std::optional<uint64_t> large;
      if (lo) large = magnitude(*lo);
      alts.push_back(seq(g, {literal(g, "-"), magnitude_range(g, small, large)}));
    } else {
      std::optional<uint64_t> large;
      if (lo) large = magnitude(*lo);
      alts.push_back(seq(g, {literal(g, "-"), magnitude_range(g, 1, large)}));
    }
  }
  // Non-negative part.
  if (!hi || *hi >= 0) {
    const uint64_t a = lo && *lo > 0 ? static_cast<uint64_t>(*lo) : 0;
    std::optional<uint64_t> b;
    if (hi) b = static_cast<uint64_t>(*hi);
    alts.push_back(magnitude_range(g, a, b));
  }
  return choice(g, alts);
}

}  // namespace ninfer::text
