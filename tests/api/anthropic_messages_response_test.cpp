// GenerationResult -> Anthropic `message` object, and ApiError -> Anthropic error object.
#include <gtest/gtest.h>

#include "anthropic_test_support.h"
#include "api/anthropic_error.h"
#include "api/anthropic_messages_exchange.h"
#include "api/anthropic_messages_response.h"
#include "api/engine_errors.h"
#include "result_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept_anthropic;
using testing::anthropic_with;
using testing::chat_prompt;

GenerationResult chat_result(ChatOutput out, FinishReason finish = FinishReason::Stop) {
  return testing::finished_chat(std::move(out), finish, {12, 5});
}

Json message(const GenerationResult& r, const std::string& extra = "") {
  return anthropic_message(accept_anthropic(anthropic_with(extra)), chat_prompt(), r, "msg_test", "claude-q");
}

TEST(AnthropicMessagesResponse, TextIsOneTextBlockEndingTheTurnWithUsage) {
  EXPECT_EQ(message(chat_result({"", "hello", {}, false})).dump(),
            R"({"id":"msg_test","type":"message","role":"assistant","model":"claude-q",)"
            R"("content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","stop_sequence":null,)"
            R"("usage":{"input_tokens":12,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":0},)"
            R"("constraint":null})");
}

TEST(AnthropicMessagesResponse, PrefixCacheHitsAreCacheReadInputTokens) {
  // Anthropic's split: input_tokens + cache_read_input_tokens + cache_creation_input_tokens = the prompt.
  GenerationResult r = chat_result({"", "hello", {}, false});
  r.usage.cached_tokens = 9;
  EXPECT_EQ(message(r)["usage"].dump(),
            R"({"input_tokens":3,"output_tokens":5,"cache_creation_input_tokens":0,"cache_read_input_tokens":9})");
}

TEST(AnthropicMessagesResponse, ThinkingTextAndToolUseBlocksComeInTheTurnsOrder) {
  ChatOutput out{"let me see", "Calling.", {{"call_0123456789abcdef01234567", "get", R"({"city":"Paris","n":[1,2]})"},
                                          {"call_2", "put", "{}"}},
                 true};
  const Json j = message(chat_result(out));
  EXPECT_EQ(j["content"].dump(),
            R"([{"type":"thinking","thinking":"let me see","signature":""},{"type":"text","text":"Calling."},)"
            R"({"type":"tool_use","id":"toolu_0123456789abcdef01234567","name":"get","input":{"city":"Paris","n":[1,2]}},)"
            R"({"type":"tool_use","id":"toolu_2","name":"put","input":{}}])");
  EXPECT_EQ(j["stop_reason"], "tool_use");
}

TEST(AnthropicMessagesResponse, EmptyPartsHaveNoBlock) {
  EXPECT_EQ(message(chat_result({"", "", {}, true}))["content"].dump(), "[]");
  EXPECT_EQ(message(chat_result({"only thinking", "", {}, false}, FinishReason::Length))["content"].dump(),
            R"([{"type":"thinking","thinking":"only thinking","signature":""}])");
}

TEST(AnthropicMessagesResponse, StopReasonsFollowTheFinishAndTheMatchedStopSequence) {
  EXPECT_EQ(message(chat_result({"", "x", {}, false}, FinishReason::Length))["stop_reason"], "max_tokens");
  // A length stays max_tokens even with calls in the turn.
  EXPECT_EQ(message(chat_result({"", "", {{"call_1", "get", "{}"}}, false}, FinishReason::Length))["stop_reason"],
            "max_tokens");
  GenerationResult r = chat_result({"", "one two", {}, false});
  r.stop_sequence = "three";
  const Json j = message(r, R"("stop_sequences":["three"])");
  EXPECT_EQ(j["stop_reason"], "stop_sequence");
  EXPECT_EQ(j["stop_sequence"], "three");
}

TEST(AnthropicMessagesResponse, TheConstraintReportIsCarried) {
  GenerationResult r = chat_result({"", "{}", {}, false});
  r.constraint = ConstraintReport{};
  r.constraint->branch = "content";
  r.constraint->complete = true;
  const Json j = message(r);
  EXPECT_EQ(j["constraint"]["branch"], "content");
  EXPECT_EQ(j["constraint"]["complete"], true);
}

TEST(AnthropicMessagesResponse, CutUtf8AndNonChatResultsStillMakeAValidMessage) {
  const Json cut = message(chat_result({"", "caf\xC3", {}, false}, FinishReason::Length));
  EXPECT_EQ(cut["content"][0]["text"], "caf\xEF\xBF\xBD");
  GenerationResult plain;
  plain.text = "raw";
  EXPECT_EQ(anthropic_message(accept_anthropic(anthropic_with("")), PreparedPrompt{}, plain, "msg_x", "m")["content"]
                .dump(),
            R"([{"type":"text","text":"raw"}])");
}

TEST(AnthropicMessagesResponse, ErrorAndCancelledResultsThrowTheirApiError) {
  GenerationResult dead = chat_result({"", "", {}, false}, FinishReason::Error);
  dead.error = RequestErrorKind::ConstraintDeadEnd;
  dead.error_message = "no legal token";
  try {
    message(dead, R"("output_config":{"format":{"type":"json_schema","schema":{}}})");
    ADD_FAILURE() << "no throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_EQ(e.param, "output_config.format.schema");
  }
  GenerationResult internal = chat_result({"", "", {}, false}, FinishReason::Error);
  internal.error = RequestErrorKind::NonFiniteLogits;
  EXPECT_THROW(
      {
        try {
          message(internal);
        } catch (const ApiError& e) {
          EXPECT_EQ(e.status, 500);
          throw;
        }
      },
      ApiError);
  try {
    message(chat_result({"", "", {}, false}, FinishReason::Cancelled));
    ADD_FAILURE() << "no throw";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.status, 499);
  }
}

TEST(AnthropicMessagesResponse, TheExchangeNamesOneMessageIdAndTheRequestsModel) {
  const auto exchange = map_anthropic_messages_request(Json::parse(anthropic_with("")), {});
  const Json a = exchange->response(chat_prompt(), chat_result({"", "x", {}, false}));
  const Json b = exchange->response(chat_prompt(), chat_result({"", "y", {}, false}));
  EXPECT_EQ(a["id"], b["id"]);
  const std::string id = a["id"];
  EXPECT_EQ(id.rfind("msg_", 0), 0u);
  EXPECT_EQ(id.size(), 4u + 32u);
  EXPECT_EQ(a["model"], "m");
  EXPECT_EQ(exchange->request().options.max_tokens, 100);
  EXPECT_NE(map_anthropic_messages_request(Json::parse(anthropic_with("")), {})->response(chat_prompt(), chat_result({"", "x", {}, false}))["id"],
            a["id"]);
}

TEST(AnthropicError, TheTypeFollowsTheStatus) {
  const std::vector<std::pair<int, std::string>> cases = {
      {400, "invalid_request_error"}, {401, "authentication_error"}, {403, "permission_error"},
      {404, "not_found_error"},       {413, "request_too_large"},    {429, "rate_limit_error"},
      {500, "api_error"},             {503, "overloaded_error"},     {529, "overloaded_error"},
      {499, "invalid_request_error"}, {502, "api_error"}};
  for (const auto& [status, type] : cases)
    EXPECT_EQ(anthropic_error_json(ApiError(status, "x", "m"))["error"]["type"], type) << status;
}

TEST(AnthropicError, TheFieldPathLeadsTheMessageOnce) {
  EXPECT_EQ(anthropic_error_json(invalid_request("top_k", "must be an integer")).dump(),
            R"({"type":"error","error":{"type":"invalid_request_error","message":"top_k: must be an integer"}})");
  // A message that already names its field is not prefixed again.
  EXPECT_EQ(anthropic_error_json(invalid_request("top_k", "Invalid type for 'top_k'."))["error"]["message"],
            "Invalid type for 'top_k'.");
  EXPECT_EQ(anthropic_error_json(ApiError(503, "server_error", "busy"))["error"]["message"], "busy");
}

TEST(AnthropicError, ToolErrorsFromTheEngineNameTheAnthropicFields) {
  const ChatRequest r = accept_anthropic(anthropic_with(
      R"("tools":[{"name":"a","input_schema":{"type":"object","properties":{"x":{"type":"strin"}}}}])"));
  ConstraintError ce(ConstraintErrorKind::InvalidJsonSchema, "unknown type 'strin'");
  ce.at_pointer("/properties/x/type");
  ce.in_tool(0);
  EXPECT_EQ(anthropic_error_json(from_constraint_error(ce, r))["error"]["message"],
            "tools[0].input_schema.properties.x.type: unknown type 'strin'");
  const RequestError dup = RequestError(RequestErrorKind::InvalidTools, "tool name 'a' is declared twice")
                               .at_param("tools[1].function.name");
  EXPECT_EQ(anthropic_error_json(from_request_error(dup, r))["error"]["message"],
            "tools[1].name: tool name 'a' is declared twice");
  EXPECT_EQ(anthropic_field_path("tools[12].function must be an object; tool_choice.function.name; my_tools[1].function"),
            "tools[12] must be an object; tool_choice.name; my_tools[1].function");
}

TEST(AnthropicError, OpenAiNamedFieldsOfTheEngineBecomeAnthropicsFields) {
  const ChatRequest r = accept_anthropic(anthropic_with(""));
  const RequestError stop = RequestError(RequestErrorKind::ConflictingOptions, "no stop strings here").at_param("stop");
  EXPECT_EQ(anthropic_error_json(from_request_error(stop, r))["error"]["message"], "stop_sequences: no stop strings here");
  EXPECT_EQ(anthropic_param("thinking_token_budget"), "thinking.budget_tokens");
  // Without a param from the Engine, a continuation error names continue_final_message: the prefill.
  const RequestError cont(RequestErrorKind::InvalidContinuation, "cannot continue");
  EXPECT_EQ(anthropic_error_json(from_request_error(cont, r))["error"]["message"], "messages: cannot continue");
  EXPECT_EQ(anthropic_param("messages[2].content"), "messages[2].content");
}

TEST(AnthropicError, EngineMessagesNameTheAnthropicToolFieldsToo) {
  const ChatRequest r = accept_anthropic(anthropic_with(R"("tools":[{"name":"a","input_schema":{"type":"object"}}])"));
  const RequestError bad = RequestError(RequestErrorKind::InvalidTools, "tools[0].function.name must be a string")
                               .at_param("tools[0].function.name");
  const ApiError e = from_request_error(bad, r);
  EXPECT_EQ(e.param, "tools[0].name");
  EXPECT_EQ(e.message, "tools[0].name must be a string");
  EXPECT_EQ(anthropic_error_json(e)["error"]["message"], "tools[0].name must be a string");
}

TEST(AnthropicError, AnEngineErrorAboutATemplateMessageNamesTheRequestMessageItCameFrom) {
  // Template messages: system, user text, tool message (from messages[1]'s tool_result), assistant.
  const ChatRequest r = accept_anthropic(
      R"({"model":"m","max_tokens":8,"system":"be brief","messages":[)"
      R"({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"a","input":{}}]},)"
      R"({"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"t1"}]},)"
      R"({"role":"assistant","content":"so"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]})");
  const RequestError cont = RequestError(RequestErrorKind::InvalidContinuation, "the content must be a string")
                                .at_param("messages[4].content");
  EXPECT_EQ(from_request_error(cont, r).param, "messages[2].content");
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::InvalidRequest, "x").at_param("messages[0]"), r).param,
            "system");
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::InvalidRequest, "x").at_param("messages[3]"), r).param,
            "messages[1]");
  // An index past the template's messages stays as the Engine wrote it.
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::InvalidRequest, "x").at_param("messages[9]"), r).param,
            "messages[9]");
}

TEST(AnthropicError, ABodySchemaErrorNamesTheOutputConfigSchemaDownToTheKeyword) {
  const ChatRequest r = accept_anthropic(anthropic_with(
      R"("output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"age":{"minimum":"x"}}}}})"));
  ConstraintError ce(ConstraintErrorKind::InvalidJsonSchema, "minimum must be a number");
  ce.at_pointer("/properties/age/minimum");
  const ApiError e = from_constraint_error(ce, r);
  EXPECT_EQ(e.param, "output_config.format.schema.properties.age.minimum");
  EXPECT_EQ(anthropic_error_json(e)["error"]["message"],
            "output_config.format.schema.properties.age.minimum: minimum must be a number");
}

}  // namespace
}  // namespace ninfer::api
