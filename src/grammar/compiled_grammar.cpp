#include "grammar/compiled_grammar.h"

#include <chrono>
#include <cstring>

#include "grammar/token_classifier.h"

namespace ninfer::grammar {

CompiledGrammar::~CompiledGrammar() = default;

namespace {

constexpr uint32_t kEagerKeyStates = 512;  // key states of any-order objects classified in compile()

// States that can be the top of a parse without having been predicted there: targets of byte,
// call and token edges, plus the augmented start.
std::vector<uint8_t> kernel_states(const GrammarAutomaton& a) {
  std::vector<uint8_t> k(a.num_states(), 0);
  k[a.aug_start] = 1;
  for (const auto& e : a.edges)
    if (e.target != kDeadState) k[e.target] = 1;
  for (const auto& c : a.calls) k[c.target] = 1;
  for (const auto& t : a.toks) k[t.target] = 1;
  return k;
}

}  // namespace

const StateTokens& CompiledGrammar::classify_slow(uint32_t state) const {
  std::lock_guard lock(mu_);
  if (const StateTokens* p = slots_[state].load(std::memory_order_acquire)) return *p;
  auto t0 = std::chrono::steady_clock::now();
  if (!classifier_) classifier_ = std::make_unique<TokenClassifier>(automaton_, *domain_);
  StateTokens& st = store_.emplace_back();
  classifier_->classify(state, scratch_words_, st.accepted_count, st.uncertain, scratch_cond_);
  for (int k = 0; k < kCondKinds; ++k)
    if (!scratch_cond_[k].empty()) st.cond[k] = intern_bitset(scratch_cond_[k]), st.has_cond = true;
  if (st.accepted_count > 0) st.accepted = intern_bitset(scratch_words_);
  store_bytes_ += sizeof(StateTokens) + st.uncertain.size() * 4;
  ++classified_;
  uncertain_nodes_ += st.uncertain.size();
  classify_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  slots_[state].store(&st, std::memory_order_release);
  return st;
}

// Identical sets share one bitset.
const uint32_t* CompiledGrammar::intern_bitset(const std::vector<uint32_t>& words) const {
  uint64_t h = 1469598103934665603ull;
  for (uint32_t w : words) h = (h ^ w) * 1099511628211ull;
  auto& candidates = bitset_by_hash_[h];
  for (const uint32_t* c : candidates)
    if (std::memcmp(c, words.data(), size_t(words_) * 4) == 0) return c;
  const uint32_t* p = bitsets_.emplace_back(words).data();
  candidates.push_back(p);
  store_bytes_ += size_t(words_) * 4;
  return p;
}

CompileStats CompiledGrammar::stats() const {
  std::lock_guard lock(mu_);
  CompileStats s = base_stats_;
  s.classified_states = classified_;
  s.distinct_bitsets = static_cast<uint32_t>(bitsets_.size());
  s.uncertain_nodes = uncertain_nodes_;
  s.classify_seconds = classify_seconds_;
  return s;
}

size_t CompiledGrammar::memory_bytes() const {
  std::lock_guard lock(mu_);
  return sizeof(*this) + automaton_.memory_bytes() + token_set_masks_.size() * 4 +
         size_t(automaton_.num_states()) * sizeof(void*) + store_bytes_;
}

std::shared_ptr<const CompiledGrammar> compile(const Grammar& g, std::shared_ptr<const TokenDomain> domain,
                                               const CompileOptions& options) {
  auto t0 = std::chrono::steady_clock::now();
  auto cg = std::shared_ptr<CompiledGrammar>(new CompiledGrammar());
  cg->automaton_ = build_automaton(g, options.limits);
  auto t1 = std::chrono::steady_clock::now();
  cg->domain_ = domain;
  const GrammarAutomaton& a = cg->automaton_;
  const int32_t words = domain->mask_words();
  cg->words_ = words;

  // Token-set edges: validate ids against the domain and build their masks.
  for (const auto& ts : a.token_sets) {
    std::vector<uint32_t> m(words, 0);
    for (int32_t id : ts.ids) {
      if (id < 0 || id >= domain->size() || domain->token_class(id) == TokenClass::NotGenerable)
        throw GrammarError(GrammarErrorKind::UnknownToken,
                           "token id " + std::to_string(id) + " is not a generable token of this vocabulary",
                           ts.location);
      m[id >> 5] |= 1u << (id & 31);
    }
    if (ts.exclude) {
      const auto& normal = domain->normal_mask();
      for (int32_t w = 0; w < words; ++w) m[w] = normal[w] & ~m[w];
    }
    cg->token_set_masks_.insert(cg->token_set_masks_.end(), m.begin(), m.end());
  }

  cg->slots_ = std::make_unique<std::atomic<const StateTokens*>[]>(a.num_states());
  for (uint32_t s = 0; s < a.num_states(); ++s) cg->slots_[s].store(nullptr, std::memory_order_relaxed);
  const std::vector<uint8_t> kernel = kernel_states(a);
  uint32_t kernel_count = 0;
  for (uint8_t k : kernel) kernel_count += k;
  // The first mask needs the start state; eager compiles classify every kernel state now.
  cg->state_tokens(a.aug_start);
  if (options.eager || kernel_count <= options.eager_max_kernel_states) {
    for (uint32_t s = 0; s < a.num_states(); ++s)
      if (kernel[s]) cg->state_tokens(s);
  } else if (!a.key_sets.empty()) {
    // The "key" states of any-order objects (right after an opening quote, where only key rules
    // are called) walk their tokens through the parser, not byte by byte; the alternatives of
    // one anyOf open all their objects at once, so their first use would come as one burst.
    uint32_t budget = kEagerKeyStates;
    for (uint32_t s = 0; s < a.num_states() && budget > 0; ++s)
      if (kernel[s] && a.key_start_state(s)) cg->state_tokens(s), --budget;
  }

  auto t2 = std::chrono::steady_clock::now();
  cg->base_stats_.seconds = std::chrono::duration<double>(t2 - t0).count();
  cg->base_stats_.automaton_seconds = std::chrono::duration<double>(t1 - t0).count();
  cg->base_stats_.dfa_states = a.num_states();
  cg->base_stats_.kernel_states = kernel_count;
  cg->base_stats_.rules = static_cast<uint32_t>(a.rule_start.size());
  return cg;
}

}  // namespace ninfer::grammar
