// ECMAScript regex front end (the subset of DESIGN.md §5, with the strict "u"-mode syntax: no
// Annex B leniency). The pattern becomes a small AST whose leaves are character sets; capture,
// laziness and group names do not change the language and are dropped.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "text/char_sets.h"

namespace ninfer::text {

// FullMatch: the whole string must match (the `regex` constraint). Search: JSON Schema `pattern`,
// a match anywhere unless a top-level branch is anchored with ^ (start) and/or $ (end).
enum class RegexMode { FullMatch, Search };

enum class RegexNodeKind : uint8_t {
  Empty,   // the empty string
  Chars,   // one character from `chars` (may be empty: matches nothing)
  Concat,  // children in order
  Alt,     // one of children
  Repeat,  // children[0] repeated min..max times (max may be grammar::kUnbounded)
};

struct RegexNode {
  RegexNodeKind kind = RegexNodeKind::Empty;
  CharSet chars;                  // Chars
  std::vector<int32_t> children;  // Concat / Alt / Repeat; always smaller indices than the node
  uint32_t min = 0, max = 0;      // Repeat
  int64_t offset = 0;             // code point offset in the pattern where the construct starts
};

// One top-level alternative with its anchors.
struct RegexBranch {
  int32_t node = -1;
  bool anchored_start = false;  // began with ^
  bool anchored_end = false;    // ended with $
};

struct RegexAst {
  std::vector<RegexNode> nodes;  // children precede their parents, so index order is a post-order
  std::vector<RegexBranch> branches;
};

// Throws ConstraintError(InvalidRegex) located at the code point offset of the offending
// construct (invalid UTF-8: the offset of the first bad sequence). Repetition counts above
// `max_count` are invalid. Parsing is iterative: nesting depth is bounded only by memory.
RegexAst parse_regex(std::string_view pattern, uint32_t max_count);

}  // namespace ninfer::text
