#include "text/number_automaton.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
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

enum Cmp : uint8_t { kLess = 0, kEqual = 1, kGreater = 2 };

// Scanner state. Phases: 0 start, 1 after '-', 2 int "0", 3 int digits, 4 after '.', 5 fraction.
struct State {
  uint8_t phase = 0;
  bool negative = false;
  uint16_t int_len = 0;      // integer digits read (capped)
  uint8_t lex[2] = {kEqual, kEqual};  // per bound: lexicographic status over aligned digits so far
  uint8_t resolved[2] = {kEqual, kEqual};  // per bound after the integer part (magnitude comparison)
  uint16_t frac_pos = 0;     // fraction digits read (capped)
  uint8_t sig = 0;           // significant digits so far (capped)
  bool seen_nonzero = false;
  uint32_t rem = 0;          // value mod multiple_of
  auto key() const {
    return std::make_tuple(phase, negative, int_len, lex[0], lex[1], resolved[0], resolved[1], frac_pos, sig,
                           seen_nonzero, rem);
  }
  bool operator<(const State& o) const { return key() < o.key(); }
};

class Builder {
 public:
  explicit Builder(const NumberSpec& spec) : spec_(spec) {
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
    mod_ = spec.integer ? spec.multiple_of : 0;
    if (mod_ > 100000) throw std::invalid_argument("multipleOf too large");
  }

  std::shared_ptr<const grammar::ByteAutomaton> build() {
    std::map<State, uint32_t> ids;
    std::vector<State> states;
    auto id_of = [&](const State& st) {
      auto [it, fresh] = ids.emplace(st, static_cast<uint32_t>(states.size()));
      if (fresh) {
        if (states.size() > 200000) throw std::invalid_argument("number automaton too large");
        states.push_back(st);
      }
      return it->second;
    };
    id_of(State{});
    static const char kAlphabet[] = "-.0123456789";
    std::vector<std::vector<std::pair<uint8_t, uint32_t>>> trans;
    for (size_t i = 0; i < states.size(); ++i) {
      trans.emplace_back();
      for (const char* c = kAlphabet; *c; ++c) {
        State next;
        if (step(states[i], *c, next)) {
          uint32_t t = id_of(next);
          trans[i].emplace_back(static_cast<uint8_t>(*c), t);
        }
      }
    }
    std::vector<uint8_t> accepting(states.size());
    for (size_t i = 0; i < states.size(); ++i) accepting[i] = accepts(states[i]);
    return minimise(trans, accepting);
  }

 private:
  const NumberSpec& spec_;
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
        if (c == '.' && !spec_.integer) { n.phase = 4; resolve(n); return true; }
        return false;
      case 3:
        if (digit) return int_digit(n, c);
        if (c == '.' && !spec_.integer) { n.phase = 4; resolve(n); return true; }
        return false;
      case 4:
      case 5:
        if (!digit) return false;
        n.phase = 5;
        return frac_digit(n, c);
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

  bool frac_digit(State& n, char c) const {
    if (!count_sig(n, c)) return false;
    for (int b = 0; b < 2; ++b) {
      if (n.resolved[b] != kEqual) continue;
      const std::string& f = bounds_[b].frac_digits;
      const char bd = n.frac_pos < f.size() ? f[n.frac_pos] : '0';
      n.resolved[b] = c < bd ? kLess : c > bd ? kGreater : kEqual;
    }
    // Past every bound's last fraction digit the position no longer matters.
    n.frac_pos = static_cast<uint16_t>(
        std::min<size_t>(n.frac_pos + 1, std::max(bounds_[0].frac_digits.size(), bounds_[1].frac_digits.size()) + 1));
    return true;
  }

  // Magnitude comparison at the end of the text.
  Cmp final_cmp(const State& s, int b) const {
    State t = s;
    if (s.phase == 2 || s.phase == 3) resolve(t);
    if (t.resolved[b] != kEqual) return static_cast<Cmp>(t.resolved[b]);
    // Equal so far: the bound may still have fraction digits left (then it is larger).
    const std::string& f = bounds_[b].frac_digits;
    const size_t read = (s.phase == 5) ? s.frac_pos : 0;
    return read < f.size() ? kLess : kEqual;
  }

  bool accepts(const State& s) const {
    if (s.phase != 2 && s.phase != 3 && s.phase != 5) return false;
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

  // Moore partition refinement, then drop states that cannot reach acceptance.
  static std::shared_ptr<const grammar::ByteAutomaton> minimise(
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
    for (;;) {
      std::map<std::vector<uint32_t>, uint32_t> sig_ids;
      std::vector<uint32_t> next(n);
      for (size_t i = 0; i < n; ++i) {
        std::vector<uint32_t> sig{cls[i]};
        for (auto [c, t] : trans[i])
          if (live[t]) sig.push_back(c), sig.push_back(cls[t]);
        auto [it, fresh] = sig_ids.emplace(std::move(sig), static_cast<uint32_t>(sig_ids.size()));
        next[i] = it->second;
      }
      const bool stable = sig_ids.size() == std::set<uint32_t>(cls.begin(), cls.end()).size();
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
};

}  // namespace

std::shared_ptr<const grammar::ByteAutomaton> number_automaton(const NumberSpec& spec) {
  Builder b(spec);
  return b.build();
}

}  // namespace ninfer::text
