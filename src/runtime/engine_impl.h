// The Engine's machinery, constructed over any LanguageModel (the public Engine loads one from a
// path; tests inject small models). One worker thread owns every active request's matcher and runs
// continuous batches: admit -> decode (Program + mask provider) -> preview -> commit -> publish.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "grammar/compile_cache.h"
#include "models/language_model.h"
#include "ninfer/engine.h"
#include "runtime/chat_prompt.h"
#include "runtime/prefix_cache.h"
#include "runtime/program.h"
#include "runtime/recent_quantile.h"
#include "runtime/request.h"
#include "speculative/draft_model_proposer.h"
#include "speculative/draft_plan.h"
#include "tokenizer/token_domain_source.h"

namespace ninfer {

class EngineImpl {
 public:
  // `draft_model`: the Draft proposer's model (required with SpeculativeMethod::Draft).
  EngineImpl(std::shared_ptr<models::LanguageModel> model, const EngineOptions& options,
             runtime::ModelChatTemplates templates = {}, std::shared_ptr<models::LanguageModel> draft_model = nullptr);
  ~EngineImpl();

  PreparedPrompt prepare(const PromptInput& input) const;
  RequestHandle submit(PreparedPrompt prompt, RequestOptions options);
  std::vector<RequestHandle> submit_together(std::vector<PreparedPrompt> prompts, std::vector<RequestOptions> options);
  EngineStats stats() const;
  // While held, queued requests wait (deadlines and cancellations still apply): used to drain the
  // engine and by tests to make several requests join one batch.
  void hold_admission(bool hold);
  // For tests: the prompts' share of every step beside decoding rows, in positions times layers,
  // instead of the one the measured costs give (0: measured), so that a schedule of chunks through
  // part of the layers does not depend on timings.
  void fix_prompt_work(int64_t position_layers) { fixed_prompt_work_ = position_layers; }
  models::LanguageModel& model() { return *model_; }
  const std::shared_ptr<const tokenizer::Tokenizer>& tokenizer() const { return tok_; }

 private:
  std::shared_ptr<models::LanguageModel> model_;
  std::shared_ptr<const tokenizer::Tokenizer> tok_;
  EngineOptions options_;
  int max_context_ = 0;
  runtime::ModelChatTemplates templates_;

  // Constraint preparation (submitting threads): token domain and compile cache built on first use.
  tokenizer::LazyTokenDomain domain_;
  std::once_flag cache_once_;
  std::unique_ptr<grammar::CompileCache> cache_;
  grammar::CompileCache& cache();

  std::atomic<int> outstanding_{0};
  std::atomic<uint64_t> next_id_{1};

  // A request checked, prepared and counted in outstanding_ (released if this throws), not yet queued.
  std::unique_ptr<runtime::Request> make_request(PreparedPrompt prompt, RequestOptions options,
                                                 runtime::Clock::time_point submitted);
  // Queues the requests under one lock, so that the worker's next admission sees them all; on a
  // rejection none is queued and their outstanding_ counts are released.
  std::vector<RequestHandle> enqueue(std::vector<std::unique_ptr<runtime::Request>> requests);

  // Queue: submit pushes, the worker pops. Never held while compiling or decoding.
  mutable std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  std::deque<std::unique_ptr<runtime::Request>> waiting_;
  bool stopping_ = false;
  bool held_ = false;

  // Worker-owned.
  std::unique_ptr<runtime::Program> program_;
  std::vector<std::unique_ptr<runtime::Request>> active_;
  std::vector<int> free_slots_;
  std::unique_ptr<runtime::PrefixCache> prefix_cache_;  // null when off
  // The forward's measured seconds by the positions of a decode step (speculative/draft_plan.h:
  // what the drafts of a step are weighed against, and what a prompt chunk beside decoding rows is
  // charged beyond), and a prompt position's moving average (for sizing prompt chunks beside
  // decoding rows; 0 = not measured yet).
  speculative::StepCostTable step_costs_;
  double prompt_position_s_ = 0;
  int steps_since_decode_only_ = 0;  // steps with prompt positions since a decode-only step
  // Of the last steps with a prompt chunk beside decoding rows: measured over predicted forward time.
  runtime::RecentQuantile<64> chunk_step_error_;
  // Speculative decoding: a draft-model round's moving average (seconds) and the steps planned.
  double draft_round_s_ = 0;
  uint64_t plan_steps_ = 0;
  std::thread worker_;

  mutable std::mutex stats_mu_;
  EngineStats stats_;

  // The request's output session: the constraint (or the chat output language) compiled through
  // the cache, the thinking budget and the continuation prefix. Throws the request's rejections.
  void prepare_session(runtime::Request& req, const PreparedPrompt& prompt, const RequestOptions& options);
  void run();
  void admit();
  void step();
  void publish_prefix_cache_stats();
  int prompt_budget(int decoding) const;
  // A prompt row's share of a step: `positions` from prompt_done on, through `layers` of the model's
  // (from the chunk's chunk_layers on); positions 0: none this step. `work` is what the step has left
  // for prompts, in positions times layers; `cap` the positions a chunk may hold; `partial_taken`:
  // the step may not take a row through part of the layers for this request (whole chunks only).
  struct ChunkPlan {
    size_t positions = 0;
    int layers = 0;
  };
  ChunkPlan plan_chunk(const runtime::Request& r, int64_t work, size_t cap, int decoding, bool partial_taken) const;
  int layers_ = 1;  // model_->layer_count()
  std::atomic<int64_t> fixed_prompt_work_{0};
  // This step's drafts for the decoding rows (DESIGN.md section 7), each within its draft length:
  // forced tokens, then the n-gram or the draft model's.
  void propose_drafts();
  std::vector<int32_t> ngram_scratch_;
  std::unique_ptr<speculative::DraftModelProposer> draft_;  // Draft only
  std::vector<speculative::DraftRow> draft_rows_;
  std::vector<runtime::Request*> draft_requests_;
  std::vector<speculative::DraftResult> draft_results_;
  // prompt_positions: the step's prompt work in positions through every layer.
  void learn_step_costs(double forward_s, int decoding, double prompt_positions, uint64_t draft_positions);
  void finish(std::unique_ptr<runtime::Request>& req, FinishReason reason, std::optional<RequestErrorKind> error = {},
              std::string message = {});
};

}  // namespace ninfer
