#include "text/char_sets.h"

namespace ninfer::text {

CharSet normalize_set(CharSet ranges, bool negate) {
  return grammar::normalize_ranges(std::move(ranges), negate, grammar::kMaxCodepoint);
}

const CharSet& any_scalar_set() {
  static const CharSet s = normalize_set({}, true);
  return s;
}

const CharSet& digit_set() {
  static const CharSet s = normalize_set({{'0', '9'}}, false);
  return s;
}

const CharSet& word_set() {
  static const CharSet s = normalize_set({{'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}}, false);
  return s;
}

const CharSet& space_set() {
  // ECMA-262 WhiteSpace (TAB VT FF SP NBSP ZWNBSP + Zs) and LineTerminator (LF CR LS PS).
  static const CharSet s = normalize_set({{0x09, 0x0D},
                                          {0x20, 0x20},
                                          {0xA0, 0xA0},
                                          {0x1680, 0x1680},
                                          {0x2000, 0x200A},
                                          {0x2028, 0x2029},
                                          {0x202F, 0x202F},
                                          {0x205F, 0x205F},
                                          {0x3000, 0x3000},
                                          {0xFEFF, 0xFEFF}},
                                         false);
  return s;
}

const CharSet& dot_set() {
  static const CharSet s = normalize_set({{'\n', '\n'}, {'\r', '\r'}, {0x2028, 0x2029}}, true);
  return s;
}

}  // namespace ninfer::text
