// GenerationResult -> the Responses `response` object: output items, status, usage, the echo and the
// constraint report; error and cancelled results throw.
#include <gtest/gtest.h>

#include "api/openai_responses_object.h"
#include "responses_test_support.h"
#include "result_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept_responses;
using testing::responses_with;

const ResponseIds kIds{"resp_0123", 1700000000};

GenerationResult chat_result(ChatOutput out, FinishReason finish = FinishReason::Stop) {
  GenerationResult r = testing::finished_chat(std::move(out), finish, {12, 5, 3});
  r.total_s = 2.4;
  return r;
}

TEST(OpenAiResponsesObject, ContentOnlyIsACompletedResponseWithOneMessageAndTheEcho) {
  const ResponsesRequest req = accept_responses(R"({"model":"qwen","input":"hi","instructions":"short"})");
  const Json j = openai_response(req, kIds, chat_result({"", "hello", {}, false}));
  EXPECT_EQ(j.dump(),
            R"({"id":"resp_0123","object":"response","created_at":1700000000,"status":"completed","background":false,)"
            R"("completed_at":1700000002,"error":null,"incomplete_details":null,"instructions":"short",)"
            R"("max_output_tokens":256,"model":"qwen","output":[{"id":"msg_01230000","type":"message",)"
            R"("status":"completed","role":"assistant","content":[{"type":"output_text","text":"hello",)"
            R"("annotations":[]}]}],"parallel_tool_calls":true,"previous_response_id":null,)"
            R"("reasoning":{"effort":null,"summary":null},"temperature":1.0,"text":{"format":{"type":"text"}},)"
            R"("tool_choice":"auto","tools":[],"top_p":1.0,"truncation":"disabled","usage":{"input_tokens":12,)"
            R"("input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":)"
            R"({"reasoning_tokens":3},"total_tokens":17},"user":null,"metadata":{},"access_programs":null,)"
            R"("constraint":null})");
}

TEST(OpenAiResponsesObject, ReasoningContentAndCallsAreItemsInTheirTurnOrder) {
  const ResponsesRequest req = accept_responses(responses_with(""));
  const ChatOutput out{"think", "text", {{"call_a", "get", R"({"x":"1"})"}, {"call_b", "put", "{}"}}, true};
  const Json j = openai_response(req, kIds, chat_result(out));
  EXPECT_EQ(j["status"], "completed");
  EXPECT_EQ(j["output"].dump(),
            R"([{"id":"rs_01230000","type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},)"
            R"({"id":"msg_01230001","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text",)"
            R"("text":"text","annotations":[]}]},)"
            R"({"id":"fc_01230002","type":"function_call","status":"completed","call_id":"call_a","name":"get",)"
            R"("arguments":"{\"x\":\"1\"}"},)"
            R"({"id":"fc_01230003","type":"function_call","status":"completed","call_id":"call_b","name":"put",)"
            R"("arguments":"{}"}])");
}

TEST(OpenAiResponsesObject, OnlyCallsGiveNoMessageAndAnEmptyTurnGivesAnEmptyOne) {
  const ResponsesRequest req = accept_responses(responses_with(""));
  const Json calls = openai_response(req, kIds, chat_result({"", "", {{"c", "f", "{}"}}, true}));
  ASSERT_EQ(calls["output"].size(), 1u);
  EXPECT_EQ(calls["output"][0]["type"], "function_call");
  const Json empty = openai_response(req, kIds, chat_result({"", "", {}, true}));
  ASSERT_EQ(empty["output"].size(), 1u);
  EXPECT_EQ(empty["output"][0]["content"][0]["text"], "");
}

TEST(OpenAiResponsesObject, TheTokenCapMakesAnIncompleteResponseAndItsLastItemIncomplete) {
  const ResponsesRequest req = accept_responses(responses_with(R"("max_output_tokens":5)"));
  const Json j = openai_response(req, kIds, chat_result({"think", "par", {}, true}, FinishReason::Length));
  EXPECT_EQ(j["status"], "incomplete");
  EXPECT_EQ(j["incomplete_details"].dump(), R"({"reason":"max_output_tokens"})");
  EXPECT_EQ(j["max_output_tokens"], 5);
  EXPECT_EQ(j["output"][1]["status"], "incomplete");
  const Json thinking = openai_response(req, kIds, chat_result({"thi", "", {}, false}, FinishReason::Length));
  ASSERT_EQ(thinking["output"].size(), 1u);
  EXPECT_EQ(thinking["output"][0]["type"], "reasoning");
}

TEST(OpenAiResponsesObject, TheConstraintReportAndTheEchoedFormatComeBack) {
  const ResponsesRequest req = accept_responses(responses_with(
      R"("text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}},"temperature":0.7,"metadata":{"a":"b"})"));
  GenerationResult r = chat_result({"", "{}", {}, true});
  r.constraint = ConstraintReport{};
  r.constraint->branch = "content";
  r.constraint->complete = r.constraint->terminated = true;
  const Json j = openai_response(req, kIds, r);
  EXPECT_EQ(j["constraint"]["branch"], "content");
  EXPECT_EQ(j["constraint"]["complete"], true);
  EXPECT_EQ(j["text"].dump(), R"({"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}})");
  EXPECT_EQ(j["temperature"], 0.7);
  EXPECT_EQ(j["metadata"].dump(), R"({"a":"b"})");
}

TEST(OpenAiResponsesObject, TextIsMadeValidUtf8) {
  const ResponsesRequest req = accept_responses(responses_with(""));
  const Json j = openai_response(req, kIds, chat_result({"", "caf\xC3", {}, true}, FinishReason::Length));
  EXPECT_EQ(j["output"][0]["content"][0]["text"], "caf\xEF\xBF\xBD");
  EXPECT_NO_THROW(j.dump());
}

TEST(OpenAiResponsesObject, ErrorAndCancelledResultsThrowTheirApiError) {
  const ResponsesRequest req = accept_responses(
      responses_with(R"("text":{"format":{"type":"json_schema","name":"n","schema":{"type":"object"}}})"));
  GenerationResult dead = chat_result({"", "{", {}, true}, FinishReason::Error);
  dead.error = RequestErrorKind::ConstraintDeadEnd;
  dead.error_message = "no legal token";
  try {
    openai_response(req, kIds, dead);
    ADD_FAILURE() << "no throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, "text.format.schema");
    EXPECT_EQ(e.message, "no legal token");
  }
  GenerationResult shutdown = chat_result({}, FinishReason::Error);
  shutdown.error = RequestErrorKind::ShuttingDown;
  try {
    openai_response(req, kIds, shutdown);
    ADD_FAILURE() << "no throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 503);
  }
  try {
    openai_response(req, kIds, chat_result({}, FinishReason::Cancelled));
    ADD_FAILURE() << "no throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 499);
  }
}

TEST(OpenAiResponsesObject, FreshIdsAreResponseIdsAndItemIdsFollowThem) {
  const ResponseIds ids = new_response_ids();
  EXPECT_EQ(ids.id.rfind("resp_", 0), 0u);
  EXPECT_EQ(ids.id.size(), 5u + 32u);
  EXPECT_GT(ids.created_at, 1700000000);
  EXPECT_EQ(output_item_id("msg_", ids, 18), "msg_" + ids.id.substr(5) + "0012");
  EXPECT_NE(new_response_ids().id, ids.id);
}

}  // namespace
}  // namespace ninfer::api
