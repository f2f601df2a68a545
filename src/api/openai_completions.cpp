#include "api/openai_completions.h"

#include <climits>

#include "api/openai_chat_response.h"
#include "api/openai_chunks.h"
#include "api/openai_request_common.h"
#include "api/random_id.h"
#include "api/request_conflicts.h"
#include "api/result_json.h"
#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

using qwen3::ChatDelta;

void check_known_members(const Field& body) {
  body.only_members({"model", "prompt", "max_tokens", "temperature", "top_p", "n", "stream", "stream_options", "stop",
                     "seed", "presence_penalty", "frequency_penalty", "user", "echo", "logprobs", "best_of", "suffix",
                     "logit_bias",
                     // vLLM extras and NInfer extensions
                     "top_k", "min_p", "response_format", "structured_outputs", "ignore_eos"});
}

void reject_unsupported(const Field& body) {
  if (auto f = body.optional_member("logit_bias"))
    f->fail("'logit_bias' is not supported by this server.", "unsupported_parameter");
  if (auto f = body.optional_member("echo"); f && f->boolean())
    f->fail("'echo' is not supported by this server.", "unsupported_parameter");
  if (auto f = body.optional_member("logprobs"))
    f->fail("'logprobs' is not supported by this server.", "unsupported_parameter");
  if (auto f = body.optional_member("suffix"); f && !f->string().empty())
    f->fail("'suffix' is not supported by this server.", "unsupported_parameter");
  if (auto f = body.optional_member("n"); f && f->integer(1, INT_MAX) != 1)
    f->fail("Invalid value for 'n': this server returns one choice per request (n = 1).", "unsupported_value");
  if (auto f = body.optional_member("best_of"); f && f->integer(1, INT_MAX) != 1)
    f->fail("Invalid value for 'best_of': this server returns one choice per request (best_of = 1).",
            "unsupported_value");
  if (auto f = body.optional_member("user")) f->string();
}

std::vector<int32_t> token_ids(const Field& list) {
  std::vector<int32_t> ids;
  for (size_t i = 0; i < list.array().size(); ++i) ids.push_back(int32_t(list.element(i).integer(0, INT32_MAX)));
  return ids;
}

void map_prompt(const Field& prompt, PromptInput& input) {
  const Json& p = prompt.json();
  if (p.is_string()) {
    input.text = prompt.string();
  } else if (p.is_array() && !p.empty() && p[0].is_string()) {
    if (p.size() != 1)
      prompt.fail("Invalid value for 'prompt': this server takes one prompt per request (an array of one string).",
                  "unsupported_value");
    input.text = prompt.element(0).string();
  } else if (p.is_array() && !p.empty() && p[0].is_array()) {
    if (p.size() != 1)
      prompt.fail("Invalid value for 'prompt': this server takes one prompt per request (an array of one token list).",
                  "unsupported_value");
    input.tokens = token_ids(prompt.element(0));
  } else if (p.is_array() && !p.empty()) {
    input.tokens = token_ids(prompt);
  } else {
    prompt.fail_type("a non-empty string, array of strings, or array of token ids");
  }
  if (input.text.empty() && input.tokens.empty()) prompt.fail("Invalid value for 'prompt': the prompt is empty.");
}


class CompletionsStream : public ProtocolStream {
 public:
  CompletionsStream(const ChatRequest& request, CompletionIds ids)
      : request_(request), chunks_("text_completion", std::move(ids), request.include_usage) {}
  void open(std::vector<SseEvent>&) override {}
  void delta(const ChatDelta& d, std::vector<SseEvent>& out) override {
    if (d.kind == ChatDelta::Kind::Content && !d.text.empty()) out.push_back(chunks_.chunk("text", valid_utf8(d.text)));
  }
  void finish(const GenerationResult& result, std::vector<SseEvent>& out) override {
    chunks_.finish("text", "", openai_finish_reason(result, request_), result, out);
  }
  void fail(const ApiError& error, std::vector<SseEvent>& out) override { OpenAIChunks::fail(error, out); }

 private:
  const ChatRequest& request_;
  OpenAIChunks chunks_;
};

class CompletionsExchange : public ApiExchange {
 public:
  CompletionsExchange(ChatRequest request, CompletionIds ids) : request_(std::move(request)), ids_(std::move(ids)) {}
  ChatRequest& request() override { return request_; }
  Json response(const PreparedPrompt&, const GenerationResult& result) override {
    const std::string finish = openai_finish_reason(result, request_);
    Json choice = {{"index", 0}, {"text", valid_utf8(result.text)}, {"logprobs", nullptr}, {"finish_reason", finish}};
    return {{"id", ids_.id},
            {"object", "text_completion"},
            {"created", ids_.created},
            {"model", ids_.model},
            {"choices", Json::array({std::move(choice)})},
            {"usage", openai_usage(result.usage)},
            {"constraint", result.constraint ? Json(constraint_report_json(*result.constraint)) : Json(nullptr)}};
  }
  std::unique_ptr<ProtocolStream> stream(const PreparedPrompt&) override {
    return std::make_unique<CompletionsStream>(request_, ids_);
  }

 private:
  ChatRequest request_;
  CompletionIds ids_;
};

}  // namespace

std::unique_ptr<ApiExchange> map_openai_completions_request(const Json& json, const ChatRequestDefaults& defaults) {
  const Field body = body_field(json);
  check_known_members(body);
  reject_unsupported(body);

  ChatRequest req;
  if (auto f = body.optional_member("model")) req.model = f->string();
  map_openai_stream(body, req);
  ChatRequestDefaults d = defaults;
  d.max_tokens = 16;  // OpenAI's default for completions
  map_openai_request_options(body, d, req.options);
  map_prompt(body.required_member("prompt"), req.prompt);

  apply_body_constraint(map_openai_body_constraint(body), false, ConflictWording{.has_tools = false}, req);

  CompletionIds ids{random_hex_id("cmpl-"), unix_seconds_now(), req.model.empty() ? defaults.served_model : req.model};
  return std::make_unique<CompletionsExchange>(std::move(req), std::move(ids));
}

}  // namespace ninfer::api
