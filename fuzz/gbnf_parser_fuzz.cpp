// libFuzzer target: GBNF text → parse → compile against a small synthetic vocabulary → drive a
// matcher for a few steps, checking the matcher's own invariants on the way. GrammarError is the
// only acceptable failure; anything else (another exception, a sanitizer report, a failed
// invariant) is a bug and crashes the run.
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DNINFER_FUZZ=ON -DNINFER_BUILD_TESTS=OFF
//        -DNINFER_BUILD_BENCH=OFF && ninja -C build-fuzz gbnf_parser_fuzz     (see fuzz/README.md)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "grammar/compiled_grammar.h"
#include "grammar/gbnf_parser.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"

namespace {

using namespace ninfer::grammar;

// ids: 0 EOS, 1 a control token, 2.. text (single bytes, multi-byte tokens that cross literal
// boundaries, pieces of UTF-8 sequences), then one token that is never generable.
std::shared_ptr<const TokenDomain> fuzz_domain() {
  std::vector<std::string> bytes{"</s>", "<|ctl|>"};
  std::vector<TokenClass> classes{TokenClass::Control, TokenClass::Control};
  const char* const text[] = {
      "a",       "b",    "c",        "ab",       "abc",  "ba",           " ",    "\"",  "{",            "}",
      ":",       ",",    "0",        "1",        "12",   "\n",           "\\",   "(",    ")",            "x",
      "\xC3",    "\xA9", "\xC3\xA9", "\xE2\x82", "\xAC", "\xF0\x9F\x98", "\x80", "a b",  "{\"",          "\":",
      "<|ctl|>", "<",    "\x00",     "\xFF",     "aaaa", "[",            "]",    "-",    "\xED\xA0\x80", "\xC0\x80"};
  for (const char* t : text) {
    bytes.emplace_back(t, t[0] == 0 ? 1 : std::strlen(t));
    classes.push_back(TokenClass::Normal);
  }
  bytes.emplace_back("zzz");
  classes.push_back(TokenClass::NotGenerable);
  return std::make_shared<TokenDomain>(std::move(bytes), std::move(classes), std::vector<int32_t>{0});
}

[[noreturn]] void bug(const char* what, std::string_view src) {
  std::fprintf(stderr, "gbnf_parser_fuzz invariant violated: %s\n--- grammar (%zu bytes) ---\n%.*s\n---\n", what,
               src.size(), static_cast<int>(std::min<size_t>(src.size(), 2000)), src.data());
  std::abort();
}

bool bit(const std::vector<uint32_t>& m, int32_t id) { return (m[id >> 5] >> (id & 31)) & 1u; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::shared_ptr<const TokenDomain> domain = fuzz_domain();
  const std::string_view src(reinterpret_cast<const char*>(data), size);

  Grammar g;
  try {
    g = parse_gbnf(src);
  } catch (const GrammarError& e) {
    if (e.what()[0] == '\0') bug("GrammarError without a message", src);
    return 0;
  }
  if (g.root < 0 || g.root >= static_cast<int32_t>(g.rules.size())) bug("parsed grammar without a valid root", src);
  (void)g.to_string();

  // Smaller automaton limits than the defaults keep each input fast; TooLarge is a typed error.
  CompileOptions opt;
  opt.limits.max_nfa_states = 1u << 16;
  opt.limits.max_dfa_states = 1u << 13;
  std::shared_ptr<const CompiledGrammar> cg;
  try {
    cg = compile(g, domain, opt);
  } catch (const GrammarError&) {
    return 0;
  }

  Matcher m(cg);
  const int32_t n = domain->size();
  std::vector<uint32_t> mask(m.mask_words()), again(m.mask_words());
  // The input's own bytes drive the choices, so the corpus steers the walk as well.
  size_t cursor = 0;
  auto next = [&](size_t k) -> size_t { return size ? static_cast<size_t>(data[(cursor++ * 7919) % size]) % k : 0; };

  for (int step = 0; step < 12 && !m.terminated(); ++step) {
    m.fill_mask(mask.data());
    // Mask, is_allowed and can_end agree; control and non-generable tokens only via Token().
    std::vector<int32_t> allowed;
    for (int32_t id = 0; id < n; ++id) {
      if (m.is_allowed(id) != bit(mask, id)) bug("is_allowed disagrees with fill_mask", src);
      if (bit(mask, id)) allowed.push_back(id);
    }
    if (bit(mask, 0) != m.can_end()) bug("EOS bit disagrees with can_end", src);
    if (bit(mask, n - 1)) bug("a non-generable token is allowed", src);
    for (int32_t id = n; id < m.mask_words() * 32; ++id)
      if (bit(mask, id)) bug("mask bit past the vocabulary", src);

    // Forced bytes must be acceptable, and only where the language cannot end.
    const std::string forced = m.forced_bytes(64);
    if (!forced.empty()) {
      if (m.can_end()) bug("forced bytes where the language may end", src);
      const auto cp = m.mark();
      if (!m.accept_bytes(forced)) bug("forced bytes rejected", src);
      m.rollback(cp);
    }

    // Lookahead leaves no trace.
    {
      const auto cp = m.mark();
      for (int k = 0; k < 3; ++k) {
        const int32_t t = static_cast<int32_t>(next(static_cast<size_t>(n)));
        if (m.accept_token(t) && m.terminated()) break;
      }
      m.rollback(cp);
      m.fill_mask(again.data());
      if (again != mask) bug("mask changed after mark/accept/rollback", src);
    }

    // A few raw bytes from the input, as one step (accepted or not, the state stays consistent).
    if (next(4) == 0 && size) {
      const size_t at = next(size), len = 1 + next(4);
      const std::string_view chunk = src.substr(at, len);
      if (m.accept_bytes(chunk)) {
        if (next(2)) continue;
        m.rollback_steps(1);
      }
    }

    if (allowed.empty()) break;  // nothing allowed: only possible when nothing can follow
    const int32_t pick = allowed[next(allowed.size())];
    if (pick == 0 && next(3)) continue;  // prefer to keep going
    if (!m.accept_token(pick)) bug("an allowed token was rejected", src);
  }

  // Preview of a couple of tokens is all or nothing.
  if (!m.terminated()) {
    m.fill_mask(mask.data());
    std::vector<int32_t> toks{static_cast<int32_t>(next(static_cast<size_t>(n))),
                              static_cast<int32_t>(next(static_cast<size_t>(n)))};
    const size_t steps = m.num_steps();
    if (m.preview(toks)) {
      m.discard();
    }
    if (m.num_steps() != steps) bug("preview/discard changed the step count", src);
    m.fill_mask(again.data());
    if (again != mask) bug("mask changed after preview/discard", src);
  }
  return 0;
}
