#include "cli/speculative_flags.h"

#include <map>
#include <string>

#include "cli/option_checks.h"

namespace ninfer::cli {

void add_speculative_flags(CLI::App& cmd, EngineOptions& o, const std::string& method_flag) {
  const std::map<std::string, SpeculativeMethod> methods = {
      {"none", SpeculativeMethod::None},
      {"grammar", SpeculativeMethod::Grammar},
      {"ngram", SpeculativeMethod::NGram},
      {"draft", SpeculativeMethod::Draft}};
  cmd.add_option(method_flag, o.speculative,
                 "draft proposer: grammar (the constraint's forced tokens), ngram (prompt lookup) or draft (a smaller "
                 "model, --draft-model); ngram and draft follow the forced tokens. Every draft is verified: the output "
                 "distribution is unchanged")
      ->transform(CLI::CheckedTransformer(methods, CLI::ignore_case));
  cmd.add_option("--draft-model", o.draft_model, "draft: HF folder or GGUF file with the target's tokenizer");
  const std::map<std::string, DraftDistribution> qs = {{"one-hot", DraftDistribution::OneHot},
                                                       {"sparse16", DraftDistribution::Sparse16}};
  cmd.add_option("--draft-q", o.draft_q,
                 "draft: one-hot (greedy drafts) or sparse16 (drawn from the draft's top-16 at the request's temperature)")
      ->transform(CLI::CheckedTransformer(qs, CLI::ignore_case));
  cmd.add_option("--draft-tokens", o.max_draft_tokens, "K: drafts per row and step (0 with a proposer: 4)")
      ->check(integer_option<int>(0));
  cmd.add_flag("--fixed-draft-tokens", [&o](int64_t) { o.adaptive_draft_tokens = false; },
               "always draft K tokens (default: adapt each row's K to its acceptance)");
  cmd.add_flag("--no-draft-cost-check", [&o](int64_t) { o.draft_cost_check = false; },
               "verify every draft on offer (default: the drafts that make the most expected tokens per second of the forward's measured cost)");
  cmd.add_option("--ngram-max", o.ngram_max, "ngram: longest suffix looked up")->check(integer_option<int>(1))->capture_default_str();
  cmd.add_option("--ngram-min", o.ngram_min, "ngram: shortest suffix looked up")->check(integer_option<int>(1))->capture_default_str();
}

}  // namespace ninfer::cli
