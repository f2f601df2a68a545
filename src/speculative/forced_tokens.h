// The `grammar` proposer (jump-forward as drafts): where the constraint forces the next bytes (a key
// name, `":` after it, the rest of an enum value), their tokens are proposed with one-hot q and
// verified like any other draft. The proposal is the tokenizer's own encoding of the forced bytes;
// where the model would write them with other tokens, its masked p rejects the draft and the
// residual draw takes its choice, so no tokenisation is imposed on the output.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ninfer::tokenizer {
class Tokenizer;
}

namespace ninfer::speculative {

// Appends at most max_tokens tokens of `forced` (bytes the constraint forces next) to `out`.
int propose_forced(const tokenizer::Tokenizer& tok, std::string_view forced, int max_tokens, std::vector<int32_t>& out);

}  // namespace ninfer::speculative
