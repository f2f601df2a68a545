// Typed, located errors for grammar sources and grammar compilation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ninfer::grammar {

// 1-based line and column (column counts bytes), plus the 0-based byte offset into the source.
struct SourceLocation {
  int line = 0;
  int column = 0;
  std::size_t offset = 0;
};

enum class GrammarErrorKind {
  Syntax,          // malformed GBNF (unbalanced brackets, missing ::=, stray characters)
  EmptyGrammar,    // no rules at all
  UndefinedRule,   // a reference to a rule that is never defined
  DuplicateRule,   // a rule defined twice
  MissingRoot,     // no rule named like the entry rule
  BadEscape,       // unknown or malformed escape sequence
  BadRange,        // character range with lo > hi, or a code point past U+10FFFF / a surrogate
  BadRepetition,   // {m,n} with m > n or counts past the limit
  UnknownToken,    // Token(id) outside the token domain, or a token that can never be generated
  TooDeep,         // nesting past the parser's depth limit
  TooLarge,        // the compiled automaton would exceed its size limits
  EmptyLanguage,   // the entry rule derives no string at all
};

const char* grammar_error_kind_name(GrammarErrorKind kind);

class GrammarError : public std::runtime_error {
 public:
  GrammarError(GrammarErrorKind kind, std::string message, SourceLocation location = {})
      : std::runtime_error(std::move(message)), kind_(kind), location_(location) {}

  GrammarErrorKind kind() const { return kind_; }
  const SourceLocation& location() const { return location_; }
  // "line:column" or "" when the error has no source position.
  std::string location_text() const;
  // TooDeep / TooLarge: the limit's name (e.g. "gbnf.max_nesting") and value.
  const std::string& limit() const { return limit_; }
  uint64_t limit_value() const { return limit_value_; }
  GrammarError& with_limit(std::string name, uint64_t value) {
    limit_ = std::move(name), limit_value_ = value;
    return *this;
  }

 private:
  GrammarErrorKind kind_;
  SourceLocation location_;
  std::string limit_;
  uint64_t limit_value_ = 0;
};

}  // namespace ninfer::grammar
