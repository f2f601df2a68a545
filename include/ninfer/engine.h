// The public engine API (no third-party types): an Engine owns one model, a worker thread that runs
// continuous batches, and the per-vocabulary constraint compile cache. Requests go through
// prepare(PromptInput) -> submit(PreparedPrompt, RequestOptions) -> RequestHandle.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "ninfer/chat.h"
#include "ninfer/output_constraint.h"

namespace ninfer {

// Who proposes the drafts of speculative decoding (DESIGN.md section 7): the constraint's forced
// tokens (Grammar, constrained rows only), prompt lookup (NGram), or a smaller draft model (Draft);
// NGram and Draft take a constrained row's forced tokens first and continue after them. Every draft
// is verified by the target with its mask; the output distribution is plain decoding's.
enum class SpeculativeMethod { None, Grammar, NGram, Draft };
const char* speculative_method_name(SpeculativeMethod method);
// The q of a draft model's drafts: OneHot = greedy drafts (MTP, DFlash); Sparse16 = drawn from the
// draft's top-16 at the request's temperature, q that renormalised distribution (DFlash2).
enum class DraftDistribution { OneHot, Sparse16 };

// The products of prompt positions' attention (a model's generated positions keep its exact kernel):
// Exact: fp32 products of the f16 cache's keys and values (or, with AMX, bf16 parts within a quarter
// of the cache's rounding). Bf16: each query, key, value and softmax weight rounded to bf16 once, with
// fp32 sums, about twice as fast in long prompts where the CPU has AVX512_BF16 (elsewhere: Exact).
// Int8: as Bf16, but each query and key rounded to int8 with one scale per head (its largest
// |value| / 127) and their scores summed exactly in integers, ~15% faster again in long prompts
// (elsewhere: Exact). Auto: Int8 for Q8_0 weights, whose matmuls already round every activation to
// int8 (in blocks of 32), else Exact.
enum class PromptAttention { Auto, Exact, Bf16, Int8 };
const char* prompt_attention_name(PromptAttention products);

struct EngineOptions {
  std::string model;                          // HF folder or GGUF file; empty = the default generated model
  int max_batch_rows = 8;                     // B: rows decoded together
  int max_context = 4096;                     // positions per request (prompt + output)
  SpeculativeMethod speculative = SpeculativeMethod::None;
  int max_draft_tokens = 0;                   // K: drafts per row and step (buffers are sized for K+1); 0 with a method: 4
  bool adaptive_draft_tokens = true;          // per-row K from its acceptance history (false: always K)
  // Each step verifies the drafts that make the most expected tokens per second of the forward's
  // measured cost by step shape (drafting pays on a memory-bound forward, not where positions cost
  // as much as rows); false: every draft on offer.
  bool draft_cost_check = true;
  int ngram_max = 4, ngram_min = 2;           // NGram: the longest and shortest suffix looked up
  std::string draft_model;                    // Draft: HF folder or GGUF file with the target's tokenizer
  DraftDistribution draft_q = DraftDistribution::OneHot;
  size_t grammar_cache_bytes = size_t(256) << 20;
  int threads = 0;                            // model threads; 0 = hardware concurrency
  PromptAttention prompt_attention = PromptAttention::Auto;
  // Weights copied once into memory backed by transparent huge pages (faster decode: fewer TLB
  // misses) instead of mapped from the file (shared with the page cache, nothing copied).
  bool huge_pages = true;
  int max_outstanding = 256;                  // submitted but unfinished requests
  // Chunked prefill: a step's forward pass holds at most max_step_tokens positions (decode rows and
  // prompt chunks together). While any row is decoding, prompts advance by at most
  // prefill_tokens_while_decoding positions per step, and by fewer when max_decode_slowdown is set:
  // then the chunk is sized from measured forward times so that a step takes at most that many times
  // a step of the decoding rows alone, even when it runs as much over its prediction as the worst
  // decile of recent such steps did. A long new prompt thus slows the running streams by a bounded
  // factor instead of freezing them. Where that leaves room for fewer positions than a chunk may
  // hold, the chunk holds them all the same and goes through a few of the model's layers a step
  // (its keys and values read once a step for all its positions, where a few positions a step
  // through every layer read them once for those few). max_decode_slowdown 0: always
  // prefill_tokens_while_decoding positions through every layer. 1.5, not 2: on the 2-core Zen 5 VM
  // a stream's own decode steps vary by ~1.3x (p99 over median), and the budget's misses by as
  // much again; at 2 the p99 gap beside a 4,096-token prompt reached 2.7-3.2x the median alone, at
  // 1.5 2.0-2.95x, with the prompt's first token at 25-28 s (docs/runtime.md, "Chunked prefill").
  int max_step_tokens = 512;
  int prefill_tokens_while_decoding = 256;
  double max_decode_slowdown = 1.5;
  // Exact prefix cache: KV blocks of prompts computed before, reused by later prompts that start
  // with the same tokens (a shared system prompt and tools). 0 bytes turns it off.
  size_t prefix_cache_bytes = size_t(1) << 30;
  int prefix_cache_block_tokens = 16;
};

struct PromptInput {
  std::string text;                   // raw text continuation (ignored when tokens is non-empty)
  std::vector<int32_t> tokens;        // pre-tokenised prompt
  bool chat = false;                  // render `text` as one user turn through the model's chat template
  std::string system;                 // chat only: optional system message
  // A full chat request rendered through a chat template (takes precedence over text/chat).
  std::optional<ChatPromptInput> chat_prompt;
};

struct PreparedPrompt {
  std::vector<int32_t> tokens;
  std::string rendered;  // the text the tokens encode (for logs)
  // Chat prompts: the output is a chat turn, split into reasoning / content / tool calls.
  bool chat = false;
  OutputStart start = OutputStart::Body;
  std::vector<ToolDefinition> tools;
  ToolCallFormat tool_format = ToolCallFormat::Json;  // resolved (never Auto)
  // ContinueFinalAssistant: the body bytes of the continued message (part of `tokens` already);
  // the constraint starts after them and only the new suffix is published.
  std::optional<std::string> continuation;
  std::string continuation_param;  // where that body is in the request ("messages[3].content")
};

struct SamplingOptions {
  float temperature = 1.0f;  // 0 = greedy
  int top_k = 0;
  float top_p = 1.0f;
  float min_p = 0.0f;
  float presence_penalty = 0.0f;
  float frequency_penalty = 0.0f;
  std::optional<uint64_t> seed;  // absent: the engine picks one (reported in the result)
};

struct RequestOptions {
  SamplingOptions sampling;
  int max_tokens = 256;
  std::optional<OutputConstraint> constraint;
  bool phase_timings = false;
  bool ignore_eos = false;  // unconstrained only: keep sampling past EOS (benchmarks)
  // A request still waiting for a batch row after this long fails with DeadlineExceeded.
  std::optional<std::chrono::milliseconds> pending_deadline;
  // Stop strings: the output ends before the first one (never with a guaranteed constraint:
  // cutting a constrained output would break its guarantee).
  std::vector<std::string> stop;
  // Chat prompts with tools: which calls may come (absent = Auto, or None without tools).
  std::optional<ToolChoice> tool_choice;
  // Chat prompts that think: after this many thinking tokens the close is forced (vLLM's field).
  std::optional<int> thinking_token_budget;
  // Speculative decoding for this request: at most this many drafts per step (0: none; absent: the
  // engine's K).
  std::optional<int> max_draft_tokens;
  // Chat prompts: tool-call ids are a function of this and the call's index (absent: the sampling
  // seed). A server draws one per request, so that a conversation replayed with a fixed seed still
  // gets ids of its own in every turn.
  std::optional<uint64_t> tool_call_id_seed;
};

enum class RequestErrorKind {
  InvalidRequest,      // bad options (max_tokens < 1, a NaN temperature, an empty prompt, ...)
  PromptTooLong,       // prompt + 1 exceeds max_context
  EmptyInitialMask,    // the constraint allows no token at the first position
  ConflictingOptions,  // e.g. ignore_eos with a constraint, or a grammar with active tools
  InvalidTemplate,     // the chat template does not parse, or raised an error while rendering
  InvalidTools,        // a tool definition or tool_choice the frontend cannot use (param() names it)
  InvalidContinuation, // the continued assistant message is not there, or the constraint rejects it
  Overloaded,          // max_outstanding reached
  DeadlineExceeded,    // pending deadline passed before the request got a row
  ShuttingDown,
  ConstraintDeadEnd,   // generation reached a state with no legal token (the request fails alone)
  NonFiniteLogits,     // the model produced NaN/inf on a legal token
  Internal,
};
const char* request_error_kind_name(RequestErrorKind kind);

class RequestError : public std::runtime_error {
 public:
  RequestError(RequestErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}
  RequestErrorKind kind() const { return kind_; }
  // Where in the request: a path into the chat context ("tools[2].function.name",
  // "messages[3]"), "" when not applicable.
  const std::string& param() const { return param_; }
  RequestError& at_param(std::string p) { param_ = std::move(p); return *this; }
  // Templates: 1-based line and column in the template source (0 when not applicable).
  int line() const { return line_; }
  int column() const { return column_; }
  RequestError& at_line(int line, int column) { line_ = line, column_ = column; return *this; }

 private:
  RequestErrorKind kind_;
  std::string param_;
  int line_ = 0, column_ = 0;
};

enum class FinishReason { Stop, Length, Cancelled, Error };
const char* finish_reason_name(FinishReason reason);

enum class CacheOutcome { Hit, Built, Waited };
const char* cache_outcome_name(CacheOutcome outcome);

// Speculative decoding: drafts verified, accepted, and rejected because the mask forbade them.
struct DraftCounts {
  uint64_t drafted = 0;
  uint64_t accepted = 0;
  uint64_t illegal = 0;
  uint64_t steps = 0;  // verification steps (steps of this request that carried drafts)
};

// DESIGN.md section 8: what the constraint did, from the committed state.
struct ConstraintReport {
  std::string branch = "undecided";  // undecided | content | tools
  bool complete = false;             // the language may end here
  bool terminated = false;           // EOS was accepted
  CacheOutcome cache = CacheOutcome::Built;
  uint64_t masked_positions = 0;     // positions whose mask was computed (lookahead included)
  uint64_t mask_bytes_uploaded = 0;  // CPU backend: 0 (the mask is consumed in place)
  bool timed = false;                // phase_timings requested
  double prepare_cpu_s = 0;          // constraint preparation (compile or cache lookup, matcher init)
  double mask_cpu_s = 0;             // mask fill / lookahead / rollback
  double accept_cpu_s = 0;           // preview / commit / discard
  DraftCounts drafts;                // speculative decoding under this constraint
  // JSON Schema: JSON Pointers of the keywords the constraint does not enforce (vendor and unknown
  // keywords, keywords of another draft, vendor formats; docs/json-schema.md), in document order.
  std::vector<std::string> ignored_keywords;
  // SchemaStrictness::Lenient: the ignored keywords that look like typos of an assertion keyword.
  std::vector<SuspectedTypo> suspected_typos;
};

struct Usage {
  int prompt_tokens = 0;
  int completion_tokens = 0;
  int reasoning_tokens = 0;  // chat: completion tokens of the thinking block, its close included
  int cached_tokens = 0;     // prompt tokens restored from the prefix cache instead of computed
};

struct GenerationResult {
  std::string text;
  std::vector<int32_t> tokens;
  FinishReason finish_reason = FinishReason::Stop;
  Usage usage;
  uint64_t seed = 0;
  std::optional<ConstraintReport> constraint;
  std::optional<ChatOutput> chat;  // chat prompts: `text` split into reasoning, content and tool calls
  // FinishReason::Stop by a stop string (RequestOptions::stop): the one that matched.
  std::optional<std::string> stop_sequence;
  std::optional<RequestErrorKind> error;  // set when finish_reason == Error
  std::string error_message;
  DraftCounts drafts;    // speculative decoding
  double queue_s = 0;    // from enqueue to first batch
  double total_s = 0;    // from submit to finish
};

// One published increment: text completed by committed tokens (UTF-8 held back until whole).
struct StreamEvent {
  std::string text;
  std::vector<int32_t> tokens;
  bool done = false;  // last event; the result is available
};

class RequestState;

class RequestHandle {
 public:
  RequestHandle() = default;
  explicit RequestHandle(std::shared_ptr<RequestState> state) : state_(std::move(state)) {}

  uint64_t id() const;
  // Blocks for the next event; returns nullopt after the final event was taken.
  std::optional<StreamEvent> next();
  // Event-driven consumers (the HTTP server): the next event if one is queued, without blocking.
  std::optional<StreamEvent> try_next();
  // `notify` runs after each event is queued (on the engine's worker, outside its locks: it must
  // only schedule work, never block), and once right away if events are already waiting.
  void set_notify(std::function<void()> notify);
  // Blocks until the request finishes.
  GenerationResult wait();
  // Asks the worker to stop the request at the next commit boundary (finish reason Cancelled).
  void cancel();
  bool valid() const { return state_ != nullptr; }

 private:
  std::shared_ptr<RequestState> state_;
};

struct EngineStats {
  uint64_t steps = 0;
  uint64_t rows_decoded = 0;
  uint64_t constrained_rows = 0;
  uint64_t provider_calls = 0;  // batches that asked for masks
  uint64_t cache_hits = 0, cache_builds = 0, cache_waits = 0;
  uint64_t finished = 0, failed = 0, cancelled = 0;
  uint64_t prompt_tokens_computed = 0;  // prompt positions run through the model
  uint64_t prompt_chunks = 0;           // prompt pieces that did not end their prompt (chunked prefill)
  uint64_t prompt_layer_steps = 0;      // steps in which a prompt chunk went through only some of the layers
  // The exact prefix cache: lookups that reused at least one block / none, prompt positions restored,
  // blocks dropped for the budget, and what it holds now.
  uint64_t prefix_cache_hits = 0, prefix_cache_misses = 0, prefix_cache_hit_tokens = 0, prefix_cache_evictions = 0;
  uint64_t prefix_cache_blocks = 0, prefix_cache_bytes = 0;
  // Speculative decoding: drafts verified, accepted, rejected by the mask, and rows that carried drafts.
  uint64_t draft_tokens = 0, draft_tokens_accepted = 0, draft_tokens_illegal = 0, draft_rows = 0;
  // The costs the engine has measured (moving averages, seconds): a decode step of the current rows
  // without drafts, what one verified draft position added to the latest step with drafts, and the
  // forward of a decode step by its positions (index = rows + drafts; 0 = not measured), which the
  // draft cost check weighs drafts against.
  double decode_step_cost_s = 0, draft_position_cost_s = 0;
  std::vector<double> step_cost_s;
  // Cumulative wall seconds: model forward, mask fill (lookahead included; on the mask thread, while
  // the forward runs), the part of the mask fill the worker waited for after the forward (exposed),
  // sampling and verification, and preview + commit + publish.
  double forward_s = 0, mask_s = 0, mask_exposed_s = 0, sample_s = 0, commit_s = 0;
};

class EngineImpl;

class Engine {
 public:
  // Loads the model (generating the default one on first use when options.model is empty) and
  // starts the worker. Throws std::runtime_error (a model error message) when loading fails.
  explicit Engine(EngineOptions options);
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  PreparedPrompt prepare(const PromptInput& input) const;
  // Prepares the constraint on the calling thread and enqueues. Throws ConstraintError for an
  // invalid/unsupported constraint and RequestError for the other rejections.
  RequestHandle submit(PreparedPrompt prompt, RequestOptions options);
  // Submits requests as one batch (an offline batch: vLLM's LLM.generate over a list): each is
  // checked and prepared as submit() does, then all enter the queue at once, so an idle engine with
  // free rows starts them in the same step. Requests submitted one by one, even from threads started
  // together, reach the engine in turn: the first may start a step alone, and once it decodes the
  // others' prompts join a few positions a step (EngineOptions::max_decode_slowdown). Throws on the
  // first rejection (a RequestError's param() then starts with "requests[i]"), queueing none; and
  // RequestError InvalidRequest when the two lists differ in length.
  std::vector<RequestHandle> submit_together(std::vector<PreparedPrompt> prompts, std::vector<RequestOptions> options);

  std::string model_description() const;
  int32_t vocab_size() const;
  EngineStats stats() const;

 private:
  std::unique_ptr<EngineImpl> impl_;
};

}  // namespace ninfer
