// parse_chat_output: reasoning split, content before calls, cut-off outputs, XML value typing as
// vLLM's qwen3_coder parser does it (FACTS.md 5.2).
#include <gtest/gtest.h>

#include <set>

#include "frontend_test_support.h"
#include "models/qwen3/frontend/xml_value_typing.h"

namespace ninfer::qwen3 {
namespace {

using namespace testing;
using OJson = nlohmann::ordered_json;

const std::string kSchema =
    R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"ok":{"type":"boolean"},"ratio":{"type":"number"},"opt":{"type":["integer","null"]},"obj":{"type":"object"},"list":{"type":"array"}},"additionalProperties":false})";

std::vector<ToolDefinition> tools(bool strict) { return {tool("f", kSchema, strict), tool("g", "", false)}; }

OJson args(const ToolCall& c) { return OJson::parse(c.arguments); }

TEST(ChatOutputParser, SplitsReasoningFromContentAtTheCanonicalClose) {
  const ChatOutput o = parse_chat_output("Let me think.\nMore.\n</think>\n\nThe answer.", OutputStart::Thinking, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(o.reasoning, "Let me think.\nMore.");
  EXPECT_EQ(o.content, "The answer.");
  EXPECT_TRUE(o.thinking_closed);
  EXPECT_TRUE(o.tool_calls.empty());
}

TEST(ChatOutputParser, OptionalThinkingOpenedByTheModelDropsTheTemplateNewline) {
  const ChatOutput o = parse_chat_output("<think>\nhmm\n</think>\n\nHi", OutputStart::OptionalThinking, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(o.reasoning, "hmm");
  EXPECT_EQ(o.content, "Hi");
  const ChatOutput direct = parse_chat_output("Hi <b>", OutputStart::OptionalThinking, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(direct.reasoning, "");
  EXPECT_EQ(direct.content, "Hi <b>");
}

TEST(ChatOutputParser, CutOffThinkingIsAllReasoningAndNeverContent) {
  const ChatOutput o = parse_chat_output("still going\n</thi", OutputStart::Thinking, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(o.reasoning, "still going");
  EXPECT_EQ(o.content, "");
  EXPECT_FALSE(o.thinking_closed);
  const ChatOutput opening = parse_chat_output("<thi", OutputStart::OptionalThinking, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(opening.content, "");
}

TEST(ChatOutputParser, ContentBeforeJsonCallsLosesOnlyTheTemplateSeparator) {
  const std::string text =
      "Checking two cities.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>\n"
      "<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>";
  const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(true), ToolCallFormat::Json, 7);
  EXPECT_EQ(o.content, "Checking two cities.");
  ASSERT_EQ(o.tool_calls.size(), 2u);
  EXPECT_EQ(o.tool_calls[0].name, "f");
  EXPECT_EQ(args(o.tool_calls[0]), OJson::parse(R"({"city":"Paris","days":2})"));
  EXPECT_EQ(o.tool_calls[1].name, "g");
  EXPECT_EQ(o.tool_calls[1].arguments, "{}");
}

TEST(ChatOutputParser, CallIdsAreDeterministicDistinctAndOpenAiShaped) {
  std::set<std::string> ids;
  for (size_t i = 0; i < 50; ++i) {
    const std::string id = tool_call_id(42, i);
    ASSERT_EQ(id.size(), 29u);
    EXPECT_EQ(id.substr(0, 5), "call_");
    for (char c : id.substr(5)) EXPECT_TRUE((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    ids.insert(id);
    EXPECT_EQ(id, tool_call_id(42, i));
  }
  EXPECT_EQ(ids.size(), 50u);
  EXPECT_NE(tool_call_id(1, 0), tool_call_id(2, 0));
}

TEST(ChatOutputParser, ACutOffCallIsNeitherACallNorContent) {
  const std::string text = "Sure.\n<tool_call>\n{\"name\": \"f\", \"arguments\": {\"city\": \"Par";
  const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(true), ToolCallFormat::Json, 1);
  EXPECT_EQ(o.content, "Sure.");
  EXPECT_TRUE(o.tool_calls.empty());
  const ChatOutput xml = parse_chat_output("<tool_call>\n<function=f>\n<parameter=city>\nP", OutputStart::Body, tools(true),
                                           ToolCallFormat::Xml, 1);
  EXPECT_EQ(xml.content, "");
  EXPECT_TRUE(xml.tool_calls.empty());
  // After a call, a partial "<tool_c" can only be the next call being opened.
  const ChatOutput opening = parse_chat_output("<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>\n<tool_c",
                                               OutputStart::Body, tools(true), ToolCallFormat::Json, 1);
  EXPECT_EQ(opening.content, "");
  EXPECT_EQ(opening.tool_calls.size(), 1u);
}

TEST(ChatOutputParser, ReasoningNeverLeaksIntoContentWithCalls) {
  const std::string text = "plan: call f\n</think>\n\n<tool_call>\n{\"name\": \"g\", \"arguments\": {}}\n</tool_call>";
  const ChatOutput o = parse_chat_output(text, OutputStart::Thinking, tools(true), ToolCallFormat::Json, 1);
  EXPECT_EQ(o.reasoning, "plan: call f");
  EXPECT_EQ(o.content, "");
  ASSERT_EQ(o.tool_calls.size(), 1u);
}

std::string xml_call(const std::string& params) { return "<tool_call>\n<function=f>\n" + params + "</function>\n</tool_call>"; }
std::string param(const std::string& n, const std::string& v) { return "<parameter=" + n + ">\n" + v + "\n</parameter>\n"; }

TEST(ChatOutputParser, XmlValuesAreTypedByTheSchemaAsVllmDoes) {
  for (bool strict : {false, true}) {
    const std::string text = "Looking.\n\n" + xml_call(param("city", "New\nYork </parameter> x") + param("days", "3") +
                                                       param("ok", "True") + param("ratio", "2.0") + param("opt", "None") +
                                                       param("obj", "{\"a\": [1, 2]}") + param("list", "['x', True]"));
    const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(strict), ToolCallFormat::Xml, 1);
    EXPECT_EQ(o.content, "Looking.");
    ASSERT_EQ(o.tool_calls.size(), 1u);
    const OJson a = args(o.tool_calls[0]);
    EXPECT_EQ(a["city"], "New\nYork </parameter> x");
    EXPECT_EQ(a["days"], 3);
    EXPECT_EQ(a["ok"], true);
    EXPECT_EQ(a["obj"], OJson::parse(R"({"a":[1,2]})"));
    EXPECT_EQ(a["list"], OJson::parse(R"(["x",true])"));
    if (strict) {
      EXPECT_EQ(a["ratio"], 2.0);
      EXPECT_TRUE(a["opt"].is_null());  // the template writes None for null
    } else {
      EXPECT_EQ(a["ratio"], 2);       // vLLM: an integral float becomes an int
      EXPECT_EQ(a["opt"], "None");  // vLLM keeps int("None") as text
    }
  }
}

TEST(ChatOutputParser, VllmTypingRules) {
  const OJson integer = {{"type", "integer"}}, number = {{"type", "number"}}, boolean = {{"type", "boolean"}},
              string = {{"type", "string"}}, object = {{"type", "object"}};
  EXPECT_TRUE(vllm_typed_value("NULL", &integer).is_null());
  EXPECT_EQ(vllm_typed_value("12", &integer), 12);
  EXPECT_EQ(vllm_typed_value("1.5", &integer), "1.5");
  EXPECT_EQ(vllm_typed_value("1.5", &number), 1.5);
  EXPECT_EQ(vllm_typed_value("3.0", &number), 3);
  EXPECT_EQ(vllm_typed_value("TRUE", &boolean), true);
  EXPECT_EQ(vllm_typed_value("False", &boolean), false);
  EXPECT_EQ(vllm_typed_value("yes", &boolean), false);
  EXPECT_EQ(vllm_typed_value("42", &string), "42");
  EXPECT_EQ(vllm_typed_value("{'a': None, 'b': (1, 2)}", &object), OJson::parse(R"({"a":null,"b":[1,2]})"));
  EXPECT_EQ(vllm_typed_value("{not json", &object), "{not json");
  EXPECT_EQ(vllm_typed_value("7", nullptr), "7");  // an undeclared parameter stays text
}

TEST(ChatOutputParser, TheLastDuplicateWinsForNonStrictXml) {
  const std::string text = xml_call(param("days", "1") + param("zzz", "a") + param("days", "2"));
  const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(false), ToolCallFormat::Xml, 1);
  ASSERT_EQ(o.tool_calls.size(), 1u);
  EXPECT_EQ(args(o.tool_calls[0]), OJson::parse(R"({"days":2,"zzz":"a"})"));
}

TEST(ChatOutputParser, SeveralXmlCallsAndNoCallsWithoutTools) {
  const std::string text = xml_call(param("days", "1")) + "\n" + xml_call(param("days", "2"));
  const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(true), ToolCallFormat::Xml, 1);
  ASSERT_EQ(o.tool_calls.size(), 2u);
  EXPECT_EQ(args(o.tool_calls[1])["days"], 2);
  EXPECT_NE(o.tool_calls[0].id, o.tool_calls[1].id);
  const ChatOutput none = parse_chat_output(text, OutputStart::Body, {}, ToolCallFormat::Xml, 1);
  EXPECT_EQ(none.content, text);
  EXPECT_TRUE(none.tool_calls.empty());
}

// A JSON library would round an integer past 64 bits, and refuse one past binary64 ("number
// overflow"), though the grammar of an unbounded integer allows both: the arguments keep the
// model's value text exactly, minus insignificant whitespace.
TEST(ChatOutputParser, JsonArgumentsKeepTheExactValueTextOfHugeNumbers) {
  const std::string huge(400, '5');
  const std::string text = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"n\" :\n " + huge +
                           " , \"s\": \"a  b\\\" c\", \"x\": [1.5e-3, -0, {}]}}\n</tool_call>";
  const ChatOutput o = parse_chat_output(text, OutputStart::Body, tools(false), ToolCallFormat::Json, 1);
  ASSERT_EQ(o.tool_calls.size(), 1u) << o.content;
  EXPECT_EQ(o.tool_calls[0].arguments, "{\"n\":" + huge + ",\"s\":\"a  b\\\" c\",\"x\":[1.5e-3,-0,{}]}");
  const ChatOutput bad = parse_chat_output("<tool_call>\n{\"name\": \"f\", \"arguments\": {\"n\": 01}}\n</tool_call>",
                                           OutputStart::Body, tools(false), ToolCallFormat::Json, 1);
  EXPECT_TRUE(bad.tool_calls.empty());
}

// The same for an integer parameter of an XML call, which the typing reads through a JSON library:
// past binary64 it keeps its digits (Python's int() and json.dumps would), not the text as a string.
TEST(ChatOutputParser, XmlIntegersPastBinary64KeepTheirDigits) {
  const std::string huge(400, '5');
  for (bool strict : {false, true}) {
    const ChatOutput o = parse_chat_output(xml_call(param("days", huge) + param("city", "Oslo")), OutputStart::Body,
                                           tools(strict), ToolCallFormat::Xml, 1);
    ASSERT_EQ(o.tool_calls.size(), 1u) << o.content;
    EXPECT_EQ(o.tool_calls[0].arguments, "{\"days\":" + huge + ",\"city\":\"Oslo\"}") << strict;
  }
  const OJson integer = {{"type", "integer"}}, number = {{"type", "number"}}, string = {{"type", "string"}};
  EXPECT_EQ(vllm_typed_json(" +00" + huge + " ", &integer), huge);
  EXPECT_EQ(vllm_typed_json("-" + huge, &number), "-" + huge);
  EXPECT_EQ(vllm_typed_json(huge, &string), "\"" + huge + "\"");
  EXPECT_EQ(vllm_typed_json("12", &integer), "12");
}

TEST(ChatOutputParser, AClosedCallThatDoesNotParseStaysInContent) {
  const std::string bad = "<tool_call>\n{\"name\": f}\n</tool_call>";
  const ChatOutput o = parse_chat_output("x\n" + bad, OutputStart::Body, tools(true), ToolCallFormat::Json, 1);
  EXPECT_TRUE(o.tool_calls.empty());
  EXPECT_EQ(o.content, "x\n" + bad);
}

TEST(OutputStartDetection, ReadsTheTailAfterTheLastAssistantHeader) {
  const std::string head = "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n";
  EXPECT_EQ(detect_output_start(head + "<think>\n", false), OutputStart::Thinking);
  EXPECT_EQ(detect_output_start(head + "<think>\n\n</think>\n\n", true), OutputStart::Body);
  EXPECT_EQ(detect_output_start(head, true), OutputStart::OptionalThinking);
  EXPECT_EQ(detect_output_start(head, false), OutputStart::Body);
  EXPECT_EQ(detect_output_start(head + "Partial answer", true), OutputStart::Body);
  EXPECT_EQ(detect_output_start("<|im_start|>assistant\n<think>\nold\n</think>\n\nx<|im_end|>\n" + head + "<think>\n", true),
            OutputStart::Thinking);
}

TEST(ToolDefinitions, ParseTheOpenAiToolsArray) {
  const auto t = parse_tools(nlohmann::json::parse(
      R"([{"type":"function","function":{"name":"a_b-1","description":"d","parameters":{"type":"object"},"strict":true}},{"type":"function","function":{"name":"x"}}])"));
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].name, "a_b-1");
  EXPECT_EQ(t[0].description, "d");
  EXPECT_EQ(nlohmann::json::parse(t[0].parameters), nlohmann::json::parse(R"({"type":"object"})"));
  EXPECT_TRUE(t[0].strict);
  EXPECT_EQ(t[1].parameters, "");
  EXPECT_FALSE(t[1].strict);
}

TEST(ToolDefinitions, ShapeErrorsNameTheirField) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"a":1})", "tools"},
      {R"([{"type":"function","function":{"name":"ok"}},{"type":"function","function":{}}])", "tools[1].function.name"},
      {R"([{"type":"function","function":{"name":""}}])", "tools[0].function.name"},
      {R"([{"type":"function","function":{"name":"has space"}}])", "tools[0].function.name"},
      {R"([{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"a"}}])", "tools[1].function.name"},
      {R"([{"type":"function","function":{"name":"a","parameters":[1]}}])", "tools[0].function.parameters"},
      {R"([{"type":"retrieval","function":{"name":"a"}}])", "tools[0].type"},
      {R"([{"type":"function"}])", "tools[0].function"},
      {R"([{"type":"function","function":{"name":"a","strict":"yes"}}])", "tools[0].function.strict"},
  };
  for (const auto& [json, param] : cases) {
    try {
      parse_tools(nlohmann::json::parse(json));
      ADD_FAILURE() << json;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.kind(), RequestErrorKind::InvalidTools) << json;
      EXPECT_EQ(e.param(), param) << json;
    }
  }
}

TEST(ToolDefinitions, TheFormatFollowsTheTemplate) {
  EXPECT_EQ(tool_format_for_template(read_text_file(template_path("qwen3"))), ToolCallFormat::Json);
  EXPECT_EQ(tool_format_for_template(read_text_file(template_path("qwen3_5"))), ToolCallFormat::Xml);
  EXPECT_EQ(tool_format_for_template(read_text_file(template_path("qwen3_coder"))), ToolCallFormat::Xml);
}

}  // namespace
}  // namespace ninfer::qwen3
