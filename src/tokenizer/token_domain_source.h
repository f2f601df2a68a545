// Bridges a tokenizer to the grammar engine: the token domain of a vocabulary, built once,
// lazily and thread-safely on first constrained use.
#pragma once

#include <memory>
#include <mutex>

#include "grammar/token_domain.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::tokenizer {

std::shared_ptr<const grammar::TokenDomain> build_token_domain(const Tokenizer& tok);

class LazyTokenDomain {
 public:
  explicit LazyTokenDomain(std::shared_ptr<const Tokenizer> tok) : tok_(std::move(tok)) {}
  const std::shared_ptr<const grammar::TokenDomain>& get() {
    std::call_once(once_, [this] { domain_ = build_token_domain(*tok_); });
    return domain_;
  }

 private:
  std::shared_ptr<const Tokenizer> tok_;
  std::once_flag once_;
  std::shared_ptr<const grammar::TokenDomain> domain_;
};

}  // namespace ninfer::tokenizer
