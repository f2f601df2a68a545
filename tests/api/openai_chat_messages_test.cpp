// messages -> the template's messages variable, and every rejection naming its field.
#include <gtest/gtest.h>

#include "api_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::context_of;
using testing::reject;

std::string body_with_messages(const std::string& messages) {
  return R"({"model":"m","messages":)" + messages + "}";
}

TEST(OpenAiChatMessages, TheContextHoldsTheMessagesTheGenerationPromptAndNoToolsWhenThereAreNone) {
  const ChatRequest r = accept(body_with_messages(R"([{"role":"system","content":"be brief"},{"role":"user","content":"hi"}])"));
  ASSERT_TRUE(r.prompt.chat_prompt);
  EXPECT_EQ(r.prompt.chat_prompt->context_json,
            R"({"messages":[{"role":"system","content":"be brief"},{"role":"user","content":"hi"}],)"
            R"("add_generation_prompt":true})");
  EXPECT_FALSE(r.prompt.chat_prompt->continue_final_message);
  EXPECT_EQ(r.prompt.chat_prompt->tool_format, ToolCallFormat::Auto);
  EXPECT_EQ(r.model, "m");
}

TEST(OpenAiChatMessages, TextPartsAreJoinedWithNewlinesLikeVllmsStringContentFormat) {
  const Json c = context_of(accept(body_with_messages(
      R"([{"role":"user","content":[{"type":"text","text":"one"},{"type":"text","text":"two\nlines"}]}])")));
  EXPECT_EQ(c["messages"][0]["content"], "one\ntwo\nlines");
}

TEST(OpenAiChatMessages, AnImagePartIsRejectedByItsTypeField) {
  const ApiError e = reject(body_with_messages(
      R"([{"role":"user","content":"a"},{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"u"}}]}])"));
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "messages[1].content[1].type");
  EXPECT_NE(e.message.find("image_url"), std::string::npos);
}

TEST(OpenAiChatMessages, DeveloperMessagesAreReadAsSystemMessages) {
  const Json c = context_of(accept(body_with_messages(R"([{"role":"developer","content":"rules"},{"role":"user","content":"q"}])")));
  EXPECT_EQ(c["messages"][0]["role"], "system");
}

TEST(OpenAiChatMessages, AssistantToolCallArgumentsAreParsedIntoObjectsInTheirKeyOrder) {
  const Json c = context_of(accept(body_with_messages(R"([{"role":"user","content":"w?"},
      {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",
        "function":{"name":"get","arguments":"{\"z\":1,\"a\":[true,null]}"}}]},
      {"role":"tool","tool_call_id":"call_1","content":"sunny"}])")));
  const Json& a = c["messages"][1];
  EXPECT_EQ(a["content"], "");  // vLLM: null content renders as the empty string
  EXPECT_EQ(a["tool_calls"][0]["function"]["arguments"].dump(), R"({"z":1,"a":[true,null]})");
  EXPECT_EQ(a["tool_calls"][0]["id"], "call_1");
  EXPECT_EQ(c["messages"][2]["tool_call_id"], "call_1");
  EXPECT_EQ(c["messages"][2]["content"], "sunny");
}

TEST(OpenAiChatMessages, ArgumentsGivenAsAnObjectStayAnObject) {
  const Json c = context_of(accept(body_with_messages(R"([{"role":"assistant","tool_calls":[
      {"type":"function","function":{"name":"f","arguments":{"x":"y"}}}]}])")));
  EXPECT_EQ(c["messages"][0]["tool_calls"][0]["function"]["arguments"]["x"], "y");
}

TEST(OpenAiChatMessages, ArgumentsThatAreNotJsonAreRejectedByTheirField) {
  const ApiError e = reject(body_with_messages(R"([{"role":"user","content":"q"},{"role":"assistant","tool_calls":[
      {"type":"function","function":{"name":"f","arguments":"{}"}},
      {"type":"function","function":{"name":"f","arguments":"{not json"}}]}])"));
  EXPECT_EQ(e.param, "messages[1].tool_calls[1].function.arguments");
}

TEST(OpenAiChatMessages, ArgumentsThatAreJsonButNotAnObjectAreRejected) {
  const ApiError e = reject(body_with_messages(
      R"([{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f","arguments":"[1,2]"}}]}])"));
  EXPECT_EQ(e.param, "messages[0].tool_calls[0].function.arguments");
  EXPECT_NE(e.message.find("an array"), std::string::npos);
}

TEST(OpenAiChatMessages, ReasoningUnderEitherNameReachesTheTemplateAsReasoningContent) {
  Json c = context_of(accept(body_with_messages(R"([{"role":"assistant","content":"a","reasoning":"r1"}])")));
  EXPECT_EQ(c["messages"][0]["reasoning_content"], "r1");
  c = context_of(accept(body_with_messages(R"([{"role":"assistant","content":"a","reasoning_content":"r2"}])")));
  EXPECT_EQ(c["messages"][0]["reasoning_content"], "r2");
  EXPECT_EQ(reject(body_with_messages(R"([{"role":"assistant","content":"a","reasoning_content":"x","reasoning":"y"}])")).param,
            "messages[0].reasoning");
}

TEST(OpenAiChatMessages, NamesPassThroughAndEchoedResponseFieldsAreAccepted) {
  const Json c = context_of(accept(body_with_messages(
      R"([{"role":"user","content":"q","name":"ann"},{"role":"assistant","content":"a","refusal":null,"annotations":[],"audio":null,"function_call":null}])")));
  EXPECT_EQ(c["messages"][0]["name"], "ann");
  EXPECT_FALSE(c["messages"][1].contains("refusal"));
}

TEST(OpenAiChatMessages, EveryMalformedMessageIsRejectedByItsField) {
  struct Case {
    const char* messages;
    const char* param;
  };
  const Case cases[] = {
      {R"([])", "messages"},
      {R"({})", "messages"},
      {R"("hi")", "messages"},
      {R"([1])", "messages[0]"},
      {R"([{"content":"x"}])", "messages[0].role"},
      {R"([{"role":"robot","content":"x"}])", "messages[0].role"},
      {R"([{"role":7,"content":"x"}])", "messages[0].role"},
      {R"([{"role":"user"}])", "messages[0].content"},
      {R"([{"role":"user","content":null}])", "messages[0].content"},
      {R"([{"role":"user","content":5}])", "messages[0].content"},
      {R"([{"role":"user","content":[{"type":"text"}]}])", "messages[0].content[0].text"},
      {R"([{"role":"user","content":[{"type":"text","text":3}]}])", "messages[0].content[0].text"},
      {R"([{"role":"user","content":["text"]}])", "messages[0].content[0]"},
      {R"([{"role":"user","content":[{"text":"a"}]}])", "messages[0].content[0].type"},
      {R"([{"role":"user","content":[{"type":"text","text":"a","cache_control":{}}]}])", "messages[0].content[0].cache_control"},
      {R"([{"role":"user","content":"a","tool_calls":[]}])", "messages[0].tool_calls"},
      {R"([{"role":"user","content":"a","contnet":"typo"}])", "messages[0].contnet"},
      {R"([{"role":"user","content":"a","name":1}])", "messages[0].name"},
      {R"([{"role":"tool","content":"a"}])", "messages[0].tool_call_id"},
      {R"([{"role":"tool","content":"a","tool_call_id":5}])", "messages[0].tool_call_id"},
      {R"([{"role":"assistant","content":"a","tool_calls":{}}])", "messages[0].tool_calls"},
      {R"([{"role":"assistant","tool_calls":[{"type":"custom","function":{"name":"f","arguments":"{}"}}]}])",
       "messages[0].tool_calls[0].type"},
      {R"([{"role":"assistant","tool_calls":[{"type":"function"}]}])", "messages[0].tool_calls[0].function"},
      {R"([{"role":"assistant","tool_calls":[{"function":{"arguments":"{}"}}]}])", "messages[0].tool_calls[0].function.name"},
      {R"([{"role":"assistant","tool_calls":[{"function":{"name":"f"}}]}])", "messages[0].tool_calls[0].function.arguments"},
      {R"([{"role":"assistant","tool_calls":[{"function":{"name":"f","arguments":7}}]}])",
       "messages[0].tool_calls[0].function.arguments"},
      {R"([{"role":"assistant","tool_calls":[{"id":3,"function":{"name":"f","arguments":"{}"}}]}])",
       "messages[0].tool_calls[0].id"},
      {R"([{"role":"assistant","content":"a","reasoning_content":1}])", "messages[0].reasoning_content"},
      {R"([{"role":"assistant","content":"a","audio":{"id":"x"}}])", "messages[0].audio"},
      {R"([{"role":"assistant","content":"a","function_call":{"name":"f","arguments":"{}"}}])", "messages[0].function_call"},
      {R"([{"role":"assistant","content":"a","refusal":1}])", "messages[0].refusal"},
  };
  for (const Case& c : cases) {
    const ApiError e = reject(body_with_messages(c.messages));
    EXPECT_EQ(e.status, 400) << c.messages;
    EXPECT_EQ(e.type, "invalid_request_error") << c.messages;
    EXPECT_EQ(e.param, c.param) << c.messages << ": " << e.message;
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(OpenAiChatMessages, MissingMessagesIsAMissingRequiredParameter) {
  const ApiError e = reject(R"({"model":"m"})");
  EXPECT_EQ(e.param, "messages");
  EXPECT_EQ(e.code, "missing_required_parameter");
}

}  // namespace
}  // namespace ninfer::api
