#include "grammar/grammar_ir.h"

#include <algorithm>
#include <cstdio>

namespace ninfer::grammar {

int32_t Grammar::rule_index(const std::string& name) const {
  for (size_t i = 0; i < rules.size(); ++i)
    if (rules[i].name == name) return static_cast<int32_t>(i);
  return -1;
}

std::vector<CodepointRange> normalize_ranges(std::vector<CodepointRange> ranges, bool negate, uint32_t max_value) {
  for (auto& r : ranges) {
    if (r.hi > max_value) r.hi = max_value;
  }
  std::erase_if(ranges, [](const CodepointRange& r) { return r.lo > r.hi; });
  std::sort(ranges.begin(), ranges.end(), [](auto a, auto b) { return a.lo < b.lo; });
  std::vector<CodepointRange> merged;
  for (const auto& r : ranges) {
    if (!merged.empty() && r.lo <= merged.back().hi + 1) {
      merged.back().hi = std::max(merged.back().hi, r.hi);
    } else {
      merged.push_back(r);
    }
  }
  if (negate) {
    std::vector<CodepointRange> out;
    uint32_t next = 0;
    for (const auto& r : merged) {
      if (r.lo > next) out.push_back({next, r.lo - 1});
      next = r.hi + 1;
    }
    if (next <= max_value && !(merged.size() && merged.back().hi == max_value)) out.push_back({next, max_value});
    merged = std::move(out);
  }
  // Surrogates are not scalar values: a Unicode class never contains them.
  if (max_value == kMaxCodepoint) {
    std::vector<CodepointRange> out;
    for (const auto& r : merged) {
      if (r.hi < 0xD800 || r.lo > 0xDFFF) {
        out.push_back(r);
        continue;
      }
      if (r.lo < 0xD800) out.push_back({r.lo, 0xD7FF});
      if (r.hi > 0xDFFF) out.push_back({0xE000, r.hi});
    }
    merged = std::move(out);
  }
  return merged;
}

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

namespace {

void print_codepoint(std::string& out, uint32_t cp) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "\\U%08X", cp);
  out += buf;
}

void print_literal(std::string& out, std::string_view bytes) {
  out.push_back('"');
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    }
  }
  out.push_back('"');
}

}  // namespace

std::string quote_bytes(std::string_view bytes) {
  std::string out;
  print_literal(out, bytes);
  return out;
}

std::string Grammar::to_string() const {
  // Iterative post-order printing: expression nesting can be deep.
  std::vector<std::string> printed(exprs.size());
  std::vector<uint8_t> state(exprs.size(), 0);
  auto print_expr = [&](int32_t root) {
    std::vector<int32_t> stack{root};
    while (!stack.empty()) {
      int32_t id = stack.back();
      const Expr& e = exprs[id];
      if (state[id] == 2) {
        stack.pop_back();
        continue;
      }
      if (state[id] == 0) {
        state[id] = 1;
        for (int32_t c : e.children)
          if (state[c] == 0) stack.push_back(c);
        continue;
      }
      std::string s;
      switch (e.kind) {
        case ExprKind::Empty: s = "\"\""; break;
        case ExprKind::Literal: print_literal(s, e.literal); break;
        case ExprKind::CharClass:
        case ExprKind::ByteClass:
          s = e.kind == ExprKind::CharClass ? "[" : "b[";
          for (auto r : e.ranges) {
            print_codepoint(s, r.lo);
            s += "-";
            print_codepoint(s, r.hi);
          }
          s += "]";
          break;
        case ExprKind::RuleRef: s = rules[e.rule].name; break;
        case ExprKind::Sequence:
        case ExprKind::Choice:
          s = "(";
          for (size_t i = 0; i < e.children.size(); ++i) {
            if (i) s += e.kind == ExprKind::Sequence ? " " : " | ";
            s += printed[e.children[i]];
          }
          s += ")";
          break;
        case ExprKind::Members:
          // members(separator; end; member flags ...)
          s = "members(" + printed[e.children[0]] + "; " + printed[e.children[1]];
          for (size_t i = 2; i < e.children.size(); ++i)
            s += "; " + printed[e.children[i]] + std::string((e.member_flags[i - 2] & kMemberRequired) ? "!" : "") +
                 std::string((e.member_flags[i - 2] & kMemberRepeats) ? "*" : "");
          s += ")";
          break;
        case ExprKind::Repeat:
          s = printed[e.children[0]] + "{" + std::to_string(e.min) + "," +
              (e.max == kUnbounded ? std::string() : std::to_string(e.max)) + "}";
          break;
        case ExprKind::Automaton: {
          // Canonical listing: start, then per state its accept flag and edges.
          s = "A{" + std::to_string(e.automaton->start);
          for (uint32_t st = 0; st < e.automaton->num_states(); ++st) {
            s += e.automaton->accepting[st] ? ";*" : ";";
            for (const auto& ed : e.automaton->edges[st])
              s += std::to_string(ed.lo) + "-" + std::to_string(ed.hi) + ">" + std::to_string(ed.target) + ",";
          }
          s += "}";
          break;
        }
        case ExprKind::TokenSet:
          s = e.exclude ? "ExcludeToken(" : "Token(";
          for (size_t i = 0; i < e.token_ids.size(); ++i) s += (i ? "," : "") + std::to_string(e.token_ids[i]);
          s += ")";
          break;
      }
      printed[id] = std::move(s);
      state[id] = 2;
      stack.pop_back();
    }
  };
  std::string out;
  for (const auto& r : rules) {
    print_expr(r.body);
    out += r.name + " ::= " + printed[r.body];
    if (r.lookahead >= 0) {
      print_expr(r.lookahead);
      out += " (= " + printed[r.lookahead] + ")";
    }
    out += "\n";
  }
  for (const auto& k : key_sets) {
    out += "#keyset " + rules[k.rule].name + " [";
    for (size_t i = 0; i < k.keys.size(); ++i) out += (i ? " " : "") + rules[k.keys[i]].name + (k.required[i] ? "!" : "");
    out += "] +[";
    for (size_t i = 0; i < k.additional.size(); ++i) out += (i ? " " : "") + rules[k.additional[i]].name;
    out += "] " + std::to_string(k.min_members) + ".." + std::to_string(k.max_members) + "\n";
  }
  if (root >= 0) out += "#root " + rules[root].name + "\n";
  return out;
}

void Grammar::label(int32_t rule, std::string what, const std::string* pointer) {
  if (rule < 0) return;
  if (origins.size() <= size_t(rule)) origins.resize(size_t(rule) + 1);
  origins[rule].what = std::move(what);
  if (pointer && origins[rule].pointers.empty()) origins[rule].pointers.push_back(*pointer);
}

void Grammar::place_ref(int32_t ref, const std::string& pointer) {
  const int32_t rule = exprs[ref].rule;
  if (rule < 0 || size_t(rule) >= origins.size()) return;
  auto& places = origins[rule].pointers;
  auto it = std::find(places.begin(), places.end(), pointer);
  if (it == places.end()) {
    if (places.size() >= RuleOrigin::kMaxPlaces) return;
    it = places.insert(places.end(), pointer);
  }
  ref_places[ref] = static_cast<uint32_t>(it - places.begin());
}

}  // namespace ninfer::grammar
