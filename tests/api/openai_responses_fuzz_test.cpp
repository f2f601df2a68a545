// Random mutations of a valid Responses body never crash the mapping: each either maps (and its
// response object and stream dump as JSON) or is a 400 that names a field.
#include <gtest/gtest.h>

#include "api/openai_responses_exchange.h"
#include "mapping_fuzz.h"

namespace ninfer::api {
namespace {

using testing::fuzz_mapping;
using testing::FuzzOutcomes;

const char* kValidBody = R"({
  "model": "qwen",
  "instructions": "You are terse.",
  "input": [
    {"role": "developer", "content": "Use tools."},
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "weather?"}, {"type": "input_text", "text": "in Paris"}]},
    {"type": "reasoning", "id": "rs_1", "summary": [{"type": "summary_text", "text": "s"}], "content": [{"type": "reasoning_text", "text": "call it"}]},
    {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "get_weather", "arguments": "{\"city\":\"Paris\"}", "status": "completed"},
    {"type": "function_call_output", "call_id": "call_1", "output": [{"type": "input_text", "text": "sunny"}]},
    {"type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]},
    {"role": "user", "content": "and tomorrow?"}
  ],
  "tools": [{"type": "function", "name": "get_weather", "description": "d", "strict": true,
             "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}],
  "tool_choice": {"type": "allowed_tools", "mode": "auto", "tools": [{"type": "function", "name": "get_weather"}]},
  "parallel_tool_calls": false,
  "text": {"format": {"type": "json_schema", "name": "w", "strict": true, "schema": {"type": "object"}}, "verbosity": "medium"},
  "reasoning": {"effort": "none", "summary": "auto"},
  "max_output_tokens": 100, "temperature": 0.7, "top_p": 0.9, "top_k": 20, "min_p": 0.1, "seed": 7,
  "stream": true, "stream_options": {"include_obfuscation": false}, "store": false, "truncation": "disabled",
  "include": [], "background": false, "chat_template_kwargs": {"enable_thinking": false},
  "tool_enforcement": "basic", "tool_call_format": "xml", "user": "u", "metadata": {"a": "b"}
})";

TEST(OpenAiResponsesFuzz, MutatedBodiesEitherMapOrAreA400NamingAField) {
  const Json valid = Json::parse(kValidBody);
  ASSERT_TRUE(map_openai_responses_request(valid, {})->request().options.constraint);  // the seed itself maps
  GenerationResult result;
  result.chat = ChatOutput{"r", "{}", {{"call_1", "get_weather", "{}"}}, true};
  const FuzzOutcomes outcomes = fuzz_mapping(
      valid, 20261202, 3000,
      [&](const Json& body) {
        auto exchange = map_openai_responses_request(body, {});
        ASSERT_TRUE(exchange->request().prompt.chat_prompt);
        EXPECT_TRUE(Json::accept(exchange->request().prompt.chat_prompt->context_json));
        EXPECT_NO_THROW(exchange->response(PreparedPrompt{}, result).dump()) << body.dump();
      },
      [](const ApiError& e) { return openai_error_json(e).dump(); });
  EXPECT_GT(outcomes.accepted, 100);
  EXPECT_GT(outcomes.rejected, 1000);
}

}  // namespace
}  // namespace ninfer::api
