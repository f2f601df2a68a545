// The top-level fields of an OpenAI Responses request: sampling, limits, text.format and
// structured_outputs, flat tools and tool_choice, reasoning, the echo, and every rejection with its
// param, including the Engine's errors translated into Responses fields.
#include <gtest/gtest.h>

#include "api/engine_errors.h"
#include "responses_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept_responses;
using testing::expect_rejected_at;
using testing::reject_responses;
using testing::responses_context;
using testing::responses_with;

const char* kTools =
    R"("tools":[{"type":"function","name":"get","description":"look up","parameters":{"type":"object","properties":{"x":{"type":"string"}}}},)"
    R"({"type":"function","name":"put","parameters":{"type":"object","properties":{"age":{"type":"integer"}}},"strict":false}])";

TEST(OpenAiResponsesRequest, SamplingAndTheOutputCapReachTheRequestOptions) {
  const ResponsesRequest r = accept_responses(
      responses_with(R"("temperature":0.5,"top_p":0.9,"top_k":40,"min_p":0.05,"seed":-1,"max_output_tokens":77)"));
  const SamplingOptions& s = r.chat.options.sampling;
  EXPECT_FLOAT_EQ(s.temperature, 0.5f);
  EXPECT_FLOAT_EQ(s.top_p, 0.9f);
  EXPECT_EQ(s.top_k, 40);
  EXPECT_FLOAT_EQ(s.min_p, 0.05f);
  EXPECT_EQ(s.seed, UINT64_MAX);
  EXPECT_EQ(r.chat.options.max_tokens, 77);
  EXPECT_EQ(r.echo.temperature, 0.5);
  EXPECT_EQ(r.echo.top_p, 0.9);
  EXPECT_EQ(r.echo.max_output_tokens, 77);
}

TEST(OpenAiResponsesRequest, AbsentFieldsKeepTheDefaultsAndTheEchoSaysWhatIsApplied) {
  ChatRequestDefaults d;
  d.max_tokens = 1234;
  d.served_model = "served";
  const ResponsesRequest r = accept_responses(R"({"input":"hi","temperature":null,"tools":null})", d);
  EXPECT_EQ(r.chat.options.max_tokens, 1234);
  EXPECT_FALSE(r.chat.stream);
  EXPECT_FALSE(r.chat.options.constraint);
  EXPECT_FALSE(r.chat.options.tool_choice);
  EXPECT_EQ(r.echo.model, "served");
  EXPECT_EQ(r.chat.model, "");
  EXPECT_EQ(r.echo.max_output_tokens, 1234);
  EXPECT_EQ(r.echo.temperature, 1.0);
  EXPECT_EQ(r.echo.tools, Json::array());
  EXPECT_EQ(r.echo.tool_choice, "auto");
  EXPECT_EQ(r.echo.text.dump(), R"({"format":{"type":"text"}})");
  EXPECT_EQ(r.echo.metadata, Json::object());
  const Json c = responses_context(r);
  EXPECT_EQ(c.dump(), R"({"messages":[{"role":"user","content":"hi"}],"add_generation_prompt":true})");
}

TEST(OpenAiResponsesRequest, FlatFunctionToolsReachTheTemplateInChatsNestedShapeStrictByDefault) {
  const ResponsesRequest r = accept_responses(responses_with(kTools));
  const Json c = responses_context(r);
  EXPECT_EQ(c["tools"].dump(),
            R"([{"type":"function","function":{"name":"get","description":"look up","parameters":{"type":"object",)"
            R"("properties":{"x":{"type":"string"}}},"strict":true}},{"type":"function","function":{"name":"put",)"
            R"("parameters":{"type":"object","properties":{"age":{"type":"integer"}}},"strict":false}}])");
  EXPECT_EQ(r.echo.tools[1].dump(), R"({"type":"function","name":"put","description":null,"parameters":{"type":"object",)"
                                    R"("properties":{"age":{"type":"integer"}}},"strict":false})");
  ASSERT_TRUE(r.chat.options.tool_choice);
  EXPECT_EQ(r.chat.options.tool_choice->mode, ToolChoiceMode::Auto);
  EXPECT_TRUE(r.chat.options.tool_choice->parallel);
}

TEST(OpenAiResponsesRequest, ToolChoiceTakesModesANamedFunctionAndAllowedTools) {
  auto choice = [](const std::string& tc) {
    return *accept_responses(responses_with(std::string(kTools) + R"(,"tool_choice":)" + tc)).chat.options.tool_choice;
  };
  EXPECT_EQ(choice(R"("none")").mode, ToolChoiceMode::None);
  EXPECT_EQ(choice(R"("required")").mode, ToolChoiceMode::Required);
  const ToolChoice named = choice(R"({"type":"function","name":"put"})");
  EXPECT_EQ(named.mode, ToolChoiceMode::Required);
  EXPECT_EQ(named.allowed_names, std::vector<std::string>{"put"});
  EXPECT_FALSE(named.parallel);
  const ToolChoice allowed = choice(R"({"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get"}]})");
  EXPECT_EQ(allowed.mode, ToolChoiceMode::Required);
  EXPECT_EQ(allowed.allowed_names, std::vector<std::string>{"get"});
  EXPECT_TRUE(allowed.parallel);

  const ResponsesRequest r = accept_responses(
      responses_with(std::string(kTools) + R"(,"tool_choice":{"type":"function","name":"get"},"parallel_tool_calls":false,"tool_enforcement":"automatic")"));
  EXPECT_FALSE(r.chat.options.tool_choice->parallel);
  EXPECT_EQ(r.chat.options.tool_choice->enforcement, ToolEnforcement::Automatic);
  EXPECT_EQ(r.echo.tool_choice.dump(), R"({"type":"function","name":"get"})");
  EXPECT_FALSE(r.echo.parallel_tool_calls);
}

TEST(OpenAiResponsesRequest, WithoutToolsOnlyChoicesThatNeedNoToolPass) {
  const ResponsesRequest r = accept_responses(responses_with(R"("tool_choice":"auto","parallel_tool_calls":true)"));
  EXPECT_FALSE(r.chat.options.tool_choice);
  EXPECT_EQ(reject_responses(responses_with(R"("tool_choice":"required")")).param, "tool_choice");
  EXPECT_EQ(reject_responses(responses_with(R"("tool_choice":{"type":"function","name":"f"})")).param, "tool_choice");
}

TEST(OpenAiResponsesRequest, TextFormatJsonSchemaIsTheConstraintAndErrorsPointIntoItsSchema) {
  const ResponsesRequest r = accept_responses(responses_with(
      R"("text":{"format":{"type":"json_schema","name":"person","strict":true,"schema":{"type":"object","properties":{"age":{"type":"integer"}}}}})"));
  ASSERT_TRUE(r.chat.options.constraint);
  EXPECT_EQ(r.chat.options.constraint->kind(), OutputConstraint::Kind::JsonSchema);
  EXPECT_EQ(r.chat.options.constraint->source(), R"({"type":"object","properties":{"age":{"type":"integer"}}})");
  EXPECT_EQ(r.chat.constraint_param, "text.format.schema");
  EXPECT_EQ(r.echo.text["format"]["name"], "person");

  ConstraintError e(ConstraintErrorKind::UnsupportedSchema, "no");
  e.at_pointer("/properties/age");
  EXPECT_EQ(from_constraint_error(e, r.chat).param, "text.format.schema.properties.age");

  const ResponsesRequest o = accept_responses(responses_with(R"("text":{"format":{"type":"json_object"}})"));
  EXPECT_EQ(o.chat.options.constraint->kind(), OutputConstraint::Kind::JsonObject);
  EXPECT_EQ(o.chat.constraint_param, "text.format");
  EXPECT_FALSE(accept_responses(responses_with(R"("text":{"format":{"type":"text"},"verbosity":"medium"})"))
                   .chat.options.constraint);
}

TEST(OpenAiResponsesRequest, StructuredOutputsIsTheOtherConstraintSourceAndOnlyOneMayBeGiven) {
  const ResponsesRequest r = accept_responses(responses_with(R"("structured_outputs":{"regex":"[a-z]+"})"));
  EXPECT_EQ(r.chat.options.constraint->kind(), OutputConstraint::Kind::Regex);
  EXPECT_EQ(r.chat.constraint_param, "structured_outputs.regex");
  const ApiError e = reject_responses(
      responses_with(R"("text":{"format":{"type":"json_object"}},"structured_outputs":{"choice":["a"]})"));
  EXPECT_EQ(e.param, "structured_outputs.choice");
  EXPECT_EQ(e.code, "conflicting_parameters");
  const ApiError f = reject_responses(
      responses_with(R"("structured_outputs":{"choice":["a"]},"text":{"format":{"type":"json_object"}})"));
  EXPECT_EQ(f.param, "text.format");
  const ApiError g = reject_responses(responses_with(std::string(kTools) + R"(,"structured_outputs":{"regex":"a"})"));
  EXPECT_EQ(g.param, "structured_outputs.regex");
  EXPECT_EQ(g.code, "conflicting_parameters");
}

TEST(OpenAiResponsesRequest, ReasoningEffortNoneTurnsThinkingOffAndOtherEffortsLeaveTheTemplateDefault) {
  const ResponsesRequest off = accept_responses(responses_with(R"("reasoning":{"effort":"none","summary":"auto"})"));
  EXPECT_EQ(responses_context(off)["enable_thinking"], false);
  EXPECT_EQ(off.echo.reasoning.dump(), R"({"effort":"none","summary":"auto"})");
  EXPECT_FALSE(responses_context(accept_responses(responses_with(R"("reasoning":{"effort":"high"})")))
                   .contains("enable_thinking"));
  const Json kw = responses_context(
      accept_responses(responses_with(R"("reasoning":{"effort":"none"},"chat_template_kwargs":{"enable_thinking":false,"k":1})")));
  EXPECT_EQ(kw.dump(), R"({"messages":[{"role":"user","content":"hi"}],"add_generation_prompt":true,"enable_thinking":false,"k":1})");
  const ApiError e =
      reject_responses(responses_with(R"("reasoning":{"effort":"none"},"chat_template_kwargs":{"enable_thinking":true})"));
  EXPECT_EQ(e.param, "chat_template_kwargs.enable_thinking");
  EXPECT_EQ(e.code, "conflicting_parameters");
}

TEST(OpenAiResponsesRequest, ThinkingTokenBudgetBoundsThinkingAsInChat) {
  EXPECT_FALSE(accept_responses(responses_with(R"("reasoning":{"effort":"low"})")).chat.options.thinking_token_budget);
  const ResponsesRequest r = accept_responses(responses_with(R"("reasoning":{"effort":"low"},"thinking_token_budget":16)"));
  EXPECT_EQ(r.chat.options.thinking_token_budget, 16);
  const ApiError e = reject_responses(responses_with(R"("thinking_token_budget":0)"));
  EXPECT_EQ(e.param, "thinking_token_budget");
  EXPECT_EQ(e.code, "integer_below_min_value");
}

TEST(OpenAiResponsesRequest, StreamAndBookkeepingFieldsAreAcceptedAndTypeChecked) {
  const ResponsesRequest r = accept_responses(responses_with(
      R"("stream":true,"stream_options":{"include_obfuscation":false},"store":true,"metadata":{"k":"v"},"user":"u",)"
      R"("service_tier":"auto","prompt_cache_key":"p","prompt_cache_retention":"24h","safety_identifier":"s",)"
      R"("truncation":"disabled","include":[],"background":false,"top_logprobs":0,"tool_call_format":"xml")"));
  EXPECT_TRUE(r.chat.stream);
  EXPECT_EQ(r.echo.metadata.dump(), R"({"k":"v"})");
  EXPECT_EQ(r.echo.user, "u");
  EXPECT_EQ(r.chat.prompt.chat_prompt->tool_format, ToolCallFormat::Xml);
}

TEST(OpenAiResponsesRequest, EveryWrongUnknownOrUnsupportedFieldIsRejectedByName) {
  struct Case {
    const char* extra;
    const char* param;
    const char* code;
  };
  const Case cases[] = {
      {R"("temprature":1)", "temprature", "unknown_parameter"},
      {R"("messages":[])", "messages", "unknown_parameter"},
      {R"("max_tokens":5)", "max_tokens", "unknown_parameter"},
      {R"("previous_response_id":"resp_1")", "previous_response_id", "unsupported_parameter"},
      {R"("conversation":"conv_1")", "conversation", "unsupported_parameter"},
      {R"("prompt":{"id":"p"})", "prompt", "unsupported_parameter"},
      {R"("background":true)", "background", "unsupported_parameter"},
      {R"("include":["reasoning.encrypted_content"])", "include[0]", "unsupported_parameter"},
      {R"("max_tool_calls":3)", "max_tool_calls", "unsupported_parameter"},
      {R"("top_logprobs":2)", "top_logprobs", "unsupported_parameter"},
      {R"("truncation":"auto")", "truncation", "unsupported_parameter"},
      {R"("context_management":[])", "context_management", "unsupported_parameter"},
      {R"("text":{"verbosity":"low"})", "text.verbosity", "unsupported_value"},
      {R"("text":{"format":{"type":"json_schema","name":"x"}})", "text.format.schema", "missing_required_parameter"},
      {R"("text":{"format":{"type":"json_schema","name":"bad name","schema":{}}})", "text.format.name", "invalid_value"},
      {R"("text":{"format":{"type":"json_schema","name":"x","schema":{},"json_schema":{}}})", "text.format.json_schema",
       "unknown_parameter"},
      {R"("text":{"format":{"type":"grammar"}})", "text.format.type", "invalid_value"},
      {R"("text":{"format":"json"})", "text.format", "invalid_type"},
      {R"("tools":[{"type":"web_search"}])", "tools[0].type", "unsupported_value"},
      {R"("tools":[{"type":"function","function":{"name":"f"}}])", "tools[0].function", "unknown_parameter"},
      {R"("tools":[{"type":"function"}])", "tools[0].name", "missing_required_parameter"},
      {R"("tools":[{"type":"function","name":"f","parameters":"{}"}])", "tools[0].parameters", "invalid_type"},
      {R"("tools":[{"type":"function","name":"f","strict":"yes"}])", "tools[0].strict", "invalid_type"},
      {R"("tools":[{"type":"function","name":"f","defer_loading":true}])", "tools[0].defer_loading", "unsupported_value"},
      {R"("tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","name":"g"})", "tool_choice.name",
       "invalid_value"},
      {R"("tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"function","function":{"name":"f"}})",
       "tool_choice.function", "unknown_parameter"},
      {R"("tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"file_search"})", "tool_choice.type",
       "unsupported_value"},
      {R"("tools":[{"type":"function","name":"f"}],"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[]})",
       "tool_choice.tools", "empty_array"},
      {R"("tools":[{"type":"function","name":"f"}],"tool_choice":"any")", "tool_choice", "invalid_value"},
      {R"("parallel_tool_calls":"no")", "parallel_tool_calls", "invalid_type"},
      {R"("reasoning":{"effort":"huge"})", "reasoning.effort", "invalid_value"},
      {R"("reasoning":{"effort":"low","budget":3})", "reasoning.budget", "unknown_parameter"},
      {R"("temperature":3)", "temperature", "decimal_above_max_value"},
      {R"("top_p":0)", "top_p", "decimal_below_min_value"},
      {R"("max_output_tokens":0)", "max_output_tokens", "integer_below_min_value"},
      {R"("stream_options":{"include_obfuscation":true})", "stream_options", "invalid_value"},
      {R"("stream":true,"stream_options":{"include_usage":true})", "stream_options.include_usage", "unknown_parameter"},
      {R"("metadata":[])", "metadata", "invalid_type"},
      {R"("store":"yes")", "store", "invalid_type"},
      {R"("instructions":["x"])", "instructions", "invalid_type"},
      {R"("chat_template_kwargs":{"messages":[]})", "chat_template_kwargs.messages", "invalid_value"},
      {R"("structured_outputs":{"regex":"a","choice":["b"]})", "structured_outputs.choice", "conflicting_parameters"},
  };
  for (const Case& c : cases) {
    expect_rejected_at(reject_responses(responses_with(c.extra)), c.param, c.code, c.extra);
  }
  EXPECT_EQ(reject_responses(R"({"model":"m"})").param, "input");
  EXPECT_EQ(reject_responses("[1]").code, "invalid_type");
}

TEST(OpenAiResponsesRequest, EngineErrorsInChatsLayoutNameTheResponsesFields) {
  const ResponsesRequest r = accept_responses(responses_with(kTools));
  ConstraintError schema(ConstraintErrorKind::InvalidJsonSchema, "bad");
  schema.at_pointer("/properties/age");
  schema.in_tool(1);
  EXPECT_EQ(from_constraint_error(schema, r.chat).param, "tools[1].parameters.properties.age");
  auto request_error = [&](RequestErrorKind kind, const std::string& param) {
    RequestError e(kind, "m");
    if (!param.empty()) e.at_param(param);
    return from_request_error(e, r.chat).param;
  };
  EXPECT_EQ(request_error(RequestErrorKind::InvalidTools, "tools[0].function.name"), "tools[0].name");
  EXPECT_EQ(request_error(RequestErrorKind::InvalidTools, "tool_choice.function.name"), "tool_choice.name");
  EXPECT_EQ(request_error(RequestErrorKind::InvalidTools, "tool_choice"), "tool_choice");
  EXPECT_EQ(request_error(RequestErrorKind::PromptTooLong, ""), "input");
  EXPECT_EQ(request_error(RequestErrorKind::InvalidRequest, "messages[2].content"), "input");
  // The Chat mapping's requests keep Chat's own paths.
  EXPECT_EQ(responses_param("tools[12].function"), "tools[12]");
  EXPECT_EQ(responses_param("text.format.schema"), "text.format.schema");
}

}  // namespace
}  // namespace ninfer::api
