// The public Engine: loads the model (the default generated one when no path is given) and forwards
// to EngineImpl. Also the names of the public enums.
#include "ninfer/engine.h"

#include "models/model_error.h"
#include "models/model_loader.h"
#include "runtime/engine_impl.h"

namespace ninfer {

Engine::Engine(EngineOptions options) {
  const std::string path = options.model.empty() ? models::ensure_default_model() : options.model;
  models::ModelLoadOptions lo;
  lo.slots = options.max_batch_rows;
  lo.max_context = options.max_context;
  lo.threads = options.threads;
  lo.huge_pages = options.huge_pages;
  lo.prompt_attention = options.prompt_attention;
  std::shared_ptr<models::LanguageModel> model = models::load_model(path, lo);
  runtime::ModelChatTemplates templates(runtime::model_tokenizer_config(path), path);
  std::shared_ptr<models::LanguageModel> draft;
  if (options.speculative == SpeculativeMethod::Draft) {
    if (options.draft_model.empty()) throw std::invalid_argument("the draft proposer needs a draft model (draft_model)");
    try {
      draft = models::load_model(options.draft_model, lo);
    } catch (const models::ModelError& e) {  // the same typed error, named as the draft's
      throw models::ModelError(e.kind(), std::string("draft model: ") + e.what(), e.location());
    }
  }
  impl_ = std::make_unique<EngineImpl>(std::move(model), options, std::move(templates), std::move(draft));
}

Engine::~Engine() = default;

PreparedPrompt Engine::prepare(const PromptInput& input) const { return impl_->prepare(input); }
RequestHandle Engine::submit(PreparedPrompt prompt, RequestOptions options) {
  return impl_->submit(std::move(prompt), std::move(options));
}

std::vector<RequestHandle> Engine::submit_together(std::vector<PreparedPrompt> prompts,
                                                   std::vector<RequestOptions> options) {
  return impl_->submit_together(std::move(prompts), std::move(options));
}
std::string Engine::model_description() const { return impl_->model().description(); }
int32_t Engine::vocab_size() const { return impl_->tokenizer()->vocab_size(); }
EngineStats Engine::stats() const { return impl_->stats(); }

const char* request_error_kind_name(RequestErrorKind kind) {
  switch (kind) {
    case RequestErrorKind::InvalidRequest: return "invalid_request";
    case RequestErrorKind::PromptTooLong: return "prompt_too_long";
    case RequestErrorKind::EmptyInitialMask: return "empty_initial_mask";
    case RequestErrorKind::ConflictingOptions: return "conflicting_options";
    case RequestErrorKind::InvalidTemplate: return "invalid_template";
    case RequestErrorKind::InvalidTools: return "invalid_tools";
    case RequestErrorKind::InvalidContinuation: return "invalid_continuation";
    case RequestErrorKind::Overloaded: return "overloaded";
    case RequestErrorKind::DeadlineExceeded: return "deadline_exceeded";
    case RequestErrorKind::ShuttingDown: return "shutting_down";
    case RequestErrorKind::ConstraintDeadEnd: return "constraint_dead_end";
    case RequestErrorKind::NonFiniteLogits: return "non_finite_logits";
    case RequestErrorKind::Internal: return "internal";
  }
  return "unknown";
}

const char* tool_call_format_name(ToolCallFormat format) {
  switch (format) {
    case ToolCallFormat::Auto: return "auto";
    case ToolCallFormat::Json: return "json";
    case ToolCallFormat::Xml: return "xml";
  }
  return "unknown";
}

const char* output_start_name(OutputStart start) {
  switch (start) {
    case OutputStart::Body: return "body";
    case OutputStart::Thinking: return "thinking";
    case OutputStart::OptionalThinking: return "optional_thinking";
  }
  return "unknown";
}

const char* finish_reason_name(FinishReason reason) {
  switch (reason) {
    case FinishReason::Stop: return "stop";
    case FinishReason::Length: return "length";
    case FinishReason::Cancelled: return "cancelled";
    case FinishReason::Error: return "error";
  }
  return "unknown";
}

const char* speculative_method_name(SpeculativeMethod method) {
  switch (method) {
    case SpeculativeMethod::None: return "none";
    case SpeculativeMethod::Grammar: return "grammar";
    case SpeculativeMethod::NGram: return "ngram";
    case SpeculativeMethod::Draft: return "draft";
  }
  return "unknown";
}

const char* prompt_attention_name(PromptAttention products) {
  switch (products) {
    case PromptAttention::Auto: return "auto";
    case PromptAttention::Exact: return "exact";
    case PromptAttention::Bf16: return "bf16";
    case PromptAttention::Int8: return "int8";
  }
  return "unknown";
}

const char* cache_outcome_name(CacheOutcome outcome) {
  switch (outcome) {
    case CacheOutcome::Hit: return "hit";
    case CacheOutcome::Built: return "built";
    case CacheOutcome::Waited: return "waited";
  }
  return "unknown";
}

}  // namespace ninfer
