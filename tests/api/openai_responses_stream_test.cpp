// The Responses stream fed with ChatDelta sequences: the event order and fields the SDKs need, and a
// final response equal to the non-streamed object of the same result, however the text is cut.
#include <gtest/gtest.h>

#include "responses_stream_driver.h"
#include "responses_test_support.h"
#include "result_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept_responses;
using testing::checked_events;
using testing::deltas_of;
using testing::responses_with;
using testing::stream_events;

const ResponseIds kIds{"resp_abcd", 1700000000};

GenerationResult chat_result(ChatOutput out, FinishReason finish = FinishReason::Stop) {
  return testing::finished_chat(std::move(out), finish, {20, 9, 4});
}

std::unique_ptr<ApiExchange> exchange(const std::string& extra = "") {
  return make_openai_responses_exchange(accept_responses(responses_with(extra)), kIds);
}

std::vector<std::string> types_of(const std::vector<SseEvent>& events) {
  std::vector<std::string> t;
  for (const auto& e : events) t.push_back(e.event);
  return t;
}

TEST(OpenAiResponsesStream, ATurnWithReasoningContentAndACallSendsEachItemsEventsInOrder) {
  auto ex = exchange();
  const GenerationResult r = chat_result({"hm", "ok", {{"call_1", "get", R"({"a":1})"}}, true});
  const auto events = stream_events(*ex, deltas_of(*r.chat), r);
  const std::vector<std::string> expected = {
      "response.created", "response.in_progress",
      "response.output_item.added", "response.content_part.added", "response.reasoning_text.delta",
      "response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
      "response.output_item.added", "response.content_part.added", "response.output_text.delta",
      "response.output_text.done", "response.content_part.done", "response.output_item.done",
      "response.output_item.added", "response.function_call_arguments.delta", "response.function_call_arguments.done",
      "response.output_item.done", "response.completed"};
  EXPECT_EQ(types_of(events), expected);
  const auto data = checked_events(events);
  EXPECT_EQ(data[0]["response"]["status"], "in_progress");
  EXPECT_EQ(data[0]["response"]["output"], Json::array());
  EXPECT_TRUE(data[0]["response"]["usage"].is_null());
  EXPECT_EQ(data[10].dump(), R"({"type":"response.output_text.delta","sequence_number":10,"item_id":"msg_abcd0001",)"
                             R"("output_index":1,"content_index":0,"delta":"ok","logprobs":[]})");
  EXPECT_EQ(data[14]["item"].dump(), R"({"id":"fc_abcd0002","type":"function_call","status":"in_progress",)"
                                     R"("call_id":"call_1","name":"get","arguments":""})");
  EXPECT_EQ(data[16].dump(), R"({"type":"response.function_call_arguments.done","sequence_number":16,)"
                             R"("item_id":"fc_abcd0002","output_index":2,"name":"get","arguments":"{\"a\":1}"})");
  EXPECT_EQ(data.back()["response"], ex->response(PreparedPrompt{}, r));
}

TEST(OpenAiResponsesStream, TheFinalResponseEqualsTheNonStreamedObjectHoweverTheTextIsCut) {
  std::mt19937 rng(7);
  const ChatOutput outputs[] = {
      {"", "plain answer", {}, false},
      {"a long thought\nwith lines", "{\"k\": [1, 2]}", {}, true},
      {"think", "", {{"call_a", "f", R"({"x":"é"})"}, {"call_b", "g", "{}"}}, true},
      {"", "", {}, true},
  };
  for (const ChatOutput& out : outputs) {
    for (FinishReason finish : {FinishReason::Stop, FinishReason::Length}) {
      for (int trial = 0; trial < 20; ++trial) {
        auto ex = exchange(R"("instructions":"x","max_output_tokens":9)");
        const GenerationResult r = chat_result(out, finish);
        const auto events = stream_events(*ex, deltas_of(out, &rng), r);
        const auto data = checked_events(events);
        EXPECT_EQ(events.back().event, finish == FinishReason::Length ? "response.incomplete" : "response.completed");
        EXPECT_EQ(data.back()["response"], ex->response(PreparedPrompt{}, r)) << out.content;
      }
    }
  }
}

TEST(OpenAiResponsesStream, ContentAfterACallOpensAnotherMessageItem) {
  auto ex = exchange();
  std::vector<testing::ChatDelta> d = {{testing::ChatDelta::Kind::ToolCallBegin, "", 0, "c", "f"},
                                       {testing::ChatDelta::Kind::ToolCallArguments, "{}", 0, {}, {}},
                                       {testing::ChatDelta::Kind::Content, "after", 0, {}, {}}};
  const auto data = checked_events(stream_events(*ex, d, chat_result({"", "after", {{"c", "f", "{}"}}, true})));
  const Json& output = data.back()["response"]["output"];
  ASSERT_EQ(output.size(), 2u);
  EXPECT_EQ(output[0]["type"], "function_call");
  EXPECT_EQ(output[1]["content"][0]["text"], "after");
}

TEST(OpenAiResponsesStream, AFailureSendsTheFailedResponseThenAnErrorEvent) {
  auto ex = exchange(R"("text":{"format":{"type":"json_object"}})");
  std::vector<SseEvent> out;
  auto s = ex->stream(PreparedPrompt{});
  s->open(out);
  s->delta({testing::ChatDelta::Kind::Content, "{\"a\":", 0, {}, {}}, out);
  s->fail(ApiError(400, "invalid_request_error", "no legal token", "text.format", "constraint_dead_end"), out);
  const auto data = checked_events(out);
  ASSERT_GE(out.size(), 2u);
  EXPECT_EQ(out[out.size() - 2].event, "response.failed");
  const Json& failed = data[data.size() - 2]["response"];
  EXPECT_EQ(failed["status"], "failed");
  EXPECT_EQ(failed["error"].dump(), R"({"code":"constraint_dead_end","message":"no legal token"})");
  EXPECT_EQ(failed["output"][0]["status"], "incomplete");
  EXPECT_EQ(failed["output"][0]["content"][0]["text"], "{\"a\":");
  EXPECT_EQ(data.back().dump(), R"({"type":"error","sequence_number":)" + std::to_string(out.size() - 1) +
                                    R"(,"code":"constraint_dead_end","message":"no legal token","param":"text.format"})");
}

TEST(OpenAiResponsesStream, AnErrorResultGivenToFinishFailsTheStream) {
  auto ex = exchange();
  GenerationResult r = chat_result({}, FinishReason::Error);
  r.error = RequestErrorKind::NonFiniteLogits;
  r.error_message = "nan";
  const auto events = stream_events(*ex, {}, r);
  const auto data = checked_events(events);
  EXPECT_EQ(events[events.size() - 2].event, "response.failed");
  EXPECT_EQ(data.back()["code"], "non_finite_logits");
  EXPECT_TRUE(data.back()["param"].is_null());
}

}  // namespace
}  // namespace ninfer::api
