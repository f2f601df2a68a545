// GenerationResult -> chat.completion.
#include <gtest/gtest.h>

#include "api/openai_chat_response.h"
#include "api_test_support.h"
#include "result_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::chat_prompt;
using testing::with;

const CompletionIds kIds{"chatcmpl-test", 1700000000, "qwen"};

GenerationResult chat_result(ChatOutput out, FinishReason finish = FinishReason::Stop) {
  return testing::finished_chat(std::move(out), finish, {12, 5});
}

TEST(OpenAiChatResponse, ContentOnlyIsAStopWithUsageAndTheResponseEnvelope) {
  const Json j = openai_chat_completion(accept(with("")), chat_prompt(), chat_result({"", "hello", {}, false}), kIds);
  EXPECT_EQ(j.dump(),
            R"({"id":"chatcmpl-test","object":"chat.completion","created":1700000000,"model":"qwen","choices":[{"index":0,)"
            R"("message":{"role":"assistant","content":"hello"},"finish_reason":"stop","logprobs":null}],)"
            R"("usage":{"prompt_tokens":12,"completion_tokens":5,"total_tokens":17},"constraint":null})");
}

TEST(OpenAiChatResponse, ReasoningComesBackApartFromContent) {
  const Json j =
      openai_chat_completion(accept(with("")), chat_prompt(), chat_result({"let me think", "42", {}, true}), kIds);
  const Json& m = j["choices"][0]["message"];
  EXPECT_EQ(m["reasoning_content"], "let me think");
  EXPECT_EQ(m["content"], "42");
  EXPECT_FALSE(j["usage"].contains("completion_tokens_details"));  // no thinking tokens counted
  GenerationResult r = chat_result({"let me think", "42", {}, true});
  r.usage.reasoning_tokens = 4;
  const Json k = openai_chat_completion(accept(with("")), chat_prompt(), r, kIds);
  EXPECT_EQ(k["usage"]["completion_tokens_details"]["reasoning_tokens"], 4);
}

TEST(OpenAiChatResponse, ToolCallsFinishWithToolCallsAndNullContent) {
  ChatOutput out{"", "", {{"call_0123456789abcdef01234567", "get", R"({"city":"Paris"})"}, {"call_2", "put", "{}"}}, true};
  const Json j = openai_chat_completion(accept(with("")), chat_prompt(), chat_result(out), kIds);
  const Json& c = j["choices"][0];
  EXPECT_EQ(c["finish_reason"], "tool_calls");
  EXPECT_TRUE(c["message"]["content"].is_null());
  EXPECT_EQ(c["message"]["tool_calls"].dump(),
            R"([{"id":"call_0123456789abcdef01234567","type":"function","function":{"name":"get","arguments":"{\"city\":\"Paris\"}"}},)"
            R"({"id":"call_2","type":"function","function":{"name":"put","arguments":"{}"}}])");
}

TEST(OpenAiChatResponse, LengthStaysLengthEvenWithToolCallsAndReasoningOnlyHasNullContent) {
  ChatOutput out{"thinking that ran out", "", {}, false};
  Json j = openai_chat_completion(accept(with("")), chat_prompt(), chat_result(out, FinishReason::Length), kIds);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
  EXPECT_TRUE(j["choices"][0]["message"]["content"].is_null());
  EXPECT_EQ(j["choices"][0]["message"]["reasoning_content"], "thinking that ran out");
  ChatOutput calls{"", "", {{"call_1", "f", "{}"}}, true};
  j = openai_chat_completion(accept(with("")), chat_prompt(), chat_result(calls, FinishReason::Length), kIds);
  EXPECT_EQ(j["choices"][0]["finish_reason"], "length");
}

TEST(OpenAiChatResponse, TheConstraintReportIsAttached) {
  GenerationResult r = chat_result({"", R"({"a":1})", {}, false});
  ConstraintReport c;
  c.branch = "content";
  c.complete = true;
  c.terminated = true;
  c.masked_positions = 6;
  c.ignored_keywords = {"/x-vendor"};
  r.constraint = c;
  const Json j = openai_chat_completion(accept(with(R"("response_format":{"type":"json_object"})")), chat_prompt(), r, kIds);
  EXPECT_EQ(j["constraint"]["branch"], "content");
  EXPECT_EQ(j["constraint"]["complete"], true);
  EXPECT_EQ(j["constraint"]["terminated"], true);
  EXPECT_EQ(j["constraint"]["masked_positions"], 6);
  EXPECT_EQ(j["constraint"]["ignored_keywords"][0], "/x-vendor");
}

TEST(OpenAiChatResponse, AResultWithoutChatOutputReturnsItsTextAsContent) {
  GenerationResult r;
  r.text = "raw";
  const Json j = openai_chat_completion(accept(with("")), PreparedPrompt{}, r, kIds);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "raw");
}

TEST(OpenAiChatResponse, ACutUtf8SequenceBecomesAReplacementCharacter) {
  const Json j = openai_chat_completion(accept(with("")), chat_prompt(), chat_result({"", "caf\xC3", {}, false}), kIds);
  EXPECT_EQ(j["choices"][0]["message"]["content"], "caf\xEF\xBF\xBD");
  EXPECT_NO_THROW(j.dump());
}

TEST(OpenAiChatResponse, AnErrorResultMapsToItsApiError) {
  GenerationResult r;
  r.finish_reason = FinishReason::Error;
  r.error = RequestErrorKind::ConstraintDeadEnd;
  r.error_message = "no legal token";
  const ChatRequest req = accept(with(R"("structured_outputs":{"regex":"a+"})"));
  try {
    openai_chat_completion(req, chat_prompt(), r, kIds);
    FAIL() << "no error";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, "structured_outputs.regex");
    EXPECT_EQ(e.code, "constraint_dead_end");
  }
  r.error = RequestErrorKind::NonFiniteLogits;
  EXPECT_THROW(openai_chat_completion(req, chat_prompt(), r, kIds), ApiError);
}

TEST(OpenAiChatResponse, FreshIdsAreChatcmplWithThirtyTwoHexDigitsAndDiffer) {
  const CompletionIds a = new_completion_ids("m"), b = new_completion_ids("m");
  EXPECT_EQ(a.id.size(), 9u + 32u);
  EXPECT_EQ(a.id.rfind("chatcmpl-", 0), 0u);
  EXPECT_NE(a.id, b.id);
  EXPECT_GT(a.created, 1600000000);
  EXPECT_EQ(a.model, "m");
}

}  // namespace
}  // namespace ninfer::api
