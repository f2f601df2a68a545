// tools, tool_choice, parallel_tool_calls, tool_enforcement -> template tools + RequestOptions::tool_choice.
#include <gtest/gtest.h>

#include "api_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::context_of;
using testing::reject;
using testing::with;

const char* kTools =
    R"("tools":[{"type":"function","function":{"name":"get_weather","description":"d","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]},"strict":true}},)"
    R"({"type":"function","function":{"name":"search"}}])";

TEST(OpenAiChatTools, ToolsReachTheTemplateAsWrittenAndDefaultToAutoWithParallelCalls) {
  const ChatRequest r = accept(with(kTools));
  const Json c = context_of(r);
  // Key order kept: templates print tools with tojson, and schema order is generation order.
  EXPECT_EQ(c["tools"][0]["function"]["parameters"].dump(),
            R"({"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]})");
  EXPECT_EQ(c["tools"][1]["function"]["name"], "search");
  ASSERT_TRUE(r.options.tool_choice);
  EXPECT_EQ(r.options.tool_choice->mode, ToolChoiceMode::Auto);
  EXPECT_TRUE(r.options.tool_choice->allowed_names.empty());
  EXPECT_TRUE(r.options.tool_choice->parallel);
  EXPECT_EQ(r.options.tool_choice->enforcement, ToolEnforcement::Basic);
}

TEST(OpenAiChatTools, WithoutToolsThereIsNoToolChoiceAndAnEmptyListCountsAsNone) {
  EXPECT_FALSE(accept(with("")).options.tool_choice);
  const ChatRequest r = accept(with(R"("tools":[])"));
  EXPECT_FALSE(r.options.tool_choice);
  EXPECT_FALSE(context_of(r).contains("tools"));
}

TEST(OpenAiChatTools, StringChoicesMapToTheirModes) {
  EXPECT_EQ(accept(with(std::string(kTools) + R"(,"tool_choice":"none")")).options.tool_choice->mode, ToolChoiceMode::None);
  EXPECT_EQ(accept(with(std::string(kTools) + R"(,"tool_choice":"auto")")).options.tool_choice->mode, ToolChoiceMode::Auto);
  EXPECT_EQ(accept(with(std::string(kTools) + R"(,"tool_choice":"required")")).options.tool_choice->mode,
            ToolChoiceMode::Required);
}

TEST(OpenAiChatTools, ANamedChoiceIsRequiredWithThatOneNameAndNoParallelCalls) {
  const ToolChoice tc = *accept(with(std::string(kTools) +
                                     R"(,"parallel_tool_calls":true,"tool_choice":{"type":"function","function":{"name":"search"}})"))
                             .options.tool_choice;
  EXPECT_EQ(tc.mode, ToolChoiceMode::Required);
  EXPECT_EQ(tc.allowed_names, std::vector<std::string>{"search"});
  EXPECT_FALSE(tc.parallel);
}

TEST(OpenAiChatTools, AllowedToolsKeepTheirModeAndNames) {
  const ToolChoice tc = *accept(with(std::string(kTools) + R"(,"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}})"))
                             .options.tool_choice;
  EXPECT_EQ(tc.mode, ToolChoiceMode::Required);
  EXPECT_EQ(tc.allowed_names, std::vector<std::string>{"get_weather"});
  EXPECT_TRUE(tc.parallel);
}

TEST(OpenAiChatTools, ParallelFalseAndAutomaticEnforcementAreCarried) {
  const ToolChoice tc =
      *accept(with(std::string(kTools) + R"(,"parallel_tool_calls":false,"tool_enforcement":"automatic")")).options.tool_choice;
  EXPECT_FALSE(tc.parallel);
  EXPECT_EQ(tc.enforcement, ToolEnforcement::Automatic);
}

TEST(OpenAiChatTools, ToolCallFormatOverridesTheTemplatesFormat) {
  EXPECT_EQ(accept(with(R"("tool_call_format":"xml")")).prompt.chat_prompt->tool_format, ToolCallFormat::Xml);
  EXPECT_EQ(accept(with(R"("tool_call_format":"json")")).prompt.chat_prompt->tool_format, ToolCallFormat::Json);
  EXPECT_EQ(reject(with(R"("tool_call_format":"yaml")")).param, "tool_call_format");
}

TEST(OpenAiChatTools, EveryMalformedToolOrChoiceIsRejectedByItsField) {
  struct Case {
    std::string extra;
    const char* param;
  };
  const std::string t = std::string(kTools) + ",";
  const Case cases[] = {
      {R"("tools":{})", "tools"},
      {R"("tools":[1])", "tools[0]"},
      {R"("tools":[{"function":{"name":"f"}}])", "tools[0].type"},
      {R"("tools":[{"type":"custom","custom":{"name":"f"}}])", "tools[0].type"},
      {R"("tools":[{"type":"function"}])", "tools[0].function"},
      {R"("tools":[{"type":"function","function":"f"}])", "tools[0].function"},
      {R"("tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{}}])", "tools[1].function.name"},
      {R"("tools":[{"type":"function","function":{"name":3}}])", "tools[0].function.name"},
      {R"("tools":[{"type":"function","function":{"name":"f","parameters":"{}"}}])", "tools[0].function.parameters"},
      {R"("tools":[{"type":"function","function":{"name":"f","strict":"yes"}}])", "tools[0].function.strict"},
      {R"("tools":[{"type":"function","function":{"name":"f","description":[]}}])", "tools[0].function.description"},
      {R"("tools":[{"type":"function","function":{"name":"f","params":{}}}])", "tools[0].function.params"},
      {R"("tools":[{"type":"function","function":{"name":"f"},"strict":true}])", "tools[0].strict"},
      {R"("tool_choice":"auto")", "tool_choice"},
      {R"("tool_choice":"none")", "tool_choice"},
      {R"("parallel_tool_calls":false)", "parallel_tool_calls"},
      {t + R"("tool_choice":"sometimes")", "tool_choice"},
      {t + R"("tool_choice":3)", "tool_choice"},
      {t + R"("tool_choice":{"type":"custom","custom":{"name":"x"}})", "tool_choice.type"},
      {t + R"("tool_choice":{"function":{"name":"search"}})", "tool_choice.type"},
      {t + R"("tool_choice":{"type":"function"})", "tool_choice.function"},
      {t + R"("tool_choice":{"type":"function","function":{}})", "tool_choice.function.name"},
      {t + R"("tool_choice":{"type":"function","function":{"name":"nope"}})", "tool_choice.function.name"},
      {t + R"("tool_choice":{"type":"function","function":{"name":"search","x":1}})", "tool_choice.function.x"},
      {t + R"("tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"none","tools":[]}})", "tool_choice.allowed_tools.mode"},
      {t + R"("tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[]}})", "tool_choice.allowed_tools.tools"},
      {t + R"("tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"search"}},{"type":"function","function":{"name":"gone"}}]}})",
       "tool_choice.allowed_tools.tools[1].function.name"},
      {t + R"("parallel_tool_calls":"no")", "parallel_tool_calls"},
      {t + R"("tool_enforcement":"strictest")", "tool_enforcement"},
  };
  for (const Case& c : cases) {
    const ApiError e = reject(with(c.extra));
    EXPECT_EQ(e.status, 400) << c.extra;
    EXPECT_EQ(e.param, c.param) << c.extra << ": " << e.message;
  }
}

}  // namespace
}  // namespace ninfer::api
