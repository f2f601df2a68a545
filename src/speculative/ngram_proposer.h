// Prompt lookup (the `ngram` proposer, vLLM's method of the same name): when the last n tokens of the
// context (n from max_n down to min_n) occurred before, the tokens that followed their latest earlier
// occurrence are proposed, with one-hot q. Model-free and cheap: it wins where outputs copy their
// input (code edits, quoting, extraction, JSON that repeats the prompt's keys).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ninfer::speculative {

struct NGramOptions {
  int max_n = 4;  // vLLM prompt_lookup_max
  int min_n = 2;  // vLLM prompt_lookup_min
};

// The context is prompt, then generated, then pending (drafts already proposed for this step by an
// earlier proposer). Appends at most max_tokens drafts to `out` and returns how many.
int propose_ngram(std::span<const int32_t> prompt, std::span<const int32_t> generated,
                  std::span<const int32_t> pending, int max_tokens, const NGramOptions& options,
                  std::vector<int32_t>& out);

}  // namespace ninfer::speculative
