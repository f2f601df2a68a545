#include "grammar/grammar_error.h"

namespace ninfer::grammar {

const char* grammar_error_kind_name(GrammarErrorKind kind) {
  switch (kind) {
    case GrammarErrorKind::Syntax: return "syntax";
    case GrammarErrorKind::EmptyGrammar: return "empty_grammar";
    case GrammarErrorKind::UndefinedRule: return "undefined_rule";
    case GrammarErrorKind::DuplicateRule: return "duplicate_rule";
    case GrammarErrorKind::MissingRoot: return "missing_root";
    case GrammarErrorKind::BadEscape: return "bad_escape";
    case GrammarErrorKind::BadRange: return "bad_range";
    case GrammarErrorKind::BadRepetition: return "bad_repetition";
    case GrammarErrorKind::UnknownToken: return "unknown_token";
    case GrammarErrorKind::TooDeep: return "too_deep";
    case GrammarErrorKind::TooLarge: return "too_large";
    case GrammarErrorKind::EmptyLanguage: return "empty_language";
  }
  return "unknown";
}

std::string GrammarError::location_text() const {
  if (location_.line <= 0) return "";
  return std::to_string(location_.line) + ":" + std::to_string(location_.column);
}

}  // namespace ninfer::grammar
