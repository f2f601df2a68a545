// Random mutations of a valid request body (wrong types, removed and unknown members, huge numbers,
// deep nesting, invalid argument strings) never crash the mapping: each either maps or is a 400
// that names a field.
#include <algorithm>
#include <limits>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "api/anthropic_error.h"
#include "api/anthropic_messages_request.h"
#include "api/openai_chat_request.h"
#include "mapping_fuzz.h"

namespace ninfer::api {
namespace {

using testing::fuzz_mapping;
using testing::FuzzOutcomes;

const char* kValidBody = R"({
  "model": "qwen",
  "messages": [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "text", "text": "in Paris"}]},
    {"role": "assistant", "content": null, "reasoning_content": "call the tool",
     "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "user", "content": "and tomorrow?"}
  ],
  "tools": [{"type": "function", "function": {"name": "get_weather", "description": "d", "strict": true,
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}],
  "tool_choice": {"type": "function", "function": {"name": "get_weather"}},
  "parallel_tool_calls": false,
  "response_format": {"type": "json_schema", "json_schema": {"name": "w", "strict": true, "schema": {"type": "object"}}},
  "max_completion_tokens": 100, "temperature": 0.7, "top_p": 0.9, "top_k": 20, "min_p": 0.1, "seed": 7,
  "presence_penalty": 0.5, "frequency_penalty": 0.5, "n": 1, "stream": true, "stream_options": {"include_usage": true},
  "chat_template_kwargs": {"enable_thinking": true}, "add_generation_prompt": true, "thinking_token_budget": 50,
  "tool_enforcement": "basic", "tool_call_format": "xml", "user": "u", "metadata": {"a": "b"}
})";

TEST(RequestFuzz, MutatedBodiesEitherMapOrAreA400NamingAField) {
  const Json valid = Json::parse(kValidBody);
  ASSERT_TRUE(map_openai_chat_request(valid, {}).options.constraint);  // the seed itself maps
  const FuzzOutcomes outcomes = fuzz_mapping(
      valid, 20261201, 4000,
      [](const Json& body) {
        const ChatRequest r = map_openai_chat_request(body, {});
        ASSERT_TRUE(r.prompt.chat_prompt);
        EXPECT_TRUE(Json::accept(r.prompt.chat_prompt->context_json));
      },
      [](const ApiError& e) { return openai_error_json(e).dump(); });
  // Both outcomes happen: the mutations are neither all harmless nor all fatal.
  EXPECT_GT(outcomes.accepted, 100);
  EXPECT_GT(outcomes.rejected, 1000);
}

const char* kValidAnthropicBody = R"({
  "model": "claude", "max_tokens": 100, "system": [{"type": "text", "text": "You are terse."}],
  "messages": [
    {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "text", "text": "in Paris"}]},
    {"role": "assistant", "content": [{"type": "thinking", "thinking": "call the tool", "signature": ""},
     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]},
    {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "sunny"}],
     "is_error": false}, {"type": "text", "text": "and tomorrow?"}]}
  ],
  "tools": [{"name": "get_weather", "description": "d", "strict": true, "cache_control": {"type": "ephemeral"},
             "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
  "tool_choice": {"type": "tool", "name": "get_weather", "disable_parallel_tool_use": true},
  "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
  "thinking": {"type": "enabled", "budget_tokens": 50}, "temperature": 0.7, "top_p": 0.9, "top_k": 20,
  "stream": true, "metadata": {"user_id": "u"}, "tool_enforcement": "basic", "tool_call_format": "xml"
})";

TEST(RequestFuzz, MutatedAnthropicBodiesEitherMapOrAreA400NamingAField) {
  const Json valid = Json::parse(kValidAnthropicBody);
  ASSERT_TRUE(map_anthropic_request(valid, {}).options.constraint);  // the seed itself maps
  const FuzzOutcomes outcomes = fuzz_mapping(
      valid, 20261202, 4000,
      [](const Json& body) {
        const ChatRequest r = map_anthropic_request(body, {});
        ASSERT_TRUE(r.prompt.chat_prompt);
        EXPECT_TRUE(Json::accept(r.prompt.chat_prompt->context_json));
      },
      [](const ApiError& e) { return anthropic_error_json(e).dump(); });
  EXPECT_GT(outcomes.accepted, 100);
  EXPECT_GT(outcomes.rejected, 1000);
}

TEST(RequestFuzz, RandomBytesAsABodyAreRejectedWithoutACrash) {
  std::mt19937_64 rng(7);
  const std::string seed_text = kValidBody;
  for (int iteration = 0; iteration < 2000; ++iteration) {
    std::string text = seed_text;
    for (int k = 0; k < 3; ++k) text[rng() % text.size()] = static_cast<char>(rng() % 256);
    try {
      map_openai_chat_request(std::string_view(text), {});
    } catch (const ApiError& e) {
      ASSERT_EQ(e.status, 400);
    }
  }
}

}  // namespace
}  // namespace ninfer::api
