// Responses `instructions` and `input` items -> the chat template's messages.
#include <gtest/gtest.h>

#include "responses_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept_responses;
using testing::expect_rejected_at;
using testing::reject_responses;
using testing::responses_context;

Json messages_of(const std::string& input, const std::string& extra = "") {
  const std::string body = R"({"input":)" + input + (extra.empty() ? "" : "," + extra) + "}";
  return responses_context(accept_responses(body))["messages"];
}

ApiError rejected_input(const std::string& input) { return reject_responses(R"({"input":)" + input + "}"); }

TEST(OpenAiResponsesInput, AStringIsOneUserMessageAfterTheInstructions) {
  EXPECT_EQ(messages_of(R"("hello")").dump(), R"([{"role":"user","content":"hello"}])");
  EXPECT_EQ(messages_of(R"("hello")", R"("instructions":"be brief")").dump(),
            R"([{"role":"system","content":"be brief"},{"role":"user","content":"hello"}])");
}

TEST(OpenAiResponsesInput, MessageItemsKeepTheirRolesAndDeveloperBecomesSystem) {
  const Json m = messages_of(R"([
    {"role":"developer","content":"rules"},
    {"type":"message","role":"user","content":[{"type":"input_text","text":"a"},{"type":"input_text","text":"b"}]},
    {"type":"message","id":"msg_1","status":"completed","role":"assistant",
     "content":[{"type":"output_text","text":"answer","annotations":[],"logprobs":[]}]},
    {"role":"system","content":"late system"}])");
  EXPECT_EQ(m.dump(), R"([{"role":"system","content":"rules"},{"role":"user","content":"a\nb"},)"
                      R"({"role":"assistant","content":"answer"},{"role":"system","content":"late system"}])");
}

TEST(OpenAiResponsesInput, FunctionCallsJoinTheAssistantTurnBeforeThemWithParsedArguments) {
  const Json m = messages_of(R"([
    {"role":"user","content":"weather?"},
    {"type":"message","role":"assistant","content":"checking"},
    {"type":"function_call","id":"fc_1","call_id":"call_a","name":"get","arguments":"{\"city\":\"Paris\"}","status":"completed"},
    {"type":"function_call","call_id":"call_b","name":"get","arguments":"{}"},
    {"type":"function_call_output","call_id":"call_a","output":"sunny"},
    {"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"rain"}]}])");
  EXPECT_EQ(m.dump(),
            R"([{"role":"user","content":"weather?"},{"role":"assistant","content":"checking","tool_calls":[)"
            R"({"id":"call_a","type":"function","function":{"name":"get","arguments":{"city":"Paris"}}},)"
            R"({"id":"call_b","type":"function","function":{"name":"get","arguments":{}}}]},)"
            R"({"role":"tool","content":"sunny","tool_call_id":"call_a"},)"
            R"({"role":"tool","content":"rain","tool_call_id":"call_b"}])");
}

TEST(OpenAiResponsesInput, ACallWithoutAnAssistantMessageBeforeItOpensOne) {
  const Json m = messages_of(R"([{"role":"user","content":"x"},
    {"type":"function_call","call_id":"c","name":"f","arguments":"{\"a\":1}"}])");
  EXPECT_EQ(m[1].dump(), R"({"role":"assistant","content":"","tool_calls":[{"id":"c","type":"function",)"
                         R"("function":{"name":"f","arguments":{"a":1}}}]})");
}

TEST(OpenAiResponsesInput, ReasoningBecomesTheReasoningContentOfTheAssistantOutputAfterIt) {
  const Json m = messages_of(R"([{"role":"user","content":"x"},
    {"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},
    {"type":"function_call","call_id":"c","name":"f","arguments":"{}"},
    {"type":"function_call_output","call_id":"c","output":"ok"},
    {"type":"reasoning","summary":[{"type":"summary_text","text":"only a summary"}]},
    {"type":"message","role":"assistant","content":"done"}])");
  EXPECT_EQ(m[1]["reasoning_content"], "think");
  EXPECT_EQ(m[1]["tool_calls"][0]["id"], "c");
  EXPECT_EQ(m[3].dump(), R"({"role":"assistant","content":"done","reasoning_content":"only a summary"})");
}

TEST(OpenAiResponsesInput, ReasoningThatNoAssistantOutputFollowsIsAnAssistantTurnWithoutContent) {
  const Json m = messages_of(R"([{"role":"user","content":"x"},
    {"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"cut off"}]},
    {"role":"user","content":"go on"}])");
  EXPECT_EQ(m[1].dump(), R"({"role":"assistant","content":"","reasoning_content":"cut off"})");
  EXPECT_EQ(m[2]["role"], "user");
}

TEST(OpenAiResponsesInput, EveryMalformedOrUnsupportedItemIsRejectedByItsField) {
  struct Case {
    const char* input;
    const char* param;
    const char* code;
  };
  const Case cases[] = {
      {R"([])", "input", "empty_array"},
      {R"(5)", "input", "invalid_type"},
      {R"([3])", "input[0]", "invalid_type"},
      {R"([{"role":"tool","content":"x"}])", "input[0].role", "invalid_value"},
      {R"([{"role":"user"}])", "input[0].content", "missing_required_parameter"},
      {R"([{"role":"user","content":"x","name":"n"}])", "input[0].name", "unknown_parameter"},
      {R"([{"role":"user","content":[{"type":"input_image","image_url":"u"}]}])", "input[0].content[0].type",
       "unsupported_value"},
      {R"([{"role":"user","content":[{"type":"output_text","text":"u"}]}])", "input[0].content[0].type",
       "unsupported_value"},
      {R"([{"role":"assistant","content":[{"type":"refusal","refusal":"no"}]}])", "input[0].content[0].type",
       "unsupported_value"},
      {R"([{"role":"user","content":[{"type":"input_text"}]}])", "input[0].content[0].text",
       "missing_required_parameter"},
      {R"([{"type":"function_call","call_id":"c","name":"f","arguments":"[1]"}])", "input[0].arguments",
       "invalid_value"},
      {R"([{"type":"function_call","call_id":"c","name":"f","arguments":"{"}])", "input[0].arguments",
       "invalid_value"},
      {R"([{"type":"function_call","name":"f","arguments":"{}"}])", "input[0].call_id", "missing_required_parameter"},
      {R"([{"type":"function_call_output","output":"x"}])", "input[0].call_id", "missing_required_parameter"},
      {R"([{"type":"function_call_output","call_id":"c","output":[{"type":"input_file","file_id":"f"}]}])",
       "input[0].output[0].type", "unsupported_value"},
      {R"([{"type":"reasoning","summary":[],"encrypted_content":"xyz"}])", "input[0].encrypted_content",
       "unsupported_parameter"},
      {R"([{"type":"reasoning","content":[]}])", "input[0].summary", "missing_required_parameter"},
      {R"([{"type":"reasoning","summary":[{"type":"reasoning_text","text":"x"}]}])", "input[0].summary[0].type",
       "invalid_value"},
      {R"([{"type":"item_reference","id":"msg_1"}])", "input[0].type", "unsupported_value"},
      {R"([{"type":"web_search_call","id":"ws_1"}])", "input[0].type", "unsupported_value"},
      {R"([{"role":"user","content":"x","status":"done"}])", "input[0].status", "invalid_value"},
  };
  for (const Case& c : cases) {
    expect_rejected_at(rejected_input(c.input), c.param, c.code, c.input);
  }
}

}  // namespace
}  // namespace ninfer::api
