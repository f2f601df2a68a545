// A conversation written as Responses items reaches the chat template exactly as the same
// conversation written as OpenAI Chat messages does (the Chat mapping is the oracle), and the bundled
// Qwen templates render it.
#include <gtest/gtest.h>

#include "api_test_support.h"
#include "jinja/chat_template.h"
#include "jinja/template.h"
#include "responses_test_support.h"

namespace ninfer::api {
namespace {

const char* kResponsesBody = R"({"model":"m","instructions":"Be terse.","input":[
  {"role":"user","content":"weather in Paris?"},
  {"type":"reasoning","id":"rs_1","summary":[],"content":[{"type":"reasoning_text","text":"need the tool"}]},
  {"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"},
  {"type":"function_call_output","call_id":"call_1","output":"sunny"},
  {"type":"message","role":"assistant","content":[{"type":"output_text","text":"It is sunny.","annotations":[]}]},
  {"role":"user","content":"thanks"}],
  "tools":[{"type":"function","name":"get_weather","description":"Weather now",
            "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}]})";

const char* kChatBody = R"({"model":"m","messages":[
  {"role":"system","content":"Be terse."},
  {"role":"user","content":"weather in Paris?"},
  {"role":"assistant","content":null,"reasoning_content":"need the tool",
   "tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"sunny"},
  {"role":"assistant","content":"It is sunny."},
  {"role":"user","content":"thanks"}],
  "tools":[{"type":"function","function":{"name":"get_weather","description":"Weather now",
            "parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]},"strict":true}}]})";

TEST(OpenAiResponsesTemplate, ItemsGiveTheTemplateTheContextTheSameChatMessagesGive) {
  const ResponsesRequest responses = testing::accept_responses(kResponsesBody);
  const ChatRequest chat = testing::accept(kChatBody);
  EXPECT_EQ(responses.chat.prompt.chat_prompt->context_json, chat.prompt.chat_prompt->context_json);
}

TEST(OpenAiResponsesTemplate, TheBundledQwenTemplatesRenderTheCallTheOutputAndTheReasoning) {
  const Json context = Json::parse(testing::accept_responses(kResponsesBody).chat.prompt.chat_prompt->context_json);
  for (const char* name : {"qwen3", "qwen3_5"}) {
    const auto source = jinja::bundled_template(name);
    ASSERT_TRUE(source) << name;
    const std::string text = jinja::Template::parse(*source)->render(context);
    EXPECT_NE(text.find("Be terse."), std::string::npos) << name;
    EXPECT_NE(text.find("get_weather"), std::string::npos) << name;
    EXPECT_NE(text.find("Paris"), std::string::npos) << name;
    EXPECT_NE(text.find("<tool_response>\nsunny\n</tool_response>"), std::string::npos) << name << "\n" << text;
    EXPECT_NE(text.find("It is sunny."), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace ninfer::api
