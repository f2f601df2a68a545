// The grammar IR shared by every front end (GBNF, JSON Schema, regex, choice, tool contracts).
// Expressions live in one flat arena and refer to each other by index, so no operation on the
// IR needs native recursion proportional to the source nesting (10 MB of brackets stays safe).
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "grammar/grammar_error.h"

namespace ninfer::grammar {

inline constexpr uint32_t kUnbounded = std::numeric_limits<uint32_t>::max();
inline constexpr uint32_t kMaxCodepoint = 0x10FFFF;

// Inclusive range of Unicode scalar values.
struct CodepointRange {
  uint32_t lo = 0;
  uint32_t hi = 0;
  bool operator==(const CodepointRange&) const = default;
};

enum class ExprKind : uint8_t {
  Empty,      // matches the empty string
  Literal,    // exact bytes (UTF-8 for text literals)
  CharClass,  // one Unicode scalar value from `ranges` (already normalised: sorted, merged, negation applied)
  ByteClass,  // one raw byte from `ranges` (values 0..255); lets front ends speak below UTF-8
  RuleRef,    // reference to rules[rule]
  Sequence,   // children in order
  Choice,     // one of children
  Repeat,     // children[0] repeated min..max times (max may be kUnbounded)
  TokenSet,   // one whole token: an id in token_ids, or (exclude) any generable normal token not in it
  Automaton,  // an embedded byte-level NFA (regexes and string constraints lowered by src/text)
  // Ordered members with separators, as JSON object members: children[0] is the separator,
  // children[1] what follows the last member (nothing when no member came), children[2..] the
  // members in order; member_flags per member: kMemberRequired (cannot be skipped),
  // kMemberRepeats (may come again, as additional properties). Any subsequence of the members,
  // a separator between two of them. One NFA copy per member, however it is entered.
  Members,
};

inline constexpr uint8_t kMemberRequired = 1, kMemberRepeats = 2;

// A byte-level NFA fragment embedded in the IR: front ends that reason about languages as
// automata (regex intersection, string lengths) hand over the result without re-expressing it
// as rules. Accepting states end the expression.
struct ByteAutomaton {
  struct Edge {
    uint8_t lo = 0, hi = 0;
    uint32_t target = 0;
  };
  std::vector<std::vector<Edge>> edges;  // per state
  std::vector<uint8_t> accepting;        // per state
  uint32_t start = 0;

  uint32_t num_states() const { return static_cast<uint32_t>(edges.size()); }
};

struct Expr {
  ExprKind kind = ExprKind::Empty;
  std::string literal;                 // Literal
  std::vector<CodepointRange> ranges;  // CharClass / ByteClass
  int32_t rule = -1;                   // RuleRef
  std::vector<int32_t> children;       // Sequence / Choice / Repeat / Members
  std::vector<uint8_t> member_flags;   // Members: per member (children[2..])
  uint32_t min = 0, max = 0;           // Repeat
  std::vector<int32_t> token_ids;      // TokenSet (sorted, unique)
  bool exclude = false;                // TokenSet
  std::shared_ptr<const ByteAutomaton> automaton;  // Automaton
  bool keep_inline = false;            // Automaton: never shared with equal copies through a rule
  SourceLocation location;             // where the expression starts in its source (if any)
};

struct Rule {
  std::string name;
  int32_t body = -1;       // expression index
  int32_t lookahead = -1;  // optional `(= ...)` hint: expression index or -1
  SourceLocation location;
};

// A JSON object whose members may come in any order, each declared key at most once: the
// object's rule calls one key rule per declared property (and one rule for its undeclared members), and
// the parser keeps, per open object, the set of keys emitted so far (grammars cannot express
// "any order, each once" without 2^n rules). A key may start only while it is unused and the
// object can still be completed after it; the object closes only when its required keys are
// present and its member count is within [min_members, max_members].
struct KeySetObject {
  int32_t rule = -1;                 // the object's rule (its body calls the key rules)
  std::vector<int32_t> keys;         // key rules of the declared properties; key i = bit i
  std::vector<uint8_t> required;     // per declared key
  std::vector<int32_t> additional;   // rules of undeclared members, name and value (repeatable, counted)
  uint64_t min_members = 0;
  uint64_t max_members = std::numeric_limits<uint64_t>::max();
};

// Where a rule comes from, for explanations of rejected input (never part of the language or of a
// cache key): what the rule is ("string matching ^a+$", a GBNF rule name, a regex) and, for JSON
// Schema, the JSON Pointers of the schema nodes it stands for (equal sub-schemas share one rule:
// the first place it was made, then up to kMaxPlaces others).
struct RuleOrigin {
  static constexpr size_t kMaxPlaces = 8;
  std::string what;
  std::vector<std::string> pointers;
};

// A whole grammar: rules, the expression arena, and the entry rule.
struct Grammar {
  std::vector<Expr> exprs;
  std::vector<Rule> rules;
  int32_t root = -1;
  std::vector<KeySetObject> key_sets;  // rules that are any-order objects (their rules and key rules are never inlined)
  std::vector<RuleOrigin> origins;     // per rule, for explanations; shorter than rules = the rest unlabelled
  std::unordered_map<int32_t, uint32_t> ref_places;  // RuleRef expression -> index into its rule's pointers

  // Labels a rule (an empty `what` leaves it an unlabelled helper); a pointer adds a place.
  void label(int32_t rule, std::string what, const std::string* pointer = nullptr);
  // Records that the RuleRef expression `ref` uses its (labelled) rule at `pointer`.
  void place_ref(int32_t ref, const std::string& pointer);
  static constexpr uint32_t kUnknownPlace = 0xFFFFFFFFu;
  uint32_t place_of(int32_t ref) const {
    auto it = ref_places.find(ref);
    return it == ref_places.end() ? kUnknownPlace : it->second;
  }
  const RuleOrigin* origin(int32_t rule) const {
    return rule >= 0 && size_t(rule) < origins.size() && !origins[rule].what.empty() ? &origins[rule] : nullptr;
  }

  int32_t add(Expr e) {
    exprs.push_back(std::move(e));
    return static_cast<int32_t>(exprs.size() - 1);
  }
  int32_t rule_index(const std::string& name) const;

  // Canonical text form, used for cache keys and debugging (stable across runs).
  std::string to_string() const;
};

// Sorts, merges and clips ranges; `negate` complements within [0, max_value] (surrogates are
// never members of a CharClass).
std::vector<CodepointRange> normalize_ranges(std::vector<CodepointRange> ranges, bool negate, uint32_t max_value);

// Bytes as a quoted literal: printable ASCII as is, everything else (and '"', '\\') as \xNN.
std::string quote_bytes(std::string_view bytes);

// Appends the UTF-8 encoding of a scalar value.
void append_utf8(std::string& out, uint32_t codepoint);

}  // namespace ninfer::grammar
