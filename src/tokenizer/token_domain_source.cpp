#include "tokenizer/token_domain_source.h"

namespace ninfer::tokenizer {

std::shared_ptr<const grammar::TokenDomain> build_token_domain(const Tokenizer& tok) {
  const int32_t n = tok.vocab_size();
  std::vector<std::string> bytes(n);
  std::vector<grammar::TokenClass> classes(n);
  for (int32_t i = 0; i < n; ++i) {
    switch (tok.token_kind(i)) {
      case TokenKind::Normal:
        bytes[i] = tok.token_bytes(i);
        classes[i] = grammar::TokenClass::Normal;
        break;
      case TokenKind::Special:
        bytes[i] = tok.token_bytes(i);
        classes[i] = grammar::TokenClass::Control;
        break;
      case TokenKind::Unused:
        classes[i] = grammar::TokenClass::NotGenerable;
        break;
    }
  }
  return std::make_shared<grammar::TokenDomain>(std::move(bytes), std::move(classes), tok.eos_ids());
}

}  // namespace ninfer::tokenizer
