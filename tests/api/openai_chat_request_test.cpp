// The top-level fields of an OpenAI Chat request: sampling, limits, streaming, vLLM's template
// extras, and the fields that are rejected or accepted without effect.
#include <gtest/gtest.h>

#include "api_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::context_of;
using testing::expect_rejected_at;
using testing::reject;
using testing::with;

TEST(OpenAiChatRequest, SamplingFieldsReachTheRequestOptions) {
  const ChatRequest r = accept(with(
      R"("temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.05,"presence_penalty":-1.5,"frequency_penalty":2,"seed":42,"max_tokens":77)"));
  const SamplingOptions& s = r.options.sampling;
  EXPECT_FLOAT_EQ(s.temperature, 0.5f);
  EXPECT_FLOAT_EQ(s.top_p, 0.9f);
  EXPECT_EQ(s.top_k, 40);
  EXPECT_FLOAT_EQ(s.min_p, 0.05f);
  EXPECT_FLOAT_EQ(s.presence_penalty, -1.5f);
  EXPECT_FLOAT_EQ(s.frequency_penalty, 2.0f);
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(r.options.max_tokens, 77);
}

TEST(OpenAiChatRequest, AbsentFieldsKeepTheDefaultsAndNullCountsAsAbsent) {
  ChatRequestDefaults d;
  d.max_tokens = 1234;
  const ChatRequest r = accept(with(R"("temperature":null,"seed":null,"stop":null,"tools":null,"max_tokens":null)"), d);
  EXPECT_FLOAT_EQ(r.options.sampling.temperature, SamplingOptions{}.temperature);
  EXPECT_FALSE(r.options.sampling.seed);
  EXPECT_TRUE(r.options.stop.empty());
  EXPECT_EQ(r.options.max_tokens, 1234);
  EXPECT_FALSE(r.stream);
}

TEST(OpenAiChatRequest, TopKMinusOneTurnsTopKOff) {
  EXPECT_EQ(accept(with(R"("top_k":-1)")).options.sampling.top_k, 0);
}

TEST(OpenAiChatRequest, NegativeSeedsSeedByTheirTwosComplement) {
  EXPECT_EQ(accept(with(R"("seed":-1)")).options.sampling.seed, UINT64_MAX);
}

TEST(OpenAiChatRequest, MaxCompletionTokensIsReadAndBothFieldsMustAgree) {
  EXPECT_EQ(accept(with(R"("max_completion_tokens":9)")).options.max_tokens, 9);
  EXPECT_EQ(accept(with(R"("max_completion_tokens":9,"max_tokens":9)")).options.max_tokens, 9);
  const ApiError e = reject(with(R"("max_completion_tokens":9,"max_tokens":10)"));
  EXPECT_EQ(e.param, "max_tokens");
  EXPECT_EQ(e.code, "conflicting_parameters");
}

TEST(OpenAiChatRequest, AnIntegralFloatCountsAsAnInteger) {
  EXPECT_EQ(accept(with(R"("max_tokens":5.0)")).options.max_tokens, 5);
  EXPECT_EQ(reject(with(R"("max_tokens":5.5)")).code, "invalid_type");
}

TEST(OpenAiChatRequest, StopTakesAStringOrUpToFourStrings) {
  EXPECT_EQ(accept(with(R"("stop":"END")")).options.stop, std::vector<std::string>{"END"});
  EXPECT_EQ(reject(with(R"("stop":["a","b","c","d","e"])")).param, "stop");
  EXPECT_EQ(reject(with(R"("stop":["a",""])")).param, "stop[1]");
  EXPECT_EQ(reject(with(R"("stop":"")")).param, "stop");
  EXPECT_EQ(reject(with(R"("stop":["a",3])")).param, "stop[1]");
}

TEST(OpenAiChatRequest, StreamAndIncludeUsageAreRecorded) {
  const ChatRequest r = accept(with(R"("stream":true,"stream_options":{"include_usage":true})"));
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  EXPECT_EQ(reject(with(R"("stream_options":{"include_usage":true})")).param, "stream_options");
  EXPECT_EQ(reject(with(R"("stream":true,"stream_options":{"include_usage":1})")).param, "stream_options.include_usage");
  EXPECT_EQ(reject(with(R"("stream":true,"stream_options":{"usage":true})")).param, "stream_options.usage");
}

TEST(OpenAiChatRequest, ChatTemplateKwargsJoinTheTemplateContext) {
  const Json c = context_of(accept(with(R"("chat_template_kwargs":{"enable_thinking":false,"custom":{"k":[1]}})")));
  EXPECT_EQ(c["enable_thinking"], false);
  EXPECT_EQ(c["custom"]["k"][0], 1);
  EXPECT_EQ(c["add_generation_prompt"], true);
  EXPECT_EQ(reject(with(R"("chat_template_kwargs":{"messages":[]})")).param, "chat_template_kwargs.messages");
  EXPECT_EQ(reject(with(R"("chat_template_kwargs":{"add_generation_prompt":false})")).param,
            "chat_template_kwargs.add_generation_prompt");
  EXPECT_EQ(reject(with(R"("chat_template_kwargs":[])")).param, "chat_template_kwargs");
}

TEST(OpenAiChatRequest, ContinueFinalMessageNeedsAFinalAssistantMessageAndNoGenerationPrompt) {
  const std::string prefix = R"({"messages":[{"role":"user","content":"q"},{"role":"assistant","content":"{\"a\":"}],)";
  const ChatRequest r = accept(prefix + R"("continue_final_message":true,"add_generation_prompt":false})");
  EXPECT_TRUE(r.prompt.chat_prompt->continue_final_message);
  EXPECT_EQ(context_of(r)["add_generation_prompt"], false);
  EXPECT_EQ(reject(prefix + R"("continue_final_message":true})").param, "continue_final_message");
  EXPECT_EQ(reject(with(R"("continue_final_message":true,"add_generation_prompt":false)")).param, "continue_final_message");
  EXPECT_EQ(reject(with(R"("continue_final_message":"yes")")).param, "continue_final_message");
  EXPECT_EQ(reject(with(R"("add_generation_prompt":1)")).param, "add_generation_prompt");
}

TEST(OpenAiChatRequest, IgnoreEosIsForUnconstrainedRequestsOnly) {
  EXPECT_TRUE(accept(with(R"("ignore_eos":true)")).options.ignore_eos);
  EXPECT_EQ(reject(with(R"("ignore_eos":true,"response_format":{"type":"json_object"})")).param, "ignore_eos");
  EXPECT_EQ(reject(with(R"("ignore_eos":true,"tools":[{"type":"function","function":{"name":"f"}}])")).param, "ignore_eos");
  EXPECT_EQ(reject(with(R"("ignore_eos":1)")).param, "ignore_eos");
}

TEST(OpenAiChatRequest, TheThinkingBudgetIsCarried) {
  EXPECT_EQ(accept(with(R"("thinking_token_budget":64)")).options.thinking_token_budget, 64);
  EXPECT_EQ(reject(with(R"("thinking_token_budget":0)")).param, "thinking_token_budget");
}

TEST(OpenAiChatRequest, TheRequestsTemplateReplacesTheDefaultUnlessTheCallerForbidsIt) {
  ChatRequestDefaults d;
  d.template_source = "default {{ messages }}";
  d.bos_token = "<s>";
  ChatRequest r = accept(with(""), d);
  EXPECT_EQ(r.prompt.chat_prompt->template_source, "default {{ messages }}");
  EXPECT_EQ(r.prompt.chat_prompt->bos_token, "<s>");
  EXPECT_FALSE(r.request_template);
  r = accept(with(R"("chat_template":"mine")"), d);
  EXPECT_EQ(r.prompt.chat_prompt->template_source, "mine");
  EXPECT_TRUE(r.request_template);
  d.allow_request_template = false;
  EXPECT_EQ(reject(with(R"("chat_template":"mine")"), d).param, "chat_template");
  EXPECT_EQ(reject(with(R"("chat_template":"")")).param, "chat_template");
}

TEST(OpenAiChatRequest, UnknownFieldsAreUnrecognizedArguments) {
  const ApiError e = reject(with(R"("temprature":0.3)"));
  EXPECT_EQ(e.param, "temprature");
  EXPECT_EQ(e.message, "Unrecognized request argument supplied: temprature");
  EXPECT_EQ(e.code, "unknown_parameter");
}

TEST(OpenAiChatRequest, FieldsThisServerCannotHonourAreRejectedNeverIgnored) {
  for (const char* extra : {R"("logprobs":true)", R"("top_logprobs":2)", R"("logit_bias":{"1":5})", R"("n":2)",
                            R"("reasoning_effort":"low")", R"("functions":[])", R"("modalities":["text","audio"])"}) {
    const ApiError e = reject(with(extra));
    EXPECT_EQ(e.status, 400) << extra;
    EXPECT_FALSE(e.param.empty()) << extra;
    EXPECT_NE(std::string(extra).find(e.param.substr(0, e.param.find('['))), std::string::npos) << extra << " " << e.param;
  }
  EXPECT_EQ(reject(with(R"("modalities":["text","audio"])")).param, "modalities[1]");
  // The harmless settings of those fields pass.
  accept(with(R"("logprobs":false,"n":1,"modalities":["text"])"));
}

TEST(OpenAiChatRequest, BookkeepingFieldsAreAcceptedAndTypeChecked) {
  accept(with(R"("user":"u1","metadata":{"k":"v"},"store":false,"service_tier":"auto")"));
  EXPECT_EQ(reject(with(R"("user":5)")).param, "user");
  EXPECT_EQ(reject(with(R"("metadata":"x")")).param, "metadata");
}

TEST(OpenAiChatRequest, EveryWrongTypeOrRangeIsRejectedByItsField) {
  struct Case {
    const char* extra;
    const char* param;
    const char* code;
  };
  const Case cases[] = {
      {R"("model":1)", "model", "invalid_type"},
      {R"("temperature":"hot")", "temperature", "invalid_type"},
      {R"("temperature":true)", "temperature", "invalid_type"},
      {R"("temperature":2.5)", "temperature", "decimal_above_max_value"},
      {R"("temperature":-0.1)", "temperature", "decimal_below_min_value"},
      {R"("temperature":1e308)", "temperature", "decimal_above_max_value"},
      {R"("top_p":0)", "top_p", "decimal_below_min_value"},
      {R"("top_p":1.01)", "top_p", "decimal_above_max_value"},
      {R"("top_k":-2)", "top_k", "integer_below_min_value"},
      {R"("top_k":1.5)", "top_k", "invalid_type"},
      {R"("min_p":2)", "min_p", "decimal_above_max_value"},
      {R"("presence_penalty":-3)", "presence_penalty", "decimal_below_min_value"},
      {R"("frequency_penalty":"0")", "frequency_penalty", "invalid_type"},
      {R"("seed":"1")", "seed", "invalid_type"},
      {R"("seed":18446744073709551615)", "seed", "integer_above_max_value"},
      {R"("max_tokens":0)", "max_tokens", "integer_below_min_value"},
      {R"("max_tokens":99999999999999)", "max_tokens", "integer_above_max_value"},
      {R"("max_tokens":1e300)", "max_tokens", "integer_above_max_value"},
      {R"("max_completion_tokens":-5)", "max_completion_tokens", "integer_below_min_value"},
      {R"("stream":"true")", "stream", "invalid_type"},
      {R"("n":"1")", "n", "invalid_type"},
      {R"("stop":5)", "stop", "invalid_type"},
      {R"("thinking_token_budget":true)", "thinking_token_budget", "invalid_type"},
      {R"("chat_template":5)", "chat_template", "invalid_type"},
  };
  for (const Case& c : cases) {
    expect_rejected_at(reject(with(c.extra)), c.param, c.code, c.extra);
  }
}

TEST(OpenAiChatRequest, InvalidJsonAndNonObjectBodiesAre400sWithoutAParam) {
  // 1e999 overflows a double: the JSON parser refuses it, as it refuses invalid UTF-8.
  for (const char* body : {"", "{", R"({"messages":[}")", "[1,2]", "\"text\"", "{\"a\":\"\xff\"}", "null",
                           R"({"messages":[],"temperature":1e999})"}) {
    const ApiError e = reject(body);
    EXPECT_EQ(e.status, 400) << body;
    EXPECT_EQ(e.type, "invalid_request_error");
    EXPECT_TRUE(e.param.empty());
  }
}

TEST(OpenAiChatRequest, NestingBeyondTheLimitIsRejectedWithoutRecursingIntoIt) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  const ApiError e = reject(with(R"("metadata":{"k":)" + deep + "}"));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.code, "nesting_too_deep");
  // The first value past the limit: the body, metadata and its object take three levels.
  std::string expected = "metadata.k";
  for (int i = 3; i < kMaxRequestDepth + 1; ++i) expected += "[0]";
  EXPECT_EQ(e.param, expected);
}

TEST(OpenAiChatRequest, ASchemaNestedPastTheCompilersLimitStillReachesTheCompiler) {
  // 140 nested properties (the compiler stops at 128 and says where): about 285 JSON levels.
  std::string schema = R"({"type":"integer"})";
  for (int i = 0; i < 140; ++i) schema = R"({"type":"object","properties":{"p":)" + schema + "}}";
  const ChatRequest r =
      accept(with(R"("response_format":{"type":"json_schema","json_schema":{"name":"deep","schema":)" + schema + "}}"));
  ASSERT_TRUE(r.options.constraint);
  EXPECT_EQ(r.options.constraint->source(), schema);
}

TEST(OpenAiChatRequest, TheErrorObjectHasOpenAisShape) {
  const Json j = openai_error_json(reject(with(R"("temperature":"x")")));
  EXPECT_EQ(j["error"]["param"], "temperature");
  EXPECT_EQ(j["error"]["type"], "invalid_request_error");
  EXPECT_EQ(j["error"]["code"], "invalid_type");
  EXPECT_EQ(j["error"]["message"], "Invalid type for 'temperature': expected a number, but got a string instead.");
  EXPECT_TRUE(openai_error_json(reject("{"))["error"]["param"].is_null());
}

}  // namespace
}  // namespace ninfer::api
