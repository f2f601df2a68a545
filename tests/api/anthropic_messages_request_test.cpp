// Anthropic Messages body -> ChatRequest: every field, the conversation as a chat template sees it,
// and every rejection named by its field.
#include <gtest/gtest.h>

#include "anthropic_test_support.h"
#include "api_test_support.h"
#include "jinja/chat_template.h"
#include "jinja/template.h"
#include "models/qwen3/frontend/tool_definitions.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::accept_anthropic;
using testing::anthropic_with;
using testing::context_of;
using testing::expect_rejected_at;
using testing::reject_anthropic;

const char* kTools =
    R"("tools":[{"name":"get_weather","description":"d","input_schema":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]},"strict":true},)"
    R"({"name":"search","input_schema":{"type":"object"},"type":"custom","cache_control":{"type":"ephemeral"}}])";

std::string render(const std::string& bundled_name, const ChatRequest& r) {
  const auto source = jinja::bundled_template(bundled_name);
  EXPECT_TRUE(source.has_value());
  return jinja::Template::parse(*source)->render(context_of(r));
}

TEST(AnthropicMessagesRequest, ModelMaxTokensSamplingAndStreamAreRead) {
  const ChatRequest r = accept_anthropic(
      R"({"model":"claude-x","max_tokens":321,"messages":[{"role":"user","content":"hi"}],"temperature":0.5,)"
      R"("top_p":0.9,"top_k":40,"stream":true,"seed":-1,"metadata":{"user_id":"u1"}})");
  EXPECT_EQ(r.model, "claude-x");
  EXPECT_EQ(r.options.max_tokens, 321);
  EXPECT_FLOAT_EQ(r.options.sampling.temperature, 0.5f);
  EXPECT_FLOAT_EQ(r.options.sampling.top_p, 0.9f);
  EXPECT_EQ(r.options.sampling.top_k, 40);
  EXPECT_EQ(r.options.sampling.seed, UINT64_MAX);
  EXPECT_TRUE(r.stream);
  EXPECT_FALSE(r.options.constraint);
  EXPECT_FALSE(r.options.tool_choice);
  EXPECT_TRUE(r.constraint_param.empty());
}

TEST(AnthropicMessagesRequest, AStringTurnAndNoThinkingMakeTheDefaultContext) {
  const ChatRequest r = accept_anthropic(anthropic_with(""));
  ASSERT_TRUE(r.prompt.chat_prompt);
  // Anthropic's default is no thinking: enable_thinking is false unless the request asks.
  EXPECT_EQ(r.prompt.chat_prompt->context_json,
            R"({"messages":[{"role":"user","content":"hi"}],"add_generation_prompt":true,"enable_thinking":false})");
  EXPECT_FALSE(r.prompt.chat_prompt->continue_final_message);
  EXPECT_FALSE(r.options.thinking_token_budget);
}

TEST(AnthropicMessagesRequest, TheCallersTemplateAndTokensAreUsed) {
  ChatRequestDefaults d;
  d.template_source = "{{ messages[0].content }}";
  d.bos_token = "<s>";
  d.eos_token = "</s>";
  const ChatRequest r = accept_anthropic(anthropic_with(""), d);
  EXPECT_EQ(r.prompt.chat_prompt->template_source, d.template_source);
  EXPECT_EQ(r.prompt.chat_prompt->bos_token, "<s>");
  EXPECT_EQ(r.prompt.chat_prompt->eos_token, "</s>");
}

TEST(AnthropicMessagesRequest, SystemAsStringOrTextBlocksLeadsTheConversation) {
  EXPECT_EQ(context_of(accept_anthropic(anthropic_with(R"("system":"be brief")")))["messages"][0].dump(),
            R"({"role":"system","content":"be brief"})");
  EXPECT_EQ(context_of(accept_anthropic(anthropic_with(
                R"("system":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}])")))
                ["messages"][0]
                    .dump(),
            R"({"role":"system","content":"a\nb"})");
}

// A whole tool conversation: text and thinking and tool_use in the assistant turn, tool results
// and text in the user turn.
const char* kConversation =
    R"({"model":"m","max_tokens":50,"system":"sys","messages":[)"
    R"({"role":"user","content":[{"type":"text","text":"weather?"},{"type":"text","text":"in Paris"}]},)"
    R"({"role":"assistant","content":[{"type":"thinking","thinking":"need a tool","signature":"sig"},{"type":"text","text":"Checking."},)"
    R"({"type":"tool_use","id":"toolu_1","name":"get_weather","input":{"z":"Paris","a":1}},)"
    R"({"type":"tool_use","id":"toolu_2","name":"search","input":{}}]},)"
    R"({"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"sunny"},)"
    R"({"type":"tool_result","tool_use_id":"toolu_2","content":[{"type":"text","text":"r1"},{"type":"text","text":"r2"}],"is_error":true},)"
    R"({"type":"text","text":"thanks"}]}],)";

TEST(AnthropicMessagesRequest, ContentBlocksBecomeTheTemplatesMessages) {
  const ChatRequest r = accept_anthropic(std::string(kConversation) + kTools + "}");
  EXPECT_EQ(context_of(r)["messages"].dump(),
            R"([{"role":"system","content":"sys"},{"role":"user","content":"weather?\nin Paris"},)"
            R"({"role":"assistant","content":"Checking.","reasoning_content":"need a tool","tool_calls":[)"
            R"({"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":{"z":"Paris","a":1}}},)"
            R"({"id":"toolu_2","type":"function","function":{"name":"search","arguments":{}}}]},)"
            R"({"role":"tool","tool_call_id":"toolu_1","content":"sunny"},)"
            R"({"role":"tool","tool_call_id":"toolu_2","content":"r1\nr2","is_error":true},)"
            R"({"role":"user","content":"thanks"}])");
}

// The oracle: the same conversation written as an OpenAI Chat request renders the same prompt
// through the published Qwen templates (JSON and XML tool formats).
TEST(AnthropicMessagesRequest, RendersAsTheSameConversationWrittenForOpenAiChat) {
  const ChatRequest anthropic = accept_anthropic(std::string(kConversation) + kTools + "}");
  const ChatRequest openai = accept(
      R"({"model":"m","messages":[{"role":"system","content":"sys"},{"role":"user","content":"weather?\nin Paris"},)"
      R"({"role":"assistant","content":"Checking.","reasoning_content":"need a tool","tool_calls":[)"
      R"({"id":"toolu_1","type":"function","function":{"name":"get_weather","arguments":"{\"z\":\"Paris\",\"a\":1}"}},)"
      R"({"id":"toolu_2","type":"function","function":{"name":"search","arguments":"{}"}}]},)"
      R"({"role":"tool","tool_call_id":"toolu_1","content":"sunny"},{"role":"tool","tool_call_id":"toolu_2","content":"r1\nr2"},)"
      R"({"role":"user","content":"thanks"}],)"
      R"("tools":[{"type":"function","function":{"name":"get_weather","description":"d","parameters":{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]},"strict":true}},)"
      R"({"type":"function","function":{"name":"search","parameters":{"type":"object"}}}],)"
      R"("chat_template_kwargs":{"enable_thinking":false}})");
  for (const char* name : {"qwen3", "qwen3_coder", "qwen3_5"}) {
    const std::string text = render(name, anthropic);
    EXPECT_EQ(text, render(name, openai)) << name;
    EXPECT_NE(text.find("sunny"), std::string::npos) << name;
    EXPECT_NE(text.find("get_weather"), std::string::npos) << name;
  }
}

TEST(AnthropicMessagesRequest, ToolsReachTheFrontendInTheNestedShapeWithTheirSchemaAndStrictness) {
  const ChatRequest r = accept_anthropic(anthropic_with(kTools));
  const Json c = context_of(r);
  // Key order kept: templates print tools with tojson, and schema order is generation order.
  EXPECT_EQ(c["tools"][0].dump(),
            R"({"type":"function","function":{"name":"get_weather","description":"d","parameters":{"type":"object",)"
            R"("properties":{"z":{"type":"string"},"a":{"type":"integer"}},"required":["z"]},"strict":true}})");
  // What prepare reads from the context.
  const std::vector<ToolDefinition> defs = qwen3::parse_tools(c["tools"]);
  ASSERT_EQ(defs.size(), 2u);
  EXPECT_EQ(defs[0].name, "get_weather");
  EXPECT_EQ(defs[0].description, "d");
  EXPECT_TRUE(defs[0].strict);
  EXPECT_EQ(defs[0].parameters, c["tools"][0]["function"]["parameters"].dump());
  EXPECT_EQ(defs[1].name, "search");
  EXPECT_FALSE(defs[1].strict);
  ASSERT_TRUE(r.options.tool_choice);
  EXPECT_EQ(r.options.tool_choice->mode, ToolChoiceMode::Auto);
  EXPECT_TRUE(r.options.tool_choice->parallel);
  EXPECT_TRUE(r.options.tool_choice->allowed_names.empty());
  EXPECT_EQ(r.options.tool_choice->enforcement, ToolEnforcement::Basic);
}

TEST(AnthropicMessagesRequest, ToolChoicesMapToModesNamesAndParallelism) {
  auto choice = [](const std::string& tc) {
    return *accept_anthropic(anthropic_with(std::string(kTools) + R"(,"tool_choice":)" + tc)).options.tool_choice;
  };
  EXPECT_EQ(choice(R"({"type":"auto"})").mode, ToolChoiceMode::Auto);
  EXPECT_TRUE(choice(R"({"type":"auto"})").parallel);
  EXPECT_FALSE(choice(R"({"type":"auto","disable_parallel_tool_use":true})").parallel);
  EXPECT_EQ(choice(R"({"type":"any"})").mode, ToolChoiceMode::Required);
  EXPECT_TRUE(choice(R"({"type":"any"})").allowed_names.empty());
  EXPECT_FALSE(choice(R"({"type":"any","disable_parallel_tool_use":true})").parallel);
  EXPECT_EQ(choice(R"({"type":"none"})").mode, ToolChoiceMode::None);
  const ToolChoice named = choice(R"({"type":"tool","name":"search","disable_parallel_tool_use":false})");
  EXPECT_EQ(named.mode, ToolChoiceMode::Required);
  EXPECT_EQ(named.allowed_names, std::vector<std::string>{"search"});
  EXPECT_FALSE(named.parallel);  // a named choice is one call of that tool
  EXPECT_EQ(accept_anthropic(anthropic_with(std::string(kTools) + R"(,"tool_enforcement":"automatic")"))
                .options.tool_choice->enforcement,
            ToolEnforcement::Automatic);
  // {type: none} without tools asks for nothing that does not already hold.
  EXPECT_FALSE(accept_anthropic(anthropic_with(R"("tool_choice":{"type":"none"})")).options.tool_choice);
}

TEST(AnthropicMessagesRequest, OutputConfigFormatIsAStrictJsonSchemaConstraintNamedByItsField) {
  const ChatRequest r = accept_anthropic(anthropic_with(
      R"("output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}}}})"));
  ASSERT_TRUE(r.options.constraint);
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::JsonSchema);
  EXPECT_EQ(r.options.constraint->source(),
            R"({"type":"object","properties":{"b":{"type":"string"},"a":{"type":"integer"}}})");
  EXPECT_EQ(r.options.constraint->json_options().schema_strictness, SchemaStrictness::Strict);
  EXPECT_EQ(r.constraint_param, "output_config.format.schema");
  // The deprecated beta field, and the NInfer extension.
  EXPECT_EQ(accept_anthropic(anthropic_with(R"("output_format":{"type":"json_schema","schema":{}})")).constraint_param,
            "output_format.schema");
  const ChatRequest so = accept_anthropic(anthropic_with(R"("structured_outputs":{"regex":"[a-z]+"})"));
  EXPECT_EQ(so.options.constraint->kind(), OutputConstraint::Kind::Regex);
  EXPECT_EQ(so.constraint_param, "structured_outputs.regex");
  // An output_config without a format constrains nothing.
  EXPECT_FALSE(accept_anthropic(anthropic_with(R"("output_config":{})")).options.constraint);
}

TEST(AnthropicMessagesRequest, ASecondConstraintSourceIsRejectedByName) {
  const ApiError e = reject_anthropic(anthropic_with(
      R"("output_config":{"format":{"type":"json_schema","schema":{}}},"structured_outputs":{"json_object":true})"));
  EXPECT_EQ(e.param, "structured_outputs.json_object");
  EXPECT_EQ(e.code, "conflicting_parameters");
  EXPECT_NE(e.message.find("output_config.format.schema"), std::string::npos);
  EXPECT_EQ(reject_anthropic(anthropic_with(R"("structured_outputs":{"regex":"a"},"output_format":{"type":"json_schema","schema":{}})"))
                .param,
            "output_format.schema");
}

TEST(AnthropicMessagesRequest, ThinkingTurnsTheTemplateSwitchAndTheBudget) {
  const ChatRequest on = accept_anthropic(anthropic_with(R"("thinking":{"type":"enabled","budget_tokens":64})"));
  EXPECT_EQ(context_of(on)["enable_thinking"], true);
  EXPECT_EQ(on.options.thinking_token_budget, 64);
  const ChatRequest off = accept_anthropic(anthropic_with(R"("thinking":{"type":"disabled"})"));
  EXPECT_EQ(context_of(off)["enable_thinking"], false);
  EXPECT_FALSE(off.options.thinking_token_budget);
  const ChatRequest adaptive = accept_anthropic(anthropic_with(R"("thinking":{"type":"adaptive","display":"summarized"})"));
  EXPECT_FALSE(context_of(adaptive).contains("enable_thinking"));  // the template's own default
  EXPECT_FALSE(adaptive.options.thinking_token_budget);
  // What the published template does with the switch.
  EXPECT_NE(render("qwen3", off).find("<think>\n\n</think>"), std::string::npos);
  EXPECT_EQ(render("qwen3", on).find("<think>"), std::string::npos);
}

TEST(AnthropicMessagesRequest, StopSequencesAreStopStringsUnlessTheOutputIsGuaranteed) {
  EXPECT_EQ(accept_anthropic(anthropic_with(R"("stop_sequences":["END","\n\n"])")).options.stop,
            (std::vector<std::string>{"END", "\n\n"}));
  const ApiError with_schema = reject_anthropic(
      anthropic_with(R"("stop_sequences":["x"],"output_config":{"format":{"type":"json_schema","schema":{}}})"));
  EXPECT_EQ(with_schema.param, "stop_sequences");
  EXPECT_EQ(with_schema.code, "conflicting_parameters");
  EXPECT_NE(with_schema.message.find("output_config.format.schema"), std::string::npos);
  EXPECT_EQ(reject_anthropic(anthropic_with(std::string(kTools) + R"(,"stop_sequences":["x"])")).param, "stop_sequences");
  // Tools that may not be called leave the output free.
  EXPECT_EQ(accept_anthropic(anthropic_with(std::string(kTools) + R"(,"stop_sequences":["x"],"tool_choice":{"type":"none"})"))
                .options.stop.size(),
            1u);
}

TEST(AnthropicMessagesRequest, AGrammarRegexOrChoiceCannotShareTheOutputWithActiveTools) {
  const ApiError e = reject_anthropic(anthropic_with(std::string(kTools) + R"(,"structured_outputs":{"choice":["a"]})"));
  EXPECT_EQ(e.param, "structured_outputs.choice");
  EXPECT_EQ(e.code, "conflicting_parameters");
  // A JSON body with tools under auto is one grammar.
  EXPECT_TRUE(accept_anthropic(
                  anthropic_with(std::string(kTools) + R"(,"output_config":{"format":{"type":"json_schema","schema":{}}})"))
                  .options.constraint);
}

TEST(AnthropicMessagesRequest, AFinalAssistantTurnIsContinuedAsAPrefill) {
  const ChatRequest r = accept_anthropic(
      R"({"model":"m","max_tokens":9,"messages":[{"role":"user","content":"count"},{"role":"assistant","content":"1, 2,"}]})");
  ASSERT_TRUE(r.prompt.chat_prompt);
  EXPECT_TRUE(r.prompt.chat_prompt->continue_final_message);
  EXPECT_EQ(context_of(r)["add_generation_prompt"], false);
  EXPECT_EQ(context_of(r)["messages"][1].dump(), R"({"role":"assistant","content":"1, 2,"})");
}

TEST(AnthropicMessagesRequest, AnEmptyUserTurnIsAnEmptyMessage) {
  EXPECT_EQ(context_of(accept_anthropic(R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[]}]})"))
                ["messages"]
                    .dump(),
            R"([{"role":"user","content":""}])");
}

struct Rejection {
  std::string body;
  std::string param;
  std::string code;
};

TEST(AnthropicMessagesRequest, EveryMalformedOrUnsupportedFieldIsRejectedByItsField) {
  const std::string m = R"("model":"m","max_tokens":10)";
  auto msgs = [&](const std::string& messages) { return "{" + m + R"(,"messages":)" + messages + "}"; };
  auto user_blocks = [&](const std::string& blocks) { return msgs(R"([{"role":"user","content":[)" + blocks + "]}]"); };
  auto assistant_blocks = [&](const std::string& blocks) {
    return msgs(R"([{"role":"user","content":"q"},{"role":"assistant","content":[)" + blocks + R"(]},{"role":"user","content":"r"}])");
  };
  const std::vector<Rejection> cases = {
      {"[]", "", "invalid_type"},
      {R"({"max_tokens":10,"messages":[{"role":"user","content":"x"}]})", "model", "missing_required_parameter"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}]})", "max_tokens", "missing_required_parameter"},
      {R"({"model":"m","max_tokens":0,"messages":[{"role":"user","content":"x"}]})", "max_tokens",
       "integer_below_min_value"},
      {"{" + m + "}", "messages", "missing_required_parameter"},
      {msgs("[]"), "messages", "empty_array"},
      {msgs(R"([{"role":"system","content":"x"}])"), "messages[0].role", "invalid_value"},
      {msgs(R"([{"role":"user","content":"x","name":"n"}])"), "messages[0].name", "unknown_parameter"},
      {msgs(R"([{"role":"user"}])"), "messages[0].content", "missing_required_parameter"},
      {msgs(R"([{"role":"user","content":5}])"), "messages[0].content", "invalid_type"},
      {user_blocks(R"({"type":"image","source":{"type":"base64","media_type":"image/png","data":"x"}})"),
       "messages[0].content[0].type", "unsupported_value"},
      {user_blocks(R"({"type":"document","source":{}})"), "messages[0].content[0].type", "unsupported_value"},
      {user_blocks(R"({"type":"tool_use","id":"a","name":"b","input":{}})"), "messages[0].content[0].type",
       "unsupported_value"},
      {user_blocks(R"({"text":"x"})"), "messages[0].content[0].type", "missing_required_parameter"},
      {user_blocks(R"({"type":"text"})"), "messages[0].content[0].text", "missing_required_parameter"},
      {user_blocks(R"({"type":"text","text":"x","citations":[{"type":"char_location"}]})"),
       "messages[0].content[0].citations", "unsupported_parameter"},
      {user_blocks(R"({"type":"text","text":"x","extra":1})"), "messages[0].content[0].extra", "unknown_parameter"},
      {user_blocks(R"({"type":"tool_result","content":"x"})"), "messages[0].content[0].tool_use_id",
       "missing_required_parameter"},
      {user_blocks(R"({"type":"tool_result","tool_use_id":"t","content":[{"type":"image","source":{}}]})"),
       "messages[0].content[0].content[0].type", "unsupported_value"},
      {user_blocks(R"({"type":"tool_result","tool_use_id":"t","is_error":"yes"})"), "messages[0].content[0].is_error",
       "invalid_type"},
      {assistant_blocks(R"({"type":"tool_result","tool_use_id":"t"})"), "messages[1].content[0].type",
       "unsupported_value"},
      {assistant_blocks(R"({"type":"redacted_thinking","data":"x"})"), "messages[1].content[0].type",
       "unsupported_value"},
      {assistant_blocks(R"({"type":"tool_use","id":"a","name":"b","input":"{}"})"), "messages[1].content[0].input",
       "invalid_type"},
      {assistant_blocks(R"({"type":"tool_use","name":"b","input":{}})"), "messages[1].content[0].id",
       "missing_required_parameter"},
      {assistant_blocks(R"({"type":"thinking","signature":""})"), "messages[1].content[0].thinking",
       "missing_required_parameter"},
      {msgs(R"([{"role":"user","content":"q"},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":{}}]}])"),
       "messages[1].content", "invalid_value"},
      {anthropic_with(R"("system":[{"type":"image","source":{}}])"), "system[0].type", "unsupported_value"},
      {anthropic_with(R"("system":5)"), "system", "invalid_type"},
      {anthropic_with(R"("temperature":1.5)"), "temperature", "decimal_above_max_value"},
      {anthropic_with(R"("top_p":0)"), "top_p", "decimal_below_min_value"},
      {anthropic_with(R"("top_k":-1)"), "top_k", "integer_below_min_value"},
      {anthropic_with(R"("stream":"yes")"), "stream", "invalid_type"},
      {anthropic_with(R"("stop_sequences":"END")"), "stop_sequences", "invalid_type"},
      {anthropic_with(R"("stop_sequences":["a",""])"), "stop_sequences[1]", "invalid_value"},
      {anthropic_with(R"("metadata":{"user_id":5})"), "metadata.user_id", "invalid_type"},
      {anthropic_with(R"("metadata":{"session":"x"})"), "metadata.session", "unknown_parameter"},
      {anthropic_with(R"("temprature":1)"), "temprature", "unknown_parameter"},
      {anthropic_with(R"("service_tier":"auto")"), "service_tier", "unsupported_parameter"},
      {anthropic_with(R"("container":"c")"), "container", "unsupported_parameter"},
      {anthropic_with(R"("mcp_servers":[])"), "mcp_servers", "unsupported_parameter"},
      {anthropic_with(R"("context_management":{})"), "context_management", "unsupported_parameter"},
      {anthropic_with(R"("thinking":{"type":"enabled"})"), "thinking.budget_tokens", "missing_required_parameter"},
      {anthropic_with(R"("thinking":{"type":"enabled","budget_tokens":100})"), "thinking.budget_tokens",
       "invalid_value"},
      {anthropic_with(R"("thinking":{"type":"on"})"), "thinking.type", "invalid_value"},
      {anthropic_with(R"("thinking":{"type":"disabled","budget_tokens":5})"), "thinking.budget_tokens",
       "unknown_parameter"},
      {anthropic_with(R"("thinking":{"type":"adaptive","budget_tokens":5})"), "thinking.budget_tokens",
       "invalid_value"},
      {anthropic_with(R"("thinking":{"type":"enabled","budget_tokens":5,"display":"omitted"})"), "thinking.display",
       "unsupported_value"},
      {anthropic_with(R"("output_config":{"effort":"high"})"), "output_config.effort", "unsupported_parameter"},
      {anthropic_with(R"("output_config":{"format":{"type":"json_object"}})"), "output_config.format.type",
       "invalid_value"},
      {anthropic_with(R"("output_config":{"format":{"type":"json_schema"}})"), "output_config.format.schema",
       "missing_required_parameter"},
      {anthropic_with(R"("output_config":{"format":{"type":"json_schema","schema":"{}"}})"),
       "output_config.format.schema", "invalid_type"},
      {anthropic_with(R"("output_config":{"format":{"type":"json_schema","schema":{},"name":"x"}})"),
       "output_config.format.name", "unknown_parameter"},
      {anthropic_with(R"("structured_outputs":{"regex":"a","grammar":"b"})"), "structured_outputs.grammar",
       "conflicting_parameters"},
      {anthropic_with(R"("tools":[{"type":"web_search_20250305","name":"web_search"}])"), "tools[0].type",
       "unsupported_value"},
      {anthropic_with(R"("tools":[{"name":"a"}])"), "tools[0].input_schema", "missing_required_parameter"},
      {anthropic_with(R"("tools":[{"input_schema":{}}])"), "tools[0].name", "missing_required_parameter"},
      {anthropic_with(R"("tools":[{"name":"a","input_schema":[]}])"), "tools[0].input_schema", "invalid_type"},
      {anthropic_with(R"("tools":[{"name":"a","input_schema":{},"strict":"yes"}])"), "tools[0].strict",
       "invalid_type"},
      {anthropic_with(R"("tools":[{"name":"a","input_schema":{},"parameters":{}}])"), "tools[0].parameters",
       "unknown_parameter"},
      {anthropic_with(R"("tools":[{"name":"a","input_schema":{},"input_examples":[{}]}])"), "tools[0].input_examples",
       "unsupported_parameter"},
      {anthropic_with(R"("tools":{})"), "tools", "invalid_type"},
      {anthropic_with(R"("tool_choice":{"type":"auto"})"), "tool_choice", "invalid_value"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":"auto")"), "tool_choice", "invalid_type"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":{"type":"required"})"), "tool_choice.type",
       "invalid_value"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":{"type":"tool"})"), "tool_choice.name",
       "missing_required_parameter"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":{"type":"tool","name":"nope"})"), "tool_choice.name",
       "invalid_value"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":{"type":"none","disable_parallel_tool_use":true})"),
       "tool_choice.disable_parallel_tool_use", "unknown_parameter"},
      {anthropic_with(std::string(kTools) + R"(,"tool_choice":{"type":"any","disable_parallel_tool_use":1})"),
       "tool_choice.disable_parallel_tool_use", "invalid_type"},
      {anthropic_with(R"("tool_enforcement":"strict")"), "tool_enforcement", "invalid_value"},
      {anthropic_with(R"("tool_call_format":"yaml")"), "tool_call_format", "invalid_value"},
  };
  for (const Rejection& c : cases) {
    expect_rejected_at(reject_anthropic(c.body), c.param, c.code, c.body);
  }
}

}  // namespace
}  // namespace ninfer::api
