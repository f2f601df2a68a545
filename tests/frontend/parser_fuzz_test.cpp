// parse_chat_output reads model output, and a continued assistant message (user text) becomes part
// of it: mutated and spliced real outputs must never crash it, every call it returns must carry
// JSON-object arguments, and reasoning ends at the first close.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "frontend_test_support.h"

namespace ninfer::qwen3 {
namespace {

using OJson = nlohmann::ordered_json;

TEST(ChatOutputParserFuzz, MutatedOutputsNeverCrashAndEveryCallHasObjectArguments) {
  const std::string schema =
      R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"tags":{"type":"array"}},"additionalProperties":false})";
  const std::vector<ToolDefinition> defs = {testing::tool("f", schema, true), testing::tool("g", "", false)};
  const std::vector<std::string> seeds = {
      "<think>\nhmm\n</think>\n\nHello <tool_call>\n{\"name\": \"f\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>",
      "\n</think>\n\n<tool_call>\n{\"name\": \"g\", \"arguments\": \"{\\\"x\\\": [1, {\\\"y\\\": null}]}\"}\n</tool_call>\n<tool_call>\n{\"name\": \"f\", \"arguments\": {}}\n</tool_call>",
      "<tool_call>\n<function=f>\n<parameter=city>\nOslo\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=tags>\n[\"a\", 1]\n</parameter>\n</function>\n</tool_call>",
      "text </think> more <tool_call>\n<function=g>\n<parameter=a>\nx</parameter\n</parameter>\n</function>\n</tool_call>"};
  const std::string pieces[] = {"<tool_call>", "</tool_call>", "<think>", "</think>", "\n", "{", "}", "\"", "\\",
                                "<function=", "<parameter=", "</parameter>", "</function>", ":", ",", "[", "]", "é", "1e999"};
  std::mt19937 rng(20261201);
  const auto t0 = std::chrono::steady_clock::now();
  size_t calls = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string text = seeds[rng() % std::size(seeds)];
    for (int m = int(rng() % 4); m >= 0; --m) {
      const size_t at = text.empty() ? 0 : rng() % text.size();
      switch (rng() % 3) {
        case 0: text.insert(at, pieces[rng() % std::size(pieces)]); break;
        case 1: text.erase(at, 1 + rng() % 8); break;
        default: text.resize(at); break;  // cut off
      }
    }
    const OutputStart start = static_cast<OutputStart>(rng() % 3);
    const ToolCallFormat format = rng() % 2 ? ToolCallFormat::Json : ToolCallFormat::Xml;
    const ChatOutput out = parse_chat_output(text, start, defs, format, iter);
    ASSERT_EQ(out.reasoning.find("</think>"), std::string::npos) << text;
    for (const ToolCall& c : out.tool_calls) {
      ++calls;
      ASSERT_TRUE(c.id.starts_with("call_")) << text;
      const OJson a = OJson::parse(c.arguments, nullptr, false);
      // Huge numbers stay as written (valid JSON a double cannot hold): check the text's shape.
      ASSERT_TRUE(a.is_object() || (!c.arguments.empty() && c.arguments.front() == '{')) << c.arguments << " from " << text;
    }
  }
  EXPECT_GT(calls, 0u);  // the mutations leave many calls intact
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 60.0);
}

}  // namespace
}  // namespace ninfer::qwen3
