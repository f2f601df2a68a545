// Shared fixtures for runtime tests: the Qwen3 tokenizer and its token domain, loaded once.
#pragma once

#include <memory>

#include "grammar/token_domain.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::testing {

inline const std::shared_ptr<const tokenizer::Tokenizer>& qwen3_tokenizer() {
  static const std::shared_ptr<const tokenizer::Tokenizer> tok = tokenizer::Tokenizer::load("qwen3");
  return tok;
}

inline const std::shared_ptr<const grammar::TokenDomain>& qwen3_domain() {
  static const std::shared_ptr<const grammar::TokenDomain> d = tokenizer::build_token_domain(*qwen3_tokenizer());
  return d;
}

}  // namespace ninfer::testing
