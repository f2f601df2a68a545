#include "speculative/ngram_proposer.h"

#include <algorithm>

namespace ninfer::speculative {

namespace {

// The three pieces read as one sequence without copying them.
struct Context {
  std::span<const int32_t> a, b, c;
  size_t size() const { return a.size() + b.size() + c.size(); }
  int32_t operator[](size_t i) const {
    if (i < a.size()) return a[i];
    i -= a.size();
    return i < b.size() ? b[i] : c[i - b.size()];
  }
};

}  // namespace

int propose_ngram(std::span<const int32_t> prompt, std::span<const int32_t> generated,
                  std::span<const int32_t> pending, int max_tokens, const NGramOptions& options,
                  std::vector<int32_t>& out) {
  const Context ctx{prompt, generated, pending};
  const size_t len = ctx.size();
  if (max_tokens <= 0 || len < 2) return 0;
  const int max_n = std::max(options.max_n, 1);
  const int min_n = std::clamp(options.min_n, 1, max_n);
  for (int n = std::min<int>(max_n, static_cast<int>(len) - 1); n >= min_n; --n) {
    const size_t tail = len - static_cast<size_t>(n);  // the suffix to find starts here
    // Latest earlier occurrence first: the nearest context is the likeliest to repeat.
    for (size_t start = tail; start-- > 0;) {
      size_t k = 0;
      while (k < static_cast<size_t>(n) && ctx[start + k] == ctx[tail + k]) ++k;
      if (k < static_cast<size_t>(n)) continue;
      const size_t from = start + static_cast<size_t>(n);
      const size_t count = std::min<size_t>(static_cast<size_t>(max_tokens), len - from);
      for (size_t i = 0; i < count; ++i) out.push_back(ctx[from + i]);
      return static_cast<int>(count);
    }
  }
  return 0;
}

}  // namespace ninfer::speculative
