#include "runtime/engine_impl.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <random>
#include <stdexcept>

#include "ninfer/constraint_error.h"
#include "runtime/cpu_clock.h"
#include "models/qwen3/frontend/qwen3_frontend.h"
#include "runtime/chat_prompt.h"
#include "speculative/forced_tokens.h"
#include "speculative/ngram_proposer.h"
#include "text/constraint_compiler.h"

namespace ninfer {

using runtime::Clock;
using runtime::Request;

namespace {

constexpr uint32_t kEagerKernelStates = 1024;

double seconds_between(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Mask provider over the batch's sessions, borrowed by Program for one decode call.
class BatchMaskProvider final : public runtime::MaskProvider {
 public:
  explicit BatchMaskProvider(const std::vector<Request*>& rows) : rows_(rows) {}
  bool row_constrained(int row) const override { return rows_[row]->session->constrained(); }
  int fill_row(int row, std::span<const int32_t> drafts, const runtime::MaskRowSlice& out) override {
    return rows_[row]->session->lookahead(drafts, out);
  }

 private:
  const std::vector<Request*>& rows_;
};

// A constrained row's OutputSession as the draft model's constraint (begin_draft already called).
class SessionDraftConstraint final : public speculative::DraftConstraint {
 public:
  explicit SessionDraftConstraint(runtime::OutputSession& s) : s_(&s) {}
  bool mask(uint32_t* words) override { return s_->draft_mask(words); }
  bool accept(int32_t token) override { return s_->draft_accept(token); }
  void end() { s_->end_draft(); }

 private:
  runtime::OutputSession* s_;
};

void validate_options(const RequestOptions& o) {
  const auto bad = [](const std::string& m) { return RequestError(RequestErrorKind::InvalidRequest, m); };
  const SamplingOptions& s = o.sampling;
  if (o.max_tokens < 1) throw bad("max_tokens must be at least 1");
  if (!std::isfinite(s.temperature) || s.temperature < 0) throw bad("temperature must be a finite number >= 0");
  if (s.top_k < 0) throw bad("top_k must be >= 0");
  if (o.max_draft_tokens && *o.max_draft_tokens < 0) throw bad("max_draft_tokens must be >= 0");
  if (!(s.top_p > 0 && s.top_p <= 1)) throw bad("top_p must be in (0, 1]");
  if (!(s.min_p >= 0 && s.min_p <= 1)) throw bad("min_p must be in [0, 1]");
  if (!std::isfinite(s.presence_penalty) || !std::isfinite(s.frequency_penalty)) throw bad("penalties must be finite");
  if (o.ignore_eos && o.constraint)
    throw RequestError(RequestErrorKind::ConflictingOptions, "ignore_eos cannot be combined with an output constraint");
  if (o.constraint && !o.stop.empty())
    throw RequestError(RequestErrorKind::ConflictingOptions,
                       "stop strings cannot be combined with a guaranteed output constraint (a cut output would not match it)")
        .at_param("stop");
  for (const std::string& s : o.stop)
    if (s.empty()) throw bad("a stop string is empty").at_param("stop");
  if (o.thinking_token_budget && *o.thinking_token_budget < 0)
    throw bad("thinking_token_budget must be >= 0").at_param("thinking_token_budget");
}

void check_prompt_tokens(std::span<const int32_t> tokens, int32_t vocab_size) {
  for (int32_t t : tokens)
    if (t < 0 || t >= vocab_size)
      throw RequestError(RequestErrorKind::InvalidRequest, "prompt token " + std::to_string(t) + " is out of range");
}

// Every kDecodeOnlyEvery steps with a prompt chunk, one step decodes alone (no chunk), to
// measure a decode-only step again (see prompt_budget).
constexpr int kDecodeOnlyEvery = 8;

ops::SamplingParams sampling_params(const SamplingOptions& s) {
  ops::SamplingParams p;
  p.temperature = s.temperature;
  p.top_k = s.top_k;
  p.top_p = s.top_p;
  p.min_p = s.min_p;
  p.presence_penalty = s.presence_penalty;
  p.frequency_penalty = s.frequency_penalty;
  return p;
}

}  // namespace

EngineImpl::EngineImpl(std::shared_ptr<models::LanguageModel> model, const EngineOptions& options,
                       runtime::ModelChatTemplates templates, std::shared_ptr<models::LanguageModel> draft_model)
    : model_(std::move(model)), tok_(model_->tokenizer()), options_(options), templates_(std::move(templates)), domain_(tok_) {
  if (options_.max_batch_rows < 1) throw std::invalid_argument("max_batch_rows must be at least 1");
  layers_ = std::max(1, model_->layer_count());
  if (options_.max_batch_rows > model_->slot_count())
    throw std::invalid_argument("max_batch_rows exceeds the model's sequence slots");
  if (options_.max_step_tokens < options_.max_batch_rows)
    throw std::invalid_argument("max_step_tokens must be at least max_batch_rows");
  if (options_.prefill_tokens_while_decoding < 1)
    throw std::invalid_argument("prefill_tokens_while_decoding must be at least 1");
  if (!(options_.max_decode_slowdown == 0 || options_.max_decode_slowdown > 1))
    throw std::invalid_argument("max_decode_slowdown must be 0 (off) or above 1");
  if (options_.prefix_cache_block_tokens < 1) throw std::invalid_argument("prefix_cache_block_tokens must be at least 1");
  if (options_.max_draft_tokens < 0) throw std::invalid_argument("max_draft_tokens must be >= 0");
  if (options_.speculative != SpeculativeMethod::None && options_.max_draft_tokens == 0) options_.max_draft_tokens = 4;
  if (options_.ngram_min < 1 || options_.ngram_max < options_.ngram_min)
    throw std::invalid_argument("ngram_min must be at least 1 and ngram_max at least ngram_min");
  if (options_.speculative == SpeculativeMethod::Draft) {
    if (!draft_model) throw std::invalid_argument("the draft proposer needs a draft model");
    if (draft_model->slot_count() < options_.max_batch_rows)
      throw std::invalid_argument("the draft model has fewer sequence slots than max_batch_rows");
    const auto draft_tok = draft_model->tokenizer();
    if (!draft_tok || draft_tok->vocab_size() != tok_->vocab_size())
      throw std::invalid_argument("the draft model's tokenizer is not the target's (" +
                                  std::to_string(draft_tok ? draft_tok->vocab_size() : 0) + " ids against " +
                                  std::to_string(tok_->vocab_size()) + ")");
    draft_ = std::make_unique<speculative::DraftModelProposer>(
        std::move(draft_model),
        options_.draft_q == DraftDistribution::Sparse16 ? speculative::DraftQMode::Sparse16 : speculative::DraftQMode::OneHot,
        tok_->vocab_size());
  }
  if (options_.prefix_cache_bytes > 0 && model_->kv_bytes_per_position() > 0)
    prefix_cache_ = std::make_unique<runtime::PrefixCache>(model_->description(), options_.prefix_cache_block_tokens,
                                                           options_.prefix_cache_bytes, model_->kv_bytes_per_position());
  max_context_ = std::min(options_.max_context, model_->max_context());
  runtime::ProgramOptions po;
  po.max_rows = options_.max_batch_rows;
  po.max_draft_tokens = options_.max_draft_tokens;
  po.domain_size = tok_->vocab_size();
  program_ = std::make_unique<runtime::Program>(*model_, po);
  for (int s = options_.max_batch_rows - 1; s >= 0; --s) free_slots_.push_back(s);
  active_.reserve(options_.max_batch_rows);
  worker_ = std::thread([this] { run(); });
}

EngineImpl::~EngineImpl() {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    stopping_ = true;
  }
  queue_cv_.notify_all();
  if (worker_.joinable()) worker_.join();
}

grammar::CompileCache& EngineImpl::cache() {
  std::call_once(cache_once_, [this] {
    cache_ = std::make_unique<grammar::CompileCache>(domain_.get(), options_.grammar_cache_bytes);
  });
  return *cache_;
}

PreparedPrompt EngineImpl::prepare(const PromptInput& input) const {
  PreparedPrompt p;
  if (!input.tokens.empty()) {
    check_prompt_tokens(input.tokens, tok_->vocab_size());
    p.tokens = input.tokens;
    p.rendered = tok_->decode(p.tokens);
    return p;
  }
  if (input.chat_prompt) return runtime::prepare_chat_prompt(*input.chat_prompt, templates_, *tok_);
  if (input.chat) {
    if (input.text.empty()) throw RequestError(RequestErrorKind::InvalidRequest, "the prompt is empty");
    return runtime::prepare_chat_prompt(runtime::single_turn_chat(input.system, input.text), templates_, *tok_);
  }
  p.rendered = input.text;
  if (p.rendered.empty()) throw RequestError(RequestErrorKind::InvalidRequest, "the prompt is empty");
  p.tokens = tok_->encode(p.rendered);
  return p;
}

namespace {

CacheOutcome cache_outcome(grammar::CompileCache::Source source) {
  return source == grammar::CompileCache::Source::Hit      ? CacheOutcome::Hit
         : source == grammar::CompileCache::Source::Waited ? CacheOutcome::Waited
                                                           : CacheOutcome::Built;
}

// What the chat output may hold: the request's tool_choice, checked against the declared tools.
ToolChoice resolve_tool_choice(const PreparedPrompt& prompt, const RequestOptions& options) {
  ToolChoice choice;
  if (options.tool_choice) {
    choice = *options.tool_choice;
  } else if (prompt.tools.empty()) {
    choice.mode = ToolChoiceMode::None;
  }
  if (prompt.tools.empty() && choice.mode != ToolChoiceMode::None)
    throw std::move(RequestError(RequestErrorKind::InvalidTools, "tool_choice needs tools").at_param("tool_choice"));
  for (const std::string& name : choice.allowed_names) {
    const bool declared = std::any_of(prompt.tools.begin(), prompt.tools.end(),
                                      [&](const ToolDefinition& t) { return t.name == name; });
    if (!declared)
      throw std::move(RequestError(RequestErrorKind::InvalidTools, "tool_choice names '" + name + "', which is not a declared tool")
                          .at_param("tool_choice"));
  }
  return choice;
}

}  // namespace

void EngineImpl::prepare_session(Request& req, const PreparedPrompt& prompt, const RequestOptions& options) {
  // Constraint preparation on the calling thread, outside the worker and every queue lock.
  const double cpu0 = runtime::thread_cpu_seconds();
  // Small grammars are classified completely here, so decode steps never pay first-use costs.
  grammar::CompileOptions co;
  co.eager_max_kernel_states = kEagerKernelStates;
  std::shared_ptr<const grammar::CompiledGrammar> compiled;
  CacheOutcome outcome = CacheOutcome::Built;
  std::vector<std::string> ignored;
  std::vector<SuspectedTypo> typos;
  qwen3::OutputLanguage lang;
  if (prompt.chat) {
    req.chat = runtime::ChatTurn{prompt.start, prompt.tools, prompt.tool_format, prompt.continuation};
    lang.start = prompt.start;
    lang.body = options.constraint ? &*options.constraint : nullptr;
    lang.tools = &req.chat->tools;
    lang.format = prompt.tool_format;
    lang.choice = resolve_tool_choice(prompt, options);
    if (options.constraint && options.constraint->kind() != OutputConstraint::Kind::JsonSchema &&
        options.constraint->kind() != OutputConstraint::Kind::JsonObject && !prompt.tools.empty() &&
        lang.choice.mode != ToolChoiceMode::None)
      throw std::move(RequestError(RequestErrorKind::ConflictingOptions,
                                   std::string("a ") + constraint_kind_name(options.constraint->kind()) +
                                       " constraint cannot be combined with active tools (set tool_choice to none)")
                          .at_param("tools"));
    const bool force = options.thinking_token_budget.has_value() && prompt.start != OutputStart::Body;
    if (qwen3::needs_grammar(lang, force)) {
      try {
        auto r = cache().get("chat\x1f" + qwen3::output_language_key(lang),
                             [&] { return qwen3::output_language_grammar(lang); }, co);
        compiled = std::move(r.grammar);
        outcome = cache_outcome(r.source);
      } catch (const grammar::GrammarError& e) {
        // The body constraint alone says where an empty or too large language comes from, with its
        // own typed error (a JSON Pointer into the schema); it is compiled only on this error path.
        if (options.constraint) (void)text::compile_constraint(*options.constraint, domain_.get(), &cache(), co);
        // So does a strict tool whose parameters admit no value (named in tools[i]).
        if (e.kind() == grammar::GrammarErrorKind::EmptyLanguage) {
          for (size_t i = 0; i < prompt.tools.size(); ++i) {
            if (!prompt.tools[i].strict || prompt.tools[i].parameters.empty()) continue;
            try {
              (void)text::compile_constraint(OutputConstraint::json_schema(prompt.tools[i].parameters), domain_.get(),
                                             nullptr, co);
            } catch (ConstraintError& ce) {
              throw ce.in_tool(static_cast<int>(i));
            }
          }
        }
        if (e.kind() == grammar::GrammarErrorKind::EmptyLanguage)
          throw ConstraintError(ConstraintErrorKind::Unsatisfiable, std::string("the chat output language is empty: ") + e.what());
        throw ConstraintError(ConstraintErrorKind::LimitExceeded, std::string("the chat output grammar is too large: ") + e.what())
            .with_limit(e.limit(), e.limit_value());
      }
      if (options.constraint) {
        text::AuditedKeywords audit = text::keyword_audit_for(*options.constraint, compiled);
        ignored = std::move(audit.ignored);
        typos = std::move(audit.suspected_typos);
      }
    }
  } else if (options.constraint) {
    text::CompiledConstraint cc = text::compile_constraint(*options.constraint, domain_.get(), &cache(), co);
    compiled = std::move(cc.grammar);
    outcome = cache_outcome(cc.source);
    ignored = std::move(cc.ignored_keywords);
    typos = std::move(cc.suspected_typos);
  }
  if (!compiled) {
    if (options.constraint) throw std::logic_error("a constrained request without a grammar");
    req.session = std::make_unique<runtime::OutputSession>(tok_, options.ignore_eos);
    return;
  }
  req.session = std::make_unique<runtime::OutputSession>(tok_, std::move(compiled), outcome, options.phase_timings);
  req.session->set_ignored_keywords(std::move(ignored), std::move(typos));
  if (req.chat && options.thinking_token_budget && prompt.start != OutputStart::Body) {
    runtime::ThinkingBudget b;
    b.starts_inside = prompt.start == OutputStart::Thinking;
    b.open = std::string(qwen3::kThinkOpen);
    b.close = std::string(qwen3::kThinkClose);
    b.close_tokens = tok_->encode(b.close);
    b.budget = *options.thinking_token_budget;
    req.session->set_thinking_budget(std::move(b));
  }
  if (prompt.continuation && !req.session->start_after(*prompt.continuation))
    throw std::move(RequestError(RequestErrorKind::InvalidContinuation,
                                 "the constraint rejects the continued assistant message: " +
                                     req.session->explain_prefix_rejection(*prompt.continuation))
                        .at_param(prompt.continuation_param.empty() ? "messages" : prompt.continuation_param));
  if (!req.session->initial_mask_nonempty())
    throw RequestError(RequestErrorKind::EmptyInitialMask, "the constraint allows no token at the first position");
  if (options.phase_timings) req.session->add_prepare_cpu(runtime::thread_cpu_seconds() - cpu0);
  std::lock_guard<std::mutex> lock(stats_mu_);
  (outcome == CacheOutcome::Hit ? stats_.cache_hits : outcome == CacheOutcome::Waited ? stats_.cache_waits
                                                                                      : stats_.cache_builds)++;
}

std::unique_ptr<Request> EngineImpl::make_request(PreparedPrompt prompt, RequestOptions options,
                                                  Clock::time_point submitted) {
  validate_options(options);
  if (prompt.tokens.empty()) throw RequestError(RequestErrorKind::InvalidRequest, "the prompt is empty");
  check_prompt_tokens(prompt.tokens, tok_->vocab_size());
  if (static_cast<int>(prompt.tokens.size()) + 1 > max_context_)
    throw RequestError(RequestErrorKind::PromptTooLong, "prompt of " + std::to_string(prompt.tokens.size()) +
                                                            " tokens leaves no room in a context of " +
                                                            std::to_string(max_context_));

  // Outstanding-slot reservation, released on every failure below (and by enqueue's).
  if (outstanding_.fetch_add(1) >= options_.max_outstanding) {
    outstanding_.fetch_sub(1);
    throw RequestError(RequestErrorKind::Overloaded, "too many outstanding requests");
  }
  try {
    auto req = std::make_unique<Request>();
    req->prompt = std::move(prompt.tokens);
    req->submitted = submitted;
    req->seed = options.sampling.seed ? *options.sampling.seed : std::random_device{}() * 0x100000001ull;
    req->tool_call_id_seed = options.tool_call_id_seed.value_or(req->seed);
    prepare_session(*req, prompt, options);
    req->stops = runtime::StopStrings(options.stop);
    const int k = options_.speculative == SpeculativeMethod::None
                      ? 0
                      : std::min(options.max_draft_tokens.value_or(options_.max_draft_tokens), options_.max_draft_tokens);
    req->draft_length = speculative::DraftLength{k, options_.adaptive_draft_tokens, k};
    req->drafts.reserve(static_cast<size_t>(k));
    req->options = std::move(options);
    req->state = std::make_shared<RequestState>(next_id_.fetch_add(1));
    return req;
  } catch (...) {
    outstanding_.fetch_sub(1);
    throw;
  }
}

std::vector<RequestHandle> EngineImpl::enqueue(std::vector<std::unique_ptr<Request>> requests) {
  try {
    std::vector<RequestHandle> handles;
    handles.reserve(requests.size());
    for (const auto& r : requests) handles.emplace_back(r->state);
    {
      std::lock_guard<std::mutex> lock(queue_mu_);
      const Clock::time_point now = Clock::now();
      // The pending deadline runs from submit: a slow compile does not extend it.
      for (const auto& r : requests) {
        if (r->options.pending_deadline && now - r->submitted > *r->options.pending_deadline)
          throw RequestError(RequestErrorKind::DeadlineExceeded, "pending deadline passed during preparation");
      }
      if (stopping_) throw RequestError(RequestErrorKind::ShuttingDown, "the engine is shutting down");
      for (auto& r : requests) {
        r->enqueued = now;
        waiting_.push_back(std::move(r));
      }
    }
    queue_cv_.notify_one();
    return handles;
  } catch (...) {
    outstanding_.fetch_sub(static_cast<int>(requests.size()));
    throw;
  }
}

RequestHandle EngineImpl::submit(PreparedPrompt prompt, RequestOptions options) {
  std::vector<std::unique_ptr<Request>> one;
  one.push_back(make_request(std::move(prompt), std::move(options), Clock::now()));
  return enqueue(std::move(one)).front();
}

std::vector<RequestHandle> EngineImpl::submit_together(std::vector<PreparedPrompt> prompts,
                                                       std::vector<RequestOptions> options) {
  if (prompts.size() != options.size())
    throw RequestError(RequestErrorKind::InvalidRequest, std::to_string(prompts.size()) + " prompts with " +
                                                             std::to_string(options.size()) + " sets of options");
  const Clock::time_point submitted = Clock::now();
  std::vector<std::unique_ptr<Request>> requests;
  requests.reserve(prompts.size());
  try {
    for (size_t i = 0; i < prompts.size(); ++i) {
      try {
        requests.push_back(make_request(std::move(prompts[i]), std::move(options[i]), submitted));
      } catch (RequestError& e) {
        e.at_param("requests[" + std::to_string(i) + "]" + (e.param().empty() ? "" : "." + e.param()));
        throw;
      }
    }
  } catch (...) {
    outstanding_.fetch_sub(static_cast<int>(requests.size()));  // the ones made before the rejection
    throw;
  }
  return enqueue(std::move(requests));
}

void EngineImpl::hold_admission(bool hold) {
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    held_ = hold;
  }
  queue_cv_.notify_all();
}

EngineStats EngineImpl::stats() const {
  std::lock_guard<std::mutex> lock(stats_mu_);
  return stats_;
}

void EngineImpl::run() {
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(queue_mu_);
      if (active_.empty())
        queue_cv_.wait_for(lock, std::chrono::milliseconds(20),
                           [&] { return stopping_ || (!held_ && !waiting_.empty()); });
      if (stopping_) break;
    }
    try {
      admit();
      if (!active_.empty()) step();
    } catch (const std::exception& e) {
      // An integrity failure of the execution itself: fail the batch, keep the engine alive.
      program_->abort();
      for (auto& r : active_)
        if (r) finish(r, FinishReason::Error, RequestErrorKind::Internal, e.what());
      active_.clear();
    }
  }
  // Shutdown: everything still queued or running ends with ShuttingDown.
  std::deque<std::unique_ptr<Request>> rest;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    rest.swap(waiting_);
  }
  for (auto& r : active_)
    if (r) finish(r, FinishReason::Error, RequestErrorKind::ShuttingDown, "the engine shut down");
  for (auto& r : rest) finish(r, FinishReason::Error, RequestErrorKind::ShuttingDown, "the engine shut down");
}

void EngineImpl::admit() {
  std::vector<std::unique_ptr<Request>> expired;
  std::vector<Request*> admitted;
  {
    std::lock_guard<std::mutex> lock(queue_mu_);
    const Clock::time_point now = Clock::now();
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      Request& r = **it;
      const bool late = r.options.pending_deadline && now - r.submitted > *r.options.pending_deadline;
      if (late || r.state->cancelled()) {
        expired.push_back(std::move(*it));
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
    while (!held_ && !free_slots_.empty() && !waiting_.empty()) {
      std::unique_ptr<Request> r = std::move(waiting_.front());
      waiting_.pop_front();
      r->slot = free_slots_.back();
      free_slots_.pop_back();
      r->started = now;
      admitted.push_back(r.get());
      active_.push_back(std::move(r));
    }
  }
  for (auto& r : expired) {
    if (r->state->cancelled())
      finish(r, FinishReason::Cancelled);
    else
      finish(r, FinishReason::Error, RequestErrorKind::DeadlineExceeded, "pending deadline passed before a batch row was free");
  }
  for (Request* r : admitted) {
    if (model_->slot_length(r->slot) != 0) model_->truncate_slot(r->slot, 0);
    if (!prefix_cache_) continue;
    // At least the prompt's last token is computed: its logits give the first output token.
    r->prompt_done = static_cast<size_t>(
        prefix_cache_->restore(r->prompt, static_cast<int>(r->prompt.size()) - 1, *model_, r->slot));
    r->cached_tokens = r->prompt_done;
  }
  if (prefix_cache_ && !admitted.empty()) publish_prefix_cache_stats();
}

void EngineImpl::propose_drafts() {
  draft_rows_.clear();
  draft_requests_.clear();
  // Each row's drafts on offer: the constraint's forced bytes first (every method, up to the
  // limit), then the n-gram's (proposed now: they cost nothing) or the draft model's (counted now,
  // proposed once the plan has chosen how many).
  std::vector<Request*> offering;
  std::vector<speculative::RowCandidates> candidates;
  int decoding = 0;
  for (const auto& owner : active_) {
    Request& r = *owner;
    r.drafts.clear();
    r.draft_q.clear();
    r.forced_drafts = 0;
    if (!r.prefilled) continue;
    ++decoding;
    if (r.draft_length.max == 0) continue;
    const int tokens_left = r.options.max_tokens - static_cast<int>(r.generated.size());
    const int positions_left = max_context_ - model_->slot_length(r.slot);
    const int limit = r.draft_length.limit(tokens_left, positions_left);
    if (limit <= 0) continue;
    if (r.session->constrained()) {
      constexpr size_t kForcedBytes = 256;  // far more than K tokens of any tokenizer
      speculative::propose_forced(*tok_, r.session->forced_bytes(kForcedBytes), limit, r.drafts);
    }
    r.forced_drafts = static_cast<int>(r.drafts.size());
    const int k = std::max(r.draft_length.next(tokens_left, positions_left), r.forced_drafts);
    const int more = k - static_cast<int>(r.drafts.size());
    int model_drafts = 0;
    if (more > 0 && options_.speculative != SpeculativeMethod::Grammar && r.draft_length.model_drafts_now()) {
      if (options_.speculative == SpeculativeMethod::NGram) {
        ngram_scratch_.clear();
        speculative::propose_ngram(r.prompt, r.generated, r.drafts, more,
                                   speculative::NGramOptions{options_.ngram_max, options_.ngram_min}, ngram_scratch_);
        r.drafts.insert(r.drafts.end(), ngram_scratch_.begin(), ngram_scratch_.end());
      } else if (draft_) {
        model_drafts = more;
      }
    }
    const int ready = static_cast<int>(r.drafts.size());
    if (ready + model_drafts == 0) continue;
    offering.push_back(&r);
    candidates.push_back({ready + model_drafts, ready, r.draft_length.accept_probability(), r.draft_length.probe_due()});
  }
  if (offering.empty()) return;

  // The plan: how many of its drafts each row verifies. Every kExploreEvery steps it takes one
  // draft more, or one fewer, than the best, so that the shapes around the best stay measured.
  std::vector<int> plan(candidates.size());
  if (options_.draft_cost_check) {
    constexpr uint64_t kExploreEvery = 16;
    ++plan_steps_;
    const int explore = plan_steps_ % kExploreEvery != 0 ? 0 : (plan_steps_ / kExploreEvery) % 2 ? 1 : -1;
    plan = speculative::plan_drafts(candidates, {&step_costs_, decoding, draft_round_s_}, explore);
  } else {
    for (size_t i = 0; i < candidates.size(); ++i) plan[i] = candidates[i].available;
  }
  for (size_t i = 0; i < offering.size(); ++i) {
    Request& r = *offering[i];
    r.draft_length.planned(candidates[i].available, plan[i]);
    const int ready = candidates[i].forced;
    if (plan[i] < ready) r.drafts.resize(static_cast<size_t>(plan[i]));
    r.forced_drafts = std::min(r.forced_drafts, plan[i]);
    if (plan[i] <= ready) continue;
    speculative::DraftRow d;
    d.slot = r.slot;
    d.prompt = r.prompt;
    d.generated = r.generated;
    d.pending = r.drafts;
    d.max_tokens = plan[i] - ready;
    d.params = sampling_params(r.options.sampling);
    d.seed = r.seed;
    d.position = r.generated.size() + r.drafts.size();
    draft_rows_.push_back(d);
    draft_requests_.push_back(&r);
  }
  if (draft_rows_.empty()) return;
  // Constrained rows draft under their grammar, from the frontier past their forced tokens.
  std::vector<SessionDraftConstraint> constraints;
  constraints.reserve(draft_rows_.size());
  for (size_t i = 0; i < draft_rows_.size(); ++i) {
    runtime::OutputSession& session = *draft_requests_[i]->session;
    if (!session.constrained()) continue;
    if (!session.begin_draft(draft_rows_[i].pending)) {
      draft_rows_[i].max_tokens = 0;
      continue;
    }
    constraints.emplace_back(session);
    draft_rows_[i].constraint = &constraints.back();
  }
  bool ok = true;
  const Clock::time_point t0 = Clock::now();
  try {
    draft_->propose(draft_rows_, draft_results_);
  } catch (const std::exception&) {
    ok = false;  // a draft that cannot run (e.g. a context it cannot hold) only costs this step its drafts
  }
  int rounds = 0;
  for (const speculative::DraftRow& d : draft_rows_) rounds = std::max(rounds, d.max_tokens);
  if (ok && rounds > 0)
    speculative::learn_moving_average(draft_round_s_, std::chrono::duration<double>(Clock::now() - t0).count() / rounds);
  for (SessionDraftConstraint& c : constraints) c.end();
  if (!ok) return;
  for (size_t i = 0; i < draft_requests_.size(); ++i) {
    Request& r = *draft_requests_[i];
    const speculative::DraftResult& res = draft_results_[i];
    const size_t forced = r.drafts.size();
    r.drafts.insert(r.drafts.end(), res.tokens.begin(), res.tokens.end());
    bool sparse = false;
    for (const auto& q : res.q_tokens) sparse |= !q.empty();
    if (!sparse) continue;
    r.draft_q.assign(forced, ops::DraftQ{});  // forced tokens are one-hot
    for (size_t j = 0; j < res.tokens.size(); ++j) r.draft_q.push_back(ops::DraftQ{res.q_tokens[j], res.q_probs[j]});
  }
}

int EngineImpl::prompt_budget(int decoding) const {
  // Every kDecodeOnlyEvery steps with a chunk, one step decodes alone, to measure a decode-only step
  // again: the running rows' steps grow dearer as their contexts grow, and a stale estimate charges
  // that growth to the prompt's positions, which shrinks the next chunk, which charges the growth to
  // fewer positions... down to one position a step (a 4,096-token prompt beside 4 streams took
  // minutes per hundred tokens).
  const int step = options_.max_step_tokens - decoding;
  if (decoding == 0) return step;
  if (options_.max_decode_slowdown > 0 && steps_since_decode_only_ >= kDecodeOnlyEvery) return 0;
  int chunk = options_.prefill_tokens_while_decoding;
  const double decode_step_s = step_costs_.estimate(decoding);
  if (options_.max_decode_slowdown > 0 && decode_step_s > 0 && prompt_position_s_ > 0) {
    // The step (decode rows + chunk) is predicted from the two costs; it must fit the budget even
    // when it takes as much longer than predicted as the worst decile of recent chunk steps did
    // (a busy core, a cache-cold layer), so that the budget bounds the streams' tail latency.
    // Rounded up: a chunk's cost has a part that does not shrink with it (its attention reads the
    // prompt's keys and values so far), so the average per position overstates what one more
    // position costs; rounded down, the fit of a small chunk never reaches the next size even when
    // the budget has room for several more (a 4,096-token prompt stuck at 1-2 positions a step for
    // its last ~1,000). Up, the chunk grows until its own average says it is full, at most one
    // position over.
    const double miss = std::clamp(chunk_step_error_.quantile(0.9, 16, 1.0), 1.0, options_.max_decode_slowdown);
    const double fits = (options_.max_decode_slowdown / miss - 1.0) * decode_step_s / prompt_position_s_;
    chunk = static_cast<int>(std::clamp(std::ceil(fits), 1.0, static_cast<double>(chunk)));
  }
  return std::min(step, chunk);
}

EngineImpl::ChunkPlan EngineImpl::plan_chunk(const Request& r, int64_t work, size_t cap, int decoding,
                                             bool partial_taken) const {
  if (work <= 0 || cap == 0) return {};
  if (r.chunk_positions > 0) {  // goes on through its layers, at least one a step
    if (partial_taken) return {};
    const int left = layers_ - r.chunk_layers;
    const int64_t fits = work / static_cast<int64_t>(r.chunk_positions);
    return {r.chunk_positions, decoding == 0 ? left : static_cast<int>(std::clamp<int64_t>(fits, 1, left))};
  }
  const size_t remaining = r.prompt.size() - r.prompt_done;
  const size_t whole = std::min(static_cast<size_t>(work / layers_), remaining);  // through every layer
  const size_t most = std::min(remaining, cap);
  if (decoding == 0 || layers_ == 1 || partial_taken || whole >= most) return {std::min(whole, most), layers_};
  // Beside decoding rows with room for fewer positions than the chunk may hold: the whole chunk, a
  // few layers a step. Each step's attention reads the prompt's keys and values so far, once for
  // the chunk's positions, where a chunk through every layer would hold only `whole` of them (a
  // 4,096-token prompt beside 4 streams: ~4 positions a step). As many layers as make the work
  // whole in chunks of at most `most` positions; one layer at least.
  const int64_t layers = std::clamp<int64_t>((work + static_cast<int64_t>(most) - 1) / static_cast<int64_t>(most), 1,
                                             layers_);
  const size_t positions = std::clamp<size_t>(static_cast<size_t>(work / layers), 1, most);
  return {positions, static_cast<int>(layers)};
}

void EngineImpl::learn_step_costs(double forward_s, int decoding, double prompt_positions, uint64_t draft_positions) {
  const int decode_positions = decoding + static_cast<int>(draft_positions);
  if (prompt_positions <= 0) {
    if (decoding > 0) {
      step_costs_.learn(decode_positions, forward_s);
      steps_since_decode_only_ = 0;
    }
    return;
  }
  ++steps_since_decode_only_;
  // Beside decoding rows, the prompt's share is what the step took beyond a decode-only step of
  // the same rows and drafts.
  const double decode_s = decoding > 0 ? step_costs_.estimate(decode_positions) : 0;
  const double prompt_s = decoding > 0 && decode_s > 0 ? forward_s - decode_s : forward_s;
  if (decode_s > 0 && prompt_position_s_ > 0)
    chunk_step_error_.add(forward_s / (decode_s + prompt_position_s_ * prompt_positions));
  if (prompt_s > 0) speculative::learn_moving_average(prompt_position_s_, prompt_s / prompt_positions);
}

void EngineImpl::publish_prefix_cache_stats() {
  const runtime::PrefixCacheStats& p = prefix_cache_->stats();
  std::lock_guard<std::mutex> lock(stats_mu_);
  stats_.prefix_cache_hits = p.hits;
  stats_.prefix_cache_misses = p.misses;
  stats_.prefix_cache_hit_tokens = p.hit_tokens;
  stats_.prefix_cache_evictions = p.evictions;
  stats_.prefix_cache_blocks = p.blocks;
  stats_.prefix_cache_bytes = p.bytes;
}

void EngineImpl::step() {
  // Cancellation takes effect at the commit boundary before the next batch.
  for (auto& r : active_)
    if (r->state->cancelled()) finish(r, FinishReason::Cancelled);
  std::erase_if(active_, [](const std::unique_ptr<Request>& r) { return !r; });
  if (active_.empty()) return;

  // The step's rows: every decoding row, then prompt chunks in admission order within the budget.
  // While rows decode, prompts get a small budget (their inter-token latency is what it buys);
  // alone, they get the whole step.
  int decoding = 0, drafted = 0;
  propose_drafts();
  for (const auto& r : active_) {
    if (!r->prefilled) continue;
    ++decoding;
    drafted += static_cast<int>(r->drafts.size());
  }
  // What prompts may add, in positions through every layer; a chunk may go through some of the
  // layers a step (plan_chunk).
  const int budget = prompt_budget(decoding) - drafted;
  int64_t work = int64_t{std::max(budget, 0)} * layers_;
  if (const int64_t fixed = fixed_prompt_work_.load(); fixed > 0 && decoding > 0) work = fixed;
  const size_t cap = static_cast<size_t>(std::max(
      decoding > 0 ? std::min(options_.prefill_tokens_while_decoding, options_.max_step_tokens - decoding - drafted)
                   : options_.max_step_tokens,
      0));

  std::vector<size_t> index;  // batch row -> active_ index
  std::vector<Request*> rows;
  std::vector<runtime::BatchRow> batch;
  std::vector<ChunkPlan> chunks_planned;  // batch row -> its prompt chunk's share (none: decoding)
  index.reserve(active_.size());
  rows.reserve(active_.size());
  batch.reserve(active_.size());
  chunks_planned.reserve(active_.size());
  bool any_constrained = false;
  auto add_row = [&](size_t a, runtime::BatchRow b, ChunkPlan c) {
    Request& r = *active_[a];
    b.slot = r.slot;
    b.params = sampling_params(r.options.sampling);
    b.penalties = r.penalties;
    b.seed = r.seed;
    b.position = r.generated.size();
    index.push_back(a);
    rows.push_back(&r);
    batch.push_back(b);
    chunks_planned.push_back(c);
    any_constrained |= b.sample && r.session->constrained();
  };
  // A row through part of the layers goes last (the model's rule), and there is one at most. A chunk
  // part of the way through goes on before any other starts one: one prompt's hidden rows wait at a
  // time, and a later prompt's chunk never waits on an earlier prompt's new ones.
  struct PartialRow {
    size_t active;
    runtime::BatchRow row;
    ChunkPlan plan;
  };
  std::optional<PartialRow> partial;
  const bool in_flight =
      std::any_of(active_.begin(), active_.end(), [](const std::unique_ptr<Request>& r) { return r->chunk_positions > 0; });
  for (size_t a = 0; a < active_.size(); ++a) {
    Request& r = *active_[a];
    runtime::BatchRow b;
    if (r.prefilled) {
      b.input = std::span<const int32_t>(&r.generated.back(), 1);
      b.drafts = r.drafts;
      b.draft_q = r.draft_q;
      add_row(a, b, {});
      continue;
    }
    const ChunkPlan c = plan_chunk(r, work, cap, decoding, partial.has_value() || (in_flight && r.chunk_positions == 0));
    if (c.positions == 0) continue;  // waits for a later step
    work -= static_cast<int64_t>(c.positions) * c.layers;
    const int first = r.chunk_positions > 0 ? r.chunk_layers : 0;
    const bool last_layers = first + c.layers == layers_;
    b.input = std::span<const int32_t>(r.prompt).subspan(r.prompt_done, c.positions);
    b.layers = last_layers ? 0 : c.layers;
    b.sample = last_layers && r.prompt_done + c.positions == r.prompt.size();
    b.prompt = true;
    if (first > 0 || !last_layers) {
      partial = PartialRow{a, b, c};
    } else {
      add_row(a, b, c);
    }
  }
  if (partial) add_row(partial->active, partial->row, partial->plan);
  BatchMaskProvider provider(rows);
  const double forward_before = program_->timings().forward_s;
  runtime::PendingBatch& pending = program_->decode(batch, any_constrained ? &provider : nullptr);
  const double forward_s = program_->timings().forward_s - forward_before;
  const Clock::time_point commit_t0 = Clock::now();

  // Preview every row's produced prefix; a failed preview restores all previews and aborts the batch.
  std::vector<int> accepted(rows.size(), 0);
  std::vector<runtime::PreviewOutcome> outcomes(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const runtime::RowResult& rr = pending.rows[i];
    if (rr.kind != runtime::RowResultKind::Produced) continue;
    const int budget_left = rows[i]->options.max_tokens - static_cast<int>(rows[i]->generated.size());
    outcomes[i] = rows[i]->session->preview(rr.tokens, budget_left);
    if (!outcomes[i].ok) {
      for (size_t j = 0; j < i; ++j)
        if (pending.rows[j].kind == runtime::RowResultKind::Produced) rows[j]->session->discard();
      program_->abort();  // (which forgets chunks part of the way through the layers: they start again)
      for (Request* row : rows) row->chunk_positions = 0, row->chunk_layers = 0;
      finish(active_[index[i]], FinishReason::Error, RequestErrorKind::Internal,
             "a sampled token was refused by the request's matcher (integrity failure)");
      std::erase_if(active_, [](const std::unique_ptr<Request>& r) { return !r; });
      return;
    }
    accepted[i] = outcomes[i].accepted;
  }
  program_->commit(accepted);

  // Prompts are in their slots now, whatever their first token turns out to be: chunks advance,
  // and prompts give their whole blocks to the prefix cache (a completed one after its first token
  // is out, where the copy of a 2,000-token prompt took ~0.5 s of that token's time, and before
  // finish() releases its slot).
  uint64_t prompt_tokens = 0, chunks = 0, sampled = 0;
  double prompt_work = 0;  // positions through every layer
  DraftCounts step_drafts;
  bool stored = false;
  auto store_blocks = [&](const Request& r, size_t tokens) {  // of r's first `tokens` prompt tokens
    prefix_cache_->store(std::span<const int32_t>(r.prompt).first(tokens), *model_, r.slot);
    stored = true;
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    Request& r = *rows[i];
    if (r.prefilled) {
      ++sampled;
      const runtime::RowResult& rr = pending.rows[i];
      if (rr.drafted > 0 && rr.kind == runtime::RowResultKind::Produced) {
        // Drafts the committed prefix holds (a stop inside the chain commits fewer).
        const int accepted_drafts = std::min(rr.drafts_accepted, accepted[i]);
        for (DraftCounts* c : {&r.draft_counts, &step_drafts}) {
          c->drafted += static_cast<uint64_t>(rr.drafted);
          c->accepted += static_cast<uint64_t>(accepted_drafts);
          c->illegal += rr.draft_illegal;
          ++c->steps;
        }
        // The adaptive length and the back-off follow the model proposer's drafts (after the forced ones).
        const int model_drafted = rr.drafted - r.forced_drafts;
        const int model_accepted = std::max(rr.drafts_accepted - r.forced_drafts, 0);
        r.draft_length.learn(model_drafted, model_accepted);
        r.draft_length.learn_model(model_drafted, model_accepted);
        r.draft_length.learn_acceptance(rr.drafted, accepted_drafts);
      }
      continue;
    }
    const ChunkPlan& c = chunks_planned[i];
    prompt_work += static_cast<double>(c.positions) * c.layers / layers_;
    if (batch[i].layers > 0) {  // through part of the layers: the rest in later steps
      r.chunk_positions = c.positions;
      r.chunk_layers += c.layers;
      continue;
    }
    r.chunk_positions = 0;
    r.chunk_layers = 0;
    const size_t done_before = r.prompt_done;
    prompt_tokens += batch[i].input.size();
    r.prompt_done += batch[i].input.size();
    if (!batch[i].sample) {
      ++chunks;
      // Beside running rows, the blocks this chunk completed go to the prefix cache now: a long
      // prompt's copies are spread over its chunk steps instead of stalling the step that ends it,
      // which the rows share (4,096 positions of Qwen3-0.6B: 470 MB). Alone, a prompt's copies wait
      // until its first token is out (in a fresh process, copying a 2,000-token prompt's blocks
      // chunk by chunk took its first token from 3.7-3.8 to 5.1-5.2 s).
      const size_t bt = prefix_cache_ && decoding > 0 ? static_cast<size_t>(prefix_cache_->block_tokens()) : 0;
      if (bt > 0 && r.prompt_done / bt > done_before / bt) store_blocks(r, r.prompt_done);
      continue;
    }
    ++sampled;
  }
  learn_step_costs(forward_s, decoding, prompt_work, static_cast<uint64_t>(drafted));
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.steps;
    stats_.rows_decoded += sampled;
    stats_.prompt_tokens_computed += prompt_tokens;
    stats_.prompt_chunks += chunks;
    stats_.prompt_layer_steps += partial.has_value();
    stats_.draft_tokens += step_drafts.drafted;
    stats_.draft_tokens_accepted += step_drafts.accepted;
    stats_.draft_tokens_illegal += step_drafts.illegal;
    stats_.draft_rows += step_drafts.steps;
    stats_.decode_step_cost_s = step_costs_.estimate(decoding);
    if (drafted > 0)
      stats_.draft_position_cost_s = (step_costs_.estimate(decoding + drafted) - stats_.decode_step_cost_s) / drafted;
    stats_.step_cost_s = step_costs_.seconds();
    if (any_constrained) ++stats_.provider_calls;
    for (size_t i = 0; i < rows.size(); ++i) stats_.constrained_rows += batch[i].sample && rows[i]->session->constrained();
  }

  for (size_t i = 0; i < rows.size(); ++i) {
    Request& r = *rows[i];
    std::unique_ptr<Request>& owner = active_[index[i]];
    const runtime::RowResult& rr = pending.rows[i];
    if (rr.kind == runtime::RowResultKind::PromptChunk) continue;
    const bool prompt_completed = prefix_cache_ && batch[i].prompt;  // (a prompt row here sampled)
    if (prompt_completed && rr.kind != runtime::RowResultKind::Produced) store_blocks(r, r.prompt.size());
    if (rr.kind == runtime::RowResultKind::ConstraintDeadEnd) {
      finish(owner, FinishReason::Error, RequestErrorKind::ConstraintDeadEnd,
             "generation reached a grammar state with no legal token: " + r.session->explain_dead_end());
      continue;
    }
    if (rr.kind == runtime::RowResultKind::NonFiniteLogits) {
      finish(owner, FinishReason::Error, RequestErrorKind::NonFiniteLogits, "the model produced a non-finite logit");
      continue;
    }
    r.session->commit();
    r.prefilled = true;
    StreamEvent ev;
    for (int k = 0; k < accepted[i]; ++k) {
      r.generated.push_back(rr.tokens[k]);
      r.count_token(rr.tokens[k]);
      ev.tokens.push_back(rr.tokens[k]);
    }
    ev.text = r.stops.push(r.session->take_published());
    r.text += ev.text;
    if (!ev.tokens.empty()) r.state->publish(std::move(ev));
    if (prompt_completed) store_blocks(r, r.prompt.size());
    if (outcomes[i].eos || r.stops.stopped()) {
      finish(owner, FinishReason::Stop);
    } else if (static_cast<int>(r.generated.size()) >= r.options.max_tokens ||
               model_->slot_length(r.slot) + 1 > max_context_) {
      finish(owner, FinishReason::Length);
    }
  }
  std::erase_if(active_, [](const std::unique_ptr<Request>& r) { return !r; });
  if (stored) publish_prefix_cache_stats();
  std::lock_guard<std::mutex> lock(stats_mu_);
  const runtime::Program::Timings& t = program_->timings();
  stats_.forward_s = t.forward_s;
  stats_.mask_s = t.mask_s;
  stats_.mask_exposed_s = t.mask_exposed_s;
  stats_.sample_s = t.sample_s;
  stats_.commit_s += seconds_between(commit_t0, Clock::now());
}

void EngineImpl::finish(std::unique_ptr<Request>& req, FinishReason reason, std::optional<RequestErrorKind> error,
                        std::string message) {
  Request& r = *req;
  const Clock::time_point now = Clock::now();
  GenerationResult res;
  if (r.session) {
    if (r.session->preview_open()) r.session->discard();
    std::string tail = r.stops.push(r.session->finish_text());
    if (!r.stops.stopped()) tail += r.stops.flush();
    if (!tail.empty()) {
      r.text += tail;
      r.state->publish(StreamEvent{tail, {}, false});
    }
    if (r.session->constrained()) {
      res.constraint = r.session->report();
      res.constraint->drafts = r.draft_counts;
    }
    if (r.stops.stopped()) res.stop_sequence = r.stops.matched();
  }
  if (r.chat && reason != FinishReason::Error) {
    res.chat = runtime::split_chat_output(*r.chat, r.text, r.tool_call_id_seed);
    res.usage.reasoning_tokens = runtime::thinking_block_tokens(*r.chat, r.generated, *tok_);
    // DESIGN.md section 8: the branch the output took, from what it holds (thinking is neither).
    if (res.constraint)
      res.constraint->branch = !res.chat->tool_calls.empty() ? "tools" : !res.chat->content.empty() ? "content" : "undecided";
  }
  res.text = std::move(r.text);
  res.tokens = std::move(r.generated);
  res.finish_reason = reason;
  res.usage.prompt_tokens = static_cast<int>(r.prompt.size());
  res.usage.cached_tokens = static_cast<int>(r.cached_tokens);
  res.usage.completion_tokens = static_cast<int>(res.tokens.size());
  res.seed = r.seed;
  res.error = error;
  res.error_message = std::move(message);
  res.drafts = r.draft_counts;
  if (r.started != Clock::time_point{}) res.queue_s = seconds_between(r.enqueued, r.started);
  res.total_s = seconds_between(r.submitted, now);
  if (r.slot >= 0) {
    model_->truncate_slot(r.slot, 0);  // zero-accept release of the row
    free_slots_.push_back(r.slot);
    r.slot = -1;
  }
  {
    std::lock_guard<std::mutex> lock(stats_mu_);
    ++stats_.finished;
    if (reason == FinishReason::Error) ++stats_.failed;
    if (reason == FinishReason::Cancelled) ++stats_.cancelled;
  }
  outstanding_.fetch_sub(1);
  r.state->finish(std::move(res));
  req.reset();
}

}  // namespace ninfer
