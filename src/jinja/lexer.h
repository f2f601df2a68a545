// Lexer: template source → tokens, with Jinja2's whitespace rules as transformers configures them (trim_blocks,
// lstrip_blocks, `-` / `+` modifiers, one trailing newline dropped, \r\n and \r read as \n). Comments vanish here
// and raw blocks become data.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ninfer::jinja {

enum class TokenType : uint8_t {
  Data,        // literal template text
  VarBegin,    // {{
  VarEnd,      // }}
  BlockBegin,  // {%
  BlockEnd,    // %}
  Name,
  String,      // value holds the decoded string
  Integer,
  Float,
  Operator,    // value holds the operator text
  End,
};

struct Token {
  TokenType type;
  std::string value;
  uint32_t offset;  // into the normalized source
};

struct LexedSource {
  std::string source;  // the normalized source the offsets refer to
  std::vector<Token> tokens;
  // 1-based line and column (in code points) of an offset.
  std::pair<int, int> location(uint32_t offset) const;
};

// Throws TemplateError(Syntax) for unterminated tags, strings, comments and raw blocks, unbalanced brackets and
// characters that start no token.
LexedSource lex(std::string_view source);

}  // namespace ninfer::jinja
