// Helpers shared by the grammar tests: synthetic vocabularies and compile shortcuts.
#pragma once

#include <cstdio>
#include <memory>
#include <string_view>
#include <string>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/gbnf_parser.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"

namespace ninfer::grammar::testing {

// Vocabulary from explicit token strings; id 0 is EOS (a control token).
inline std::shared_ptr<const TokenDomain> make_domain(const std::vector<std::string>& tokens) {
  std::vector<std::string> bytes{"</s>"};
  std::vector<TokenClass> classes{TokenClass::Control};
  for (const auto& t : tokens) {
    bytes.push_back(t);
    classes.push_back(TokenClass::Normal);
  }
  return std::make_shared<TokenDomain>(std::move(bytes), std::move(classes), std::vector<int32_t>{0});
}

inline std::shared_ptr<const CompiledGrammar> compile_gbnf(const std::string& src,
                                                           std::shared_ptr<const TokenDomain> domain) {
  return compile(parse_gbnf(src), std::move(domain));
}

// Bytes as a quoted string for failure messages (non-printable bytes as \xNN).
inline std::string show(std::string_view s) { return quote_bytes(s); }

inline bool mask_bit(const std::vector<uint32_t>& m, int32_t id) { return (m[id >> 5] >> (id & 31)) & 1u; }

}  // namespace ninfer::grammar::testing
