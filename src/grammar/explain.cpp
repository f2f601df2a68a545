#include "grammar/explain.h"

#include <algorithm>
#include <cstdio>
#include <unordered_set>

namespace ninfer::grammar {
namespace {

// Bounds of the search for literal alternatives (a hostile grammar or input cannot make an
// explanation expensive): past them the bytes are described as classes instead.
constexpr size_t kMaxLiteral = 48;        // bytes of one literal alternative
constexpr size_t kMaxBranch = 6;          // bytes followed from one position of a literal
constexpr size_t kScanBudget = 4096;      // byte scans for all literals of one explanation
constexpr size_t kMaxAlternatives = 16;   // literals listed
constexpr size_t kMaxSingles = 12;        // single bytes explored as literals
constexpr size_t kMaxPathItems = 16;      // open items whose rule path is traced
constexpr size_t kMaxPathHops = 256;      // callers followed from one item

using Bytes = std::bitset<256>;

Bytes range(int lo, int hi) {
  Bytes b;
  for (int c = lo; c <= hi; ++c) b.set(c);
  return b;
}

bool word_byte(uint8_t b) {
  return (b >= '0' && b <= '9') || (b >= 'A' && b <= 'Z') || (b >= 'a' && b <= 'z') || b == '_' || b >= 0x80;
}

// Bytes a quoted name (a key, an enum string) is made of; a quote followed by anything else (",",
// "}") is a closing quote, not the start of a literal.
bool name_byte(uint8_t b) {
  return word_byte(b) || b == ' ' || b == '-' || b == '.' || b == '$' || b == '@' || b == '/' || b == '"';
}

// A literal as a person reads it: double quotes, C escapes for quote, backslash and control bytes.
std::string quoted(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += static_cast<char>(c);
    else if (c == '\n') out += "\\n";
    else if (c == '\t') out += "\\t";
    else if (c == '\r') out += "\\r";
    else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

struct Literal {
  std::string text;
  bool key = false;  // a JSON object key: the quoted name, then ':'
};

class Explainer {
 public:
  Explainer(EarleyParser& p, const GrammarAutomaton& a) : p_(p), a_(a) {}

  // Bytes the parse accepts next: the automaton's candidates, each confirmed by a scan (an
  // any-order object may still refuse a byte its DFA has an edge for).
  Bytes allowed() {
    bool cand[256];
    p_.next_bytes(cand);
    Bytes out;
    for (int b = 0; b < 256; ++b) {
      if (!cand[b]) continue;
      ++scans_;
      const size_t n = p_.num_sets();
      if (p_.scan(static_cast<uint8_t>(b))) {
        out.set(b);
        p_.pop_to(n);
      }
    }
    return out;
  }

  bool token_edge() const {
    for (size_t i = p_.set_begin(p_.top()), e = p_.set_end(p_.top()); i < e; ++i) {
      const uint32_t s = p_.item(i).state;
      if (a_.tok_begin[s] != a_.tok_begin[s + 1]) return true;
    }
    return false;
  }

  std::string describe(const Bytes& allowed, bool can_end, bool token) {
    Bytes rest = allowed;
    std::vector<std::string> phrases;
    auto take = [&](const Bytes& cls, const char* phrase) {
      if ((rest & cls) != cls) return false;
      rest &= ~cls;
      phrases.push_back(phrase);
      return true;
    };
    Bytes string_char = range(0x20, 0x7F) | range(0xC2, 0xF4);
    string_char.reset('"');
    string_char.reset('\\');
    take(string_char, "a string character");
    if (!take(range('A', 'Z') | range('a', 'z'), "a letter")) {
      take(range('A', 'Z'), "an uppercase letter");
      take(range('a', 'z'), "a lowercase letter");
    }
    const Bytes digits = range('0', '9');
    if (!take(digits, "a digit") && (rest & digits).count() >= 3) {
      phrases.push_back("a digit in " + byte_class_text(rest & digits));
      rest &= ~digits;
    }
    Bytes ws;
    for (char c : {' ', '\t', '\n', '\r'}) ws.set(static_cast<uint8_t>(c));
    take(ws, "whitespace");
    take(range(0, 0x1F), "a control character");
    auto group = [&](const Bytes& cls, const std::string& phrase) {
      const Bytes in = rest & cls;
      if (in.none()) return;
      phrases.push_back(in == cls ? phrase : phrase + " in " + byte_class_text(in));
      rest &= ~cls;
    };
    group(range(0x80, 0xBF), "a UTF-8 continuation byte");
    group(range(0xC2, 0xF4), "the first byte of a non-ASCII character");
    group(range(0xC0, 0xFF), "a byte");

    std::vector<Literal> literals;
    if (rest.count() > kMaxSingles) {
      phrases.insert(phrases.begin(), "a byte in " + byte_class_text(rest));
    } else {
      for (int b = 0; b < 256; ++b) {
        if (!rest[b]) continue;
        std::vector<Literal> found;
        const size_t n = p_.num_sets();
        std::string text(1, static_cast<char>(b));
        bool ok = p_.scan(static_cast<uint8_t>(b)) && extend(text, found);
        p_.pop_to(n);
        if (!ok || found.empty() || literals.size() + found.size() > kMaxAlternatives) found.assign(1, {text});
        literals.insert(literals.end(), found.begin(), found.end());
      }
    }
    if (token) phrases.push_back("a special token");
    if (can_end) phrases.push_back("end of input");

    const size_t items = literals.size() + phrases.size();
    if (items == 0) return "nothing can follow here";
    const bool all_keys = phrases.empty() && std::all_of(literals.begin(), literals.end(), [](const Literal& l) { return l.key; });
    if (all_keys) {
      std::string out = "expected key ";
      for (size_t i = 0; i < literals.size(); ++i) {
        if (i) out += i + 1 == literals.size() ? " or " : ", ";
        out += literals[i].text.substr(0, literals[i].text.size() - 1);  // the name as written, without ':'
      }
      return out;
    }
    auto show = [](const Literal& l) {
      return l.key ? "key " + l.text.substr(0, l.text.size() - 1) : quoted(l.text);
    };
    if (items == 1) return "expected " + (literals.empty() ? phrases[0] : show(literals[0]));
    std::string out = "expected one of:";
    for (const auto& l : literals) out += " " + show(l);
    for (size_t i = 0; i < phrases.size(); ++i) out += (i == 0 && literals.empty() ? " " : " or ") + phrases[i];
    return out;
  }

  // The labelled rules open at the top of the parse, outermost first: the longest chain among the
  // items that can still scan something.
  std::vector<std::string> open_path() {
    std::vector<std::string> best;
    if (a_.origin_nodes.empty()) return best;
    std::unordered_set<uint32_t> seen_states;
    const size_t top = p_.top();
    for (size_t i = p_.set_begin(top), e = p_.set_end(top); i < e && seen_states.size() < kMaxPathItems; ++i) {
      const uint32_t s = p_.item(i).state;
      const bool moves = a_.edge_begin[s] != a_.edge_begin[s + 1] || a_.fallback[s] != kDeadState ||
                         a_.tok_begin[s] != a_.tok_begin[s + 1];
      if (!moves || !seen_states.insert(s).second) continue;
      std::vector<std::string> path = chain(i);
      if (path.size() > best.size()) best = std::move(path);
    }
    return best;
  }

  bool over_budget() const { return scans_ > kScanBudget; }
  bool after_quote_ = false;  // the byte before the explained position is '"'

 private:
  EarleyParser& p_;
  const GrammarAutomaton& a_;
  size_t scans_ = 0;

  // Extends `text` (already scanned) into the literals that continue it; false past the budget.
  // A quoted literal runs to its closing quote while few name bytes can come; a word runs while
  // the next bytes are few word bytes; punctuation stands alone.
  bool extend(std::string& text, std::vector<Literal>& out) {
    if (over_budget() || out.size() >= kMaxAlternatives) return false;
    const uint8_t first = static_cast<uint8_t>(text[0]);
    const bool quote = first == '"';
    if (!quote && !word_byte(first)) {
      out.push_back({text});
      return true;
    }
    if (quote && text.size() >= 2 && text.back() == '"') {
      size_t slashes = 0;
      for (size_t k = text.size() - 1; k-- > 1 && text[k] == '\\';) ++slashes;
      if (slashes % 2 == 0) {
        const Bytes next = allowed();
        Bytes after_key = next;
        for (char c : {' ', '\t', '\n', '\r'}) after_key.reset(static_cast<uint8_t>(c));
        out.push_back({text + (after_key.count() == 1 && after_key[':'] ? ":" : ""), after_key.count() == 1 && after_key[':']});
        return true;
      }
    }
    const Bytes next = allowed();
    const size_t n = next.count();
    bool follow = n > 0 && n <= kMaxBranch && text.size() < kMaxLiteral && !p_.can_end() && !token_edge();
    for (int b = 0; b < 256 && follow; ++b)
      if (next[b]) follow = quote ? name_byte(static_cast<uint8_t>(b)) : word_byte(static_cast<uint8_t>(b));
    if (!follow) {
      out.push_back(word_or_key(text, next));
      return true;
    }
    for (int b = 0; b < 256; ++b) {
      if (!next[b]) continue;
      const size_t sets = p_.num_sets();
      ++scans_;
      if (!p_.scan(static_cast<uint8_t>(b))) continue;
      text.push_back(static_cast<char>(b));
      const bool ok = extend(text, out);
      text.pop_back();
      p_.pop_to(sets);
      if (!ok) return false;
    }
    return true;
  }

  // A word right after an opening quote that the grammar closes and follows with ':' is a key.
  Literal word_or_key(const std::string& text, const Bytes& next) {
    if (!after_quote_ || text[0] == '"' || next.count() != 1 || !next['"']) return {text};
    const size_t sets = p_.num_sets();
    ++scans_;
    if (!p_.scan('"')) return {text};
    Bytes after = allowed();
    p_.pop_to(sets);
    for (char c : {' ', '\t', '\n', '\r'}) after.reset(static_cast<uint8_t>(c));
    if (after.count() == 1 && after[':']) return {"\"" + text + "\":", true};
    return {text};
  }

  static std::string pointer_text(const std::string& p) { return p.empty() ? "(root)" : p; }

  // Labels from the root down to item `i`: its rule's open labelled rules, then its caller's, ...
  std::vector<std::string> chain(size_t i) {
    std::vector<uint32_t> nodes;  // innermost first
    std::unordered_set<size_t> visited;
    size_t cur = i;
    for (size_t hops = 0; hops < kMaxPathHops && visited.insert(cur).second; ++hops) {
      const EarleyItem it = p_.item(cur);
      for (uint32_t n = a_.state_origin[it.state]; n != kNoOrigin; n = a_.origin_nodes[n].parent) nodes.push_back(n);
      const uint32_t rule = a_.state_rule[it.state];
      if (rule == a_.aug_rule || it.origin == EarleyParser::kRootOrigin) break;
      size_t caller = SIZE_MAX;
      for (size_t j = p_.set_begin(it.origin), e = p_.set_end(it.origin); j < e && caller == SIZE_MAX; ++j) {
        if (visited.count(j)) continue;
        const uint32_t ps = p_.item(j).state;
        for (uint32_t k = a_.call_begin[ps]; k < a_.call_begin[ps + 1]; ++k)
          if (a_.calls[k].rule == rule) {
            caller = j;
            break;
          }
      }
      if (caller == SIZE_MAX) break;
      cur = caller;
    }
    std::vector<std::string> out;
    const std::string* parent_pointer = nullptr;
    for (auto n = nodes.rbegin(); n != nodes.rend(); ++n) {
      const RuleOrigin& o = a_.origins[a_.origin_nodes[*n].origin];
      std::string label = o.what;
      if (!o.pointers.empty()) {
        // Rules shared by equal sub-schemas name every place: the reference inlined here says
        // which; a called rule takes the place under the enclosing node.
        const uint32_t place = a_.origin_nodes[*n].place;
        const std::string* where = &o.pointers[place < o.pointers.size() ? place : 0];
        if (parent_pointer && place >= o.pointers.size())
          for (const auto& p : o.pointers)
            if (p.size() > parent_pointer->size() && p.compare(0, parent_pointer->size(), *parent_pointer) == 0) {
              where = &p;
              break;
            }
        parent_pointer = where;
        label = pointer_text(*where) + ": " + o.what;
      }
      if (out.empty() || out.back() != label) out.push_back(std::move(label));
    }
    return out;
  }
};

}  // namespace

std::string byte_class_text(const std::bitset<256>& bytes) {
  auto one = [](int b) {
    if (b >= 0x20 && b < 0x7F) {
      std::string s;
      if (b == '\\' || b == ']' || b == '^' || b == '-' || b == '[') s += '\\';
      return s + static_cast<char>(b);
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\x%02x", b);
    return std::string(buf);
  };
  std::string out = "[";
  for (int b = 0; b < 256;) {
    if (!bytes[b]) {
      ++b;
      continue;
    }
    int e = b;
    while (e + 1 < 256 && bytes[e + 1]) ++e;
    if (e - b >= 2) out += one(b) + "-" + one(e);
    else
      for (int c = b; c <= e; ++c) out += one(c);
    b = e + 1;
  }
  return out + "]";
}

Explanation explain_rejection(Matcher& m, std::string_view bytes) {
  Explanation e;
  if (m.terminated()) {
    e.rejected = !bytes.empty();
    e.expected = "nothing: the output has ended";
    return e;
  }
  EarleyParser& p = m.parser_;
  const GrammarAutomaton& a = m.grammar().automaton();
  const size_t start = p.num_sets();
  size_t i = 0;
  while (i < bytes.size() && p.scan(static_cast<uint8_t>(bytes[i]))) ++i;
  e.offset = i;
  e.rejected = i < bytes.size();
  Explainer x(p, a);
  x.after_quote_ = i > 0 && bytes[i - 1] == '"';
  e.expected_bytes = x.allowed();
  e.token = x.token_edge();
  e.can_end = p.can_end();
  e.expected = x.describe(e.expected_bytes, e.can_end, e.token);
  e.path = x.open_path();
  p.pop_to(start);
  return e;
}

Explanation explain_rejection(const std::shared_ptr<const CompiledGrammar>& g, std::string_view bytes) {
  Matcher m(g);
  return explain_rejection(m, bytes);
}

std::string explanation_summary(const Explanation& e) {
  std::string out = e.expected;
  if (!e.path.empty()) {
    out += " at ";
    for (size_t i = 0; i < e.path.size(); ++i) out += (i ? " > " : "") + e.path[i];
  }
  return out;
}

}  // namespace ninfer::grammar
