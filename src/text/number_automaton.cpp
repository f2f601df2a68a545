#include "text/number_automaton.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ninfer::text {
namespace {

// A bound as exact decimal digits: |value| = int_digits . frac_digits (no leading/trailing zeros
// beyond what the value needs; int_digits "0" for magnitudes below 1).
struct Decimal {
  bool negative = false;
  std::string int_digits;
  std::string frac_digits;
};

Decimal to_decimal(double v) {
  char buf[512];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed);
  std::string s(buf, res.ptr);
  Decimal d;
  if (!s.empty() && s[0] == '-') d.negative = true, s.erase(0, 1);
  size_t dot = s.find('.');
  d.int_digits = s.substr(0, dot);
  d.frac_digits = dot == std::string::npos ? "" : s.substr(dot + 1);
  while (!d.frac_digits.empty() && d.frac_digits.back() == '0') d.frac_digits.pop_back();
  if (d.int_digits.empty()) d.int_digits = "0";
  if (d.int_digits == "0" && d.frac_digits.empty()) d.negative = false;
  return d;
}

// Moore partition refinement, then drop states that cannot reach acceptance.
std::shared_ptr<const grammar::ByteAutomaton> minimise(
    const std::vector<std::vector<std::pair<uint8_t, uint32_t>>>& trans, const std::vector<uint8_t>& accepting) {
  const size_t n = trans.size();
  // Live states (can reach acceptance).
  std::vector<uint8_t> live(accepting.begin(), accepting.end());
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < n; ++i) {
      if (live[i]) continue;
      for (auto [c, t] : trans[i])
        if (live[t]) { live[i] = 1; changed = true; break; }
    }
  }
  if (!live[0]) return nullptr;
  std::vector<uint32_t> cls(n);
  for (size_t i = 0; i < n; ++i) cls[i] = live[i] ? (accepting[i] ? 1 : 0) : 2;
  // A state's signature: its class, then (byte, class of target) per live edge; hashed, since
  // chains of a few hundred states (tiny bounds) take as many rounds.
  struct SigHash {
    size_t operator()(const std::vector<uint32_t>& v) const {
      uint64_t h = 1469598103934665603ull;
      for (uint32_t x : v) h = (h ^ x) * 1099511628211ull;
      return static_cast<size_t>(h);
    }
  };
  size_t classes = std::set<uint32_t>(cls.begin(), cls.end()).size();
  std::vector<uint32_t> sig;
  for (;;) {
    std::unordered_map<std::vector<uint32_t>, uint32_t, SigHash> sig_ids;
    sig_ids.reserve(n);
    std::vector<uint32_t> next(n);
    for (size_t i = 0; i < n; ++i) {
      sig.assign(1, cls[i]);
      for (auto [c, t] : trans[i])
        if (live[t]) sig.push_back(c), sig.push_back(cls[t]);
      auto it = sig_ids.find(sig);
      if (it == sig_ids.end()) it = sig_ids.emplace(sig, static_cast<uint32_t>(sig_ids.size())).first;
      next[i] = it->second;
    }
    const bool stable = sig_ids.size() == classes;
    classes = sig_ids.size();
    cls = std::move(next);
    if (stable) break;
  }
  // Renumber with the start state first.
  std::map<uint32_t, uint32_t> renum;
  renum.emplace(cls[0], 0);
  for (size_t i = 0; i < n; ++i)
    if (live[i]) renum.emplace(cls[i], static_cast<uint32_t>(renum.size()));
  auto a = std::make_shared<grammar::ByteAutomaton>();
  a->edges.resize(renum.size());
  a->accepting.assign(renum.size(), 0);
  std::vector<uint8_t> done(renum.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    if (!live[i]) continue;
    const uint32_t id = renum[cls[i]];
    if (done[id]) continue;
    done[id] = 1;
    a->accepting[id] = accepting[i];
    for (auto [c, t] : trans[i])
      if (live[t]) a->edges[id].push_back({c, c, renum[cls[t]]});
  }
  a->start = 0;
  return a;
}

// The minimal automaton of a scanner: explores every state reachable from a default-constructed S over
// `alphabet` through builder.step(), then minimises with builder.accepts() as acceptance.
template <class S, class B>
std::shared_ptr<const grammar::ByteAutomaton> explore(const B& builder, const char* alphabet) {
  std::map<S, uint32_t> ids;
  std::vector<S> states;
  auto id_of = [&](const S& st) {
    auto [it, fresh] = ids.emplace(st, static_cast<uint32_t>(states.size()));
    if (fresh) {
      if (states.size() > 200000) throw std::invalid_argument("number automaton too large");
      states.push_back(st);
    }
    return it->second;
  };
  id_of(S{});
  std::vector<std::vector<std::pair<uint8_t, uint32_t>>> trans;
  for (size_t i = 0; i < states.size(); ++i) {
    trans.emplace_back();
    for (const char* c = alphabet; *c; ++c) {
      S next;
      if (builder.step(states[i], *c, next)) {
        const uint32_t t = id_of(next);
        trans[i].emplace_back(static_cast<uint8_t>(*c), t);
      }
    }
  }
  std::vector<uint8_t> accepting(states.size());
  for (size_t i = 0; i < states.size(); ++i) accepting[i] = builder.accepts(states[i]);
  return minimise(trans, accepting);
}

enum Cmp : uint8_t { kLess = 0, kEqual = 1, kGreater = 2 };

// Integer text (NumberSpec::integer): plain digits, as the unbounded `integer` language.
// Scanner state. Phases: 0 start, 1 after '-', 2 "0", 3 digits.
struct State {
  uint8_t phase = 0;
  bool negative = false;
  uint16_t int_len = 0;      // integer digits read (capped)
  uint8_t lex[2] = {kEqual, kEqual};  // per bound: lexicographic status over aligned digits so far
  uint8_t resolved[2] = {kEqual, kEqual};  // per bound after the integer part (magnitude comparison)
  uint8_t sig = 0;           // significant digits so far (capped)
  bool seen_nonzero = false;
  uint32_t rem = 0;          // value mod multiple_of
  auto key() const {
    return std::make_tuple(phase, negative, int_len, lex[0], lex[1], resolved[0], resolved[1], sig, seen_nonzero, rem);
  }
  bool operator<(const State& o) const { return key() < o.key(); }
};

class IntegerBuilder {
 public:
  explicit IntegerBuilder(const NumberSpec& spec) {
    const double kCap = 1e15;
    // Bounds beyond ±1e15 are replaced by ±1e15 (exclusive): a sound subset that keeps texts short.
    NumberSpec s = spec;
    if (!s.upper || s.upper->value > kCap) s.upper = NumberBound{kCap, true};
    if (!s.lower || s.lower->value < -kCap) s.lower = NumberBound{-kCap, true};
    bounds_[0] = to_decimal(s.lower->value);
    bounds_[1] = to_decimal(s.upper->value);
    exclusive_[0] = s.lower->exclusive;
    exclusive_[1] = s.upper->exclusive;
    // Inclusive bounds need no digit cap (rounding to binary64 is monotonic); an exclusive bound
    // given by the schema does (15 digits: distinct decimals stay distinct doubles). The ±1e15
    // clamp is our own restriction: landing on it after rounding is still inside the schema's bound.
    const bool user_exclusive = (spec.lower && spec.lower->exclusive && spec.lower->value >= -kCap) ||
                                (spec.upper && spec.upper->exclusive && spec.upper->value <= kCap);
    max_sig_ = user_exclusive ? 15 : 255;
    mod_ = spec.multiple_of;
    if (mod_ > 100000) throw std::invalid_argument("multipleOf too large");
  }

  std::shared_ptr<const grammar::ByteAutomaton> build() const { return explore<State>(*this, "-0123456789"); }

 private:
  template <class S, class B>
  friend std::shared_ptr<const grammar::ByteAutomaton> explore(const B& builder, const char* alphabet);
  Decimal bounds_[2];
  bool exclusive_[2];
  uint8_t max_sig_;  // 255 = no cap
  uint64_t mod_;

  bool step(const State& s, char c, State& n) const {
    n = s;
    const bool digit = c >= '0' && c <= '9';
    switch (s.phase) {
      case 0:
        if (c == '-') { n.phase = 1; n.negative = true; return true; }
        [[fallthrough]];
      case 1:
        if (!digit) return false;
        n.phase = c == '0' ? 2 : 3;
        return int_digit(n, c);
      case 2:
        return false;
      case 3:
        return digit && int_digit(n, c);
    }
    return false;
  }

  bool count_sig(State& n, char c) const {
    if (c != '0' || n.seen_nonzero) {
      n.seen_nonzero = true;
      if (max_sig_ == 255) return true;  // uncapped: no need to count (keeps the automaton small)
      if (++n.sig > max_sig_) return false;
    }
    return true;
  }

  bool int_digit(State& n, char c) const {
    if (!count_sig(n, c)) return false;
    if (mod_) n.rem = static_cast<uint32_t>((uint64_t(n.rem) * 10 + uint64_t(c - '0')) % mod_);
    for (int b = 0; b < 2; ++b) {
      const std::string& d = bounds_[b].int_digits;
      if (n.int_len < d.size() && n.lex[b] == kEqual) n.lex[b] = c < d[n.int_len] ? kLess : c > d[n.int_len] ? kGreater : kEqual;
    }
    n.int_len = static_cast<uint16_t>(std::min<size_t>(n.int_len + 1, 40));
    // Integer parts longer than both bounds' can never come back in range; cut them early.
    if (n.int_len > std::max(bounds_[0].int_digits.size(), bounds_[1].int_digits.size()) + 1) return false;
    return true;
  }

  // Magnitude comparison of the integer part against each bound's integer part.
  void resolve(State& n) const {
    for (int b = 0; b < 2; ++b) {
      const size_t len = bounds_[b].int_digits.size();
      n.resolved[b] = n.int_len > len ? uint8_t{kGreater} : n.int_len < len ? uint8_t{kLess} : n.lex[b];
    }
  }

  // Magnitude comparison at the end of the text.
  Cmp final_cmp(const State& s, int b) const {
    State t = s;
    resolve(t);
    if (t.resolved[b] != kEqual) return static_cast<Cmp>(t.resolved[b]);
    // Equal integer parts: a bound with fraction digits is larger.
    return bounds_[b].frac_digits.empty() ? kEqual : kLess;
  }

  bool accepts(const State& s) const {
    if (s.phase != 2 && s.phase != 3) return false;
    if (mod_ && s.rem != 0) return false;
    const bool zero = !s.seen_nonzero;
    if (s.negative && zero) return false;  // no "-0"
    // value >= lower, value <= upper, with signs.
    auto ge = [&](int b) {  // value vs bound b: returns -1, 0, 1
      const Decimal& d = bounds_[b];
      const bool bzero = d.int_digits == "0" && d.frac_digits.empty();
      const bool vneg = s.negative && !zero, bneg = d.negative && !bzero;
      if (vneg != bneg) return vneg ? -1 : 1;
      const Cmp m = final_cmp(s, b);
      const int mag = m == kLess ? -1 : m == kGreater ? 1 : 0;
      return vneg ? -mag : mag;
    };
    const int lo = ge(0), hi = ge(1);
    if (lo < 0 || (lo == 0 && exclusive_[0])) return false;
    if (hi > 0 || (hi == 0 && exclusive_[1])) return false;
    return true;
  }
};


// A bound of a (non-integer) number as  sign · 0.D · 10^q  with D its significant digits (no
// leading or trailing zeros), or zero.
struct ScaledBound {
  bool zero = true;
  bool negative = false;
  int q = 0;
  std::string digits;
  bool exclusive = false;
};

ScaledBound scaled_bound(double v, bool exclusive) {
  ScaledBound b;
  b.exclusive = exclusive;
  if (v == 0) return b;
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);  // shortest round trip
  const std::string s(buf, res.ptr);
  const size_t e = s.find('e');
  b.zero = false;
  b.negative = s[0] == '-';
  for (char c : s.substr(0, e))
    if (c >= '0' && c <= '9') b.digits.push_back(c);
  while (b.digits.size() > 1 && b.digits.back() == '0') b.digits.pop_back();
  b.q = std::stoi(s.substr(e + 1)) + 1;  // d.ddd·10^x = 0.dddd·10^(x+1)
  return b;
}

// Scanner of -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)? with the value v = ±0.M·10^p, where
// M is the mantissa's significant digit string and p = pos ± exponent (pos: the mantissa's own
// position, its integer digits or minus the zeros after "0."). The comparison with a bound needs
// only the signs, p against q, and M against D lexicographically: M is compared digit by digit as
// it is read, and p is known once the exponent is.
// Phases: 0 start, 1 after '-', 2 mantissa "0", 3 integer digits, 4 after '.', 5 fraction,
// 6 after 'e', 7 after the exponent's sign, 8 exponent digits.
struct DecState {
  uint8_t phase = 0;
  bool negative = false;
  bool nonzero = false;    // a non-zero mantissa digit was read
  int16_t pos = 0;         // mantissa position (see above), saturated at far_pos_
  int8_t lex[2] = {0, 0};  // per bound: >= 0 equal so far, that many digits of D matched; or kLex*
  uint8_t sig = 0;         // digits since the first significant one, up to the digit cap (0 when uncapped)
  bool exp_negative = false;
  int16_t exp = 0;         // exponent value read so far
  uint8_t fixed = 0;       // exponent states whose outcome no longer depends on the exponent: kFixed*
  bool no_exponent = false;  // too many zeros after "0." for an exponent
  auto key() const {
    return std::make_tuple(phase, negative, nonzero, pos, lex[0], lex[1], sig, exp_negative, exp, fixed, no_exponent);
  }
  bool operator<(const DecState& o) const { return key() < o.key(); }
};

constexpr int8_t kLexLess = -1, kLexGreater = -2, kLexEqual = -3;  // kLexEqual: final, all of D matched
// kFixedBelow/Above: p is past every relevant position (the exponent is still counted against its
// limit); kFixedAccept/Reject: no further exponent digit fits under the limit, only the outcome is left.
constexpr uint8_t kFixedBelow = 1, kFixedAbove = 2, kFixedAccept = 3, kFixedReject = 4;

constexpr int kPlainIntegerDigits = kBoundedNumberIntegerDigits;
constexpr int kExpIntegerDigits = kBoundedNumberExponentIntegerDigits;
constexpr int kExpZeros = kBoundedNumberExponentZeros;
constexpr uint8_t kExclusiveDigits = kBoundedNumberExclusiveDigits;
constexpr int kFloorPos = kBoundedNumberFloorExponent + 1;  // |v| >= 10^f  <=>  p >= f + 1
constexpr int kImplicitPos = 309;                           // 1e308 = 0.1·10^309

class DecimalBuilder {
 public:
  explicit DecimalBuilder(const NumberSpec& spec) {
    // A missing side is ±1e308: texts stay finite binary64 (1e308 < DBL_MAX; rounding is monotonic).
    bounds_[0] = scaled_bound(spec.lower ? spec.lower->value : -1e308, spec.lower && spec.lower->exclusive);
    bounds_[1] = scaled_bound(spec.upper ? spec.upper->value : 1e308, spec.upper && spec.upper->exclusive);
    const bool exclusive = bounds_[0].exclusive || bounds_[1].exclusive;
    digit_cap_ = exclusive ? kExclusiveDigits : 0;
    floor_ = exclusive;  // below 1e-307 (subnormal) distinct 15-digit decimals may round to one double, or to 0
    exp_limit_ = bounded_number_exponent_limit(spec.lower ? spec.lower->value : 0, spec.upper ? spec.upper->value : 0);
    int zeros = kBoundedNumberExclusiveZeros;
    for (int b = 0; b < 2; ++b)
      if (!bounds_[b].zero && (b == 0 ? spec.lower : spec.upper)) {
        relevant_.push_back(bounds_[b].q);
        zeros = std::max(zeros, 1 - bounds_[b].q);
      }
    // Zeros after "0." without an exponent: any number with inclusive bounds; with an exclusive
    // bound only as far as the bounds need (the floor then costs no chain of 307 states).
    max_zeros_ = exclusive ? zeros : INT16_MAX;
    // The implicit ±1e308 and the floor matter only where the exponent's limit can reach them.
    if (kExpIntegerDigits + exp_limit_ >= kImplicitPos) relevant_.push_back(kImplicitPos);
    if (floor_ && std::min(-kExpZeros - exp_limit_, -max_zeros_) < kFloorPos) relevant_.push_back(kFloorPos);
    min_relevant_ = relevant_.empty() ? 0 : *std::min_element(relevant_.begin(), relevant_.end());
    max_relevant_ = relevant_.empty() ? 0 : *std::max_element(relevant_.begin(), relevant_.end());
    // Stand-ins for the positions below and above every relevant one (inside the reachable range).
    below_all_ = relevant_.empty() ? -(kExpZeros + 1) : min_relevant_ - 1;
    above_all_ = relevant_.empty() ? 0 : max_relevant_ + 1;
    far_pos_ = -(kExpZeros + 1);
    if (!relevant_.empty()) far_pos_ = std::min(far_pos_, min_relevant_ - 1);
    if (exclusive) far_pos_ = std::min(far_pos_, -(max_zeros_ + 1));
  }

  std::shared_ptr<const grammar::ByteAutomaton> build() const { return explore<DecState>(*this, "+-.0123456789Ee"); }

 private:
  template <class S, class B>
  friend std::shared_ptr<const grammar::ByteAutomaton> explore(const B& builder, const char* alphabet);
  ScaledBound bounds_[2];
  uint8_t digit_cap_ = 0;  // 0 = none
  bool floor_ = false;
  int exp_limit_ = 0;
  int max_zeros_ = 0;          // zeros allowed between "0." and the first significant digit
  int far_pos_ = 0;            // the mantissa position saturates here
  std::vector<int> relevant_;  // positions p at which some comparison changes
  int min_relevant_ = 0, max_relevant_ = 0;
  int below_all_ = 0, above_all_ = 0;

  bool step(const DecState& s, char c, DecState& n) const {
    n = s;
    const bool digit = c >= '0' && c <= '9';
    const bool e = c == 'e' || c == 'E';
    switch (s.phase) {
      case 0:
        if (c == '-') { n.phase = 1; n.negative = true; return true; }
        [[fallthrough]];
      case 1:
        if (!digit) return false;
        if (c == '0') { n.phase = 2; return true; }
        n.phase = 3;
        n.pos = 1;
        return significant_digit(n, c);
      case 2:
        if (c == '.') { n.phase = 4; return true; }
        if (e) return start_exponent(n);
        return false;
      case 3:
        if (digit) {
          if (++n.pos > kPlainIntegerDigits) return false;
          return significant_digit(n, c);
        }
        if (c == '.') { n.phase = 4; return true; }
        if (e) return start_exponent(n);
        return false;
      case 4:
      case 5:
        if (e && s.phase == 5) return start_exponent(n);
        if (!digit) return false;
        n.phase = 5;
        if (!n.nonzero && c == '0') {  // a zero after "0." (or "0.00…")
          if (n.pos > far_pos_) --n.pos;
          return true;
        }
        if (!n.nonzero && n.pos < -max_zeros_) return false;
        if (!significant_digit(n, c)) return false;
        // Too many zeros after the point for an exponent: the position is final, and only the
        // bounds at this position still need their digit comparison.
        if (n.pos < -kExpZeros) {
          for (int b = 0; b < 2; ++b)
            if (bounds_[b].zero || bounds_[b].q != n.pos) n.lex[b] = 0;
          n.pos = position_class(n.pos);
          n.no_exponent = true;
        }
        return true;
      case 6:
        if (c == '+' || c == '-') { n.phase = 7; n.exp_negative = c == '-'; return true; }
        [[fallthrough]];
      case 7:
        if (!digit) return false;
        n.phase = 8;
        return exponent_digit(n, c);
      case 8:
        if (!digit) return false;
        return exponent_digit(n, c);
    }
    return false;
  }

  // A final position stands for every position between the same two relevant ones.
  int16_t position_class(int16_t pos) const {
    int below = INT16_MIN;
    for (int r : relevant_) {
      if (r == pos) return pos;
      if (r < pos) below = std::max(below, r);
    }
    return static_cast<int16_t>(below == INT16_MIN ? below_all_ : below + 1);
  }

  // A mantissa digit at or after the first non-zero one.
  bool significant_digit(DecState& n, char c) const {
    if (c != '0') {
      if (digit_cap_ && n.sig >= digit_cap_) return false;
      n.nonzero = true;
    }
    if (digit_cap_) n.sig = static_cast<uint8_t>(std::min<int>(digit_cap_, n.sig + 1));
    for (int b = 0; b < 2; ++b) {
      if (bounds_[b].zero || n.lex[b] < 0) continue;
      const std::string& d = bounds_[b].digits;
      const char bd = static_cast<size_t>(n.lex[b]) < d.size() ? d[n.lex[b]] : '0';
      n.lex[b] = c < bd ? kLexLess : c > bd ? kLexGreater : static_cast<int8_t>(std::min<size_t>(n.lex[b] + 1, d.size()));
    }
    return true;
  }

  // The mantissa ends: its digit comparisons become final.
  bool start_exponent(DecState& n) const {
    if (n.nonzero && (n.no_exponent || n.pos > kExpIntegerDigits || n.pos < -kExpZeros)) return false;
    n.phase = 6;
    n.sig = 0;
    finish_mantissa(n);
    if (!n.nonzero) n = zero_exponent_state(n);
    return true;
  }

  void finish_mantissa(DecState& n) const {
    for (int b = 0; b < 2; ++b) {
      if (bounds_[b].zero) continue;
      if (n.lex[b] >= 0)
        n.lex[b] = static_cast<size_t>(n.lex[b]) < bounds_[b].digits.size() ? kLexLess : kLexEqual;
    }
  }

  // A zero mantissa is zero whatever the exponent: one state per phase (and exponent value, for its limit).
  static DecState zero_exponent_state(const DecState& s) {
    DecState z;
    z.phase = s.phase;
    z.exp = s.exp;
    return z;
  }

  bool exponent_digit(DecState& n, char c) const {
    if (n.fixed == kFixedAccept || n.fixed == kFixedReject) return false;  // see below
    n.exp = static_cast<int16_t>(n.exp * 10 + (c - '0'));
    if (n.exp > exp_limit_) return false;
    if (!n.nonzero) n = zero_exponent_state(n);
    // More digits only move p further the same way: past every relevant position the outcome is fixed.
    if (n.nonzero && !n.fixed) {
      const int p = n.pos + (n.exp_negative ? -n.exp : n.exp);
      if (relevant_.empty() || (n.exp_negative ? p < min_relevant_ : p > max_relevant_)) {
        n.fixed = n.exp_negative ? kFixedBelow : kFixedAbove;
        n.pos = 0;
        n.lex[0] = n.lex[1] = 0;
      }
    }
    // No further digit fits under the limit: only whether the text may end here is left.
    if (n.exp * 10 > exp_limit_) {
      const bool ok = accepts(n);
      n = DecState{};
      n.phase = 8;
      n.fixed = ok ? kFixedAccept : kFixedReject;
    }
    return true;
  }

  bool accepts(const DecState& s) const {
    if (s.phase != 2 && s.phase != 3 && s.phase != 5 && s.phase != 8) return false;
    if (s.fixed == kFixedAccept || s.fixed == kFixedReject) return s.fixed == kFixedAccept;
    DecState t = s;
    if (s.phase != 8) finish_mantissa(t);
    int p = t.pos;
    if (t.fixed == kFixedBelow) p = below_all_;
    else if (t.fixed == kFixedAbove) p = above_all_;
    else if (s.phase == 8) p += t.exp_negative ? -t.exp : t.exp;
    if (t.nonzero && floor_ && p < kFloorPos) return false;
    // Sign of (value - bound): -1, 0, 1.
    auto cmp = [&](int b) {
      const ScaledBound& d = bounds_[b];
      const int vs = t.nonzero ? (t.negative ? -1 : 1) : 0;
      const int bs = d.zero ? 0 : (d.negative ? -1 : 1);
      if (vs != bs || vs == 0) return vs < bs ? -1 : vs > bs ? 1 : 0;
      const int mag = p != d.q ? (p < d.q ? -1 : 1) : t.lex[b] == kLexLess ? -1 : t.lex[b] == kLexGreater ? 1 : 0;
      return vs * mag;
    };
    const int lo = cmp(0), hi = cmp(1);
    if (lo < 0 || (lo == 0 && bounds_[0].exclusive)) return false;
    if (hi > 0 || (hi == 0 && bounds_[1].exclusive)) return false;
    return true;
  }
};

}  // namespace

int bounded_number_exponent_limit(double lower, double upper) {
  int limit = kBoundedNumberExponentLimit;
  for (double v : {lower, upper})
    if (v != 0 && std::isfinite(v)) limit = std::max(limit, std::abs(scaled_bound(v, false).q) + 20);
  return limit;
}

std::shared_ptr<const grammar::ByteAutomaton> number_automaton(const NumberSpec& spec) {
  if (!spec.integer) return DecimalBuilder(spec).build();
  return IntegerBuilder(spec).build();
}

}  // namespace ninfer::text
