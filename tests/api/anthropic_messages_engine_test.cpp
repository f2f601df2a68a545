// Anthropic requests through the Engine over the deterministic fake model (real Qwen3 tokenizer and
// templates): what the mapping builds is what prepare and submit accept, and the message object
// reports what the constraints guarantee.
#include <gtest/gtest.h>

#include "api/anthropic_error.h"
#include "api/anthropic_messages_exchange.h"
#include "api/engine_errors.h"
#include "jinja/chat_template.h"
#include "runtime/engine_impl.h"
#include "runtime/fake_model.h"
#include "runtime/runtime_test_support.h"

namespace ninfer::api {
namespace {

EngineImpl& engine() {
  static EngineImpl e(std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 2, 1024), [] {
    EngineOptions o;
    o.max_batch_rows = 2;
    o.max_context = 1024;
    return o;
  }());
  return e;
}

ChatRequestDefaults defaults(const char* template_name = "qwen3") {
  ChatRequestDefaults d;
  d.template_source = std::string(*jinja::bundled_template(template_name));
  return d;
}

struct EngineRun {
  PreparedPrompt prompt;
  GenerationResult result;
  Json message;
};

EngineRun run(const std::string& body, const char* template_name = "qwen3") {
  const auto exchange = map_anthropic_messages_request(Json::parse(body), defaults(template_name));
  EngineRun out;
  out.prompt = engine().prepare(exchange->request().prompt);
  out.result = engine().submit(out.prompt, exchange->request().options).wait();
  out.message = exchange->response(out.prompt, out.result);
  return out;
}

TEST(AnthropicMessagesEngine, ANamedToolChoiceReturnsOneToolUseWhoseInputMatchesTheStrictSchema) {
  const EngineRun r = run(
      R"({"model":"m","max_tokens":200,"messages":[{"role":"user","content":"weather?"}],)"
      R"("tools":[{"name":"get_weather","strict":true,"input_schema":{"type":"object","properties":{"city":{"enum":["Paris","Rome"]}},)"
      R"("required":["city"],"additionalProperties":false}},{"name":"other","input_schema":{"type":"object"}}],)"
      R"("tool_choice":{"type":"tool","name":"get_weather"}})");
  const Json& m = r.message;
  EXPECT_EQ(m["stop_reason"], "tool_use") << m.dump();
  ASSERT_EQ(m["content"].size(), 1u) << m.dump();
  const Json& call = m["content"][0];
  EXPECT_EQ(call["type"], "tool_use");
  EXPECT_EQ(call["name"], "get_weather");
  EXPECT_EQ(call["id"].get<std::string>().rfind("toolu_", 0), 0u);
  ASSERT_TRUE(call["input"].is_object());
  EXPECT_EQ(call["input"].size(), 1u);
  EXPECT_TRUE(call["input"]["city"] == "Paris" || call["input"]["city"] == "Rome") << call.dump();
  EXPECT_EQ(m["usage"]["input_tokens"], static_cast<int>(r.prompt.tokens.size()));
}

TEST(AnthropicMessagesEngine, OutputConfigFormatMakesTheTextMatchTheSchema) {
  const EngineRun r = run(
      R"({"model":"m","max_tokens":100,"messages":[{"role":"user","content":"ok?"}],)"
      R"("output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"ok":{"type":"boolean"}},)"
      R"("required":["ok"],"additionalProperties":false}}}})");
  const Json& m = r.message;
  EXPECT_EQ(m["stop_reason"], "end_turn") << m.dump();
  ASSERT_EQ(m["content"].size(), 1u) << m.dump();
  const Json value = Json::parse(m["content"][0]["text"].get<std::string>());
  ASSERT_TRUE(value.is_object());
  EXPECT_EQ(value.size(), 1u);
  EXPECT_TRUE(value["ok"].is_boolean());
  ASSERT_TRUE(m["constraint"].is_object());
  EXPECT_EQ(m["constraint"]["complete"], true);
}

TEST(AnthropicMessagesEngine, ThinkingReachesTheTemplateAsItsSwitch) {
  const std::string body = R"({"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}])";
  auto start = [&](const std::string& extra, const char* tmpl) {
    const auto ex = map_anthropic_messages_request(Json::parse(body + extra + "}"), defaults(tmpl));
    return engine().prepare(ex->request().prompt).start;
  };
  EXPECT_EQ(start("", "qwen3"), OutputStart::Body);  // Anthropic's default: no thinking
  EXPECT_EQ(start("", "qwen3_5"), OutputStart::Body);
  EXPECT_EQ(start(R"(,"thinking":{"type":"enabled","budget_tokens":4})", "qwen3"), OutputStart::OptionalThinking);
  EXPECT_EQ(start(R"(,"thinking":{"type":"enabled","budget_tokens":4})", "qwen3_5"), OutputStart::Thinking);
  EXPECT_EQ(start(R"(,"thinking":{"type":"adaptive"})", "qwen3_5"), OutputStart::Thinking);  // the template's default
}

TEST(AnthropicMessagesEngine, AFinalAssistantTurnIsContinued) {
  const EngineRun r = run(
      R"({"model":"m","max_tokens":4,"messages":[{"role":"user","content":"count"},{"role":"assistant","content":"1, 2,"}]})");
  ASSERT_TRUE(r.prompt.continuation);
  EXPECT_EQ(*r.prompt.continuation, "1, 2,");
  EXPECT_EQ(r.prompt.rendered.substr(r.prompt.rendered.size() - 5), "1, 2,");
}

TEST(AnthropicMessagesEngine, AToolSchemaErrorIsReportedAtTheToolsInputSchema) {
  const auto exchange = map_anthropic_messages_request(
      Json::parse(R"({"model":"m","max_tokens":10,"messages":[{"role":"user","content":"x"}],)"
                  R"("tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","strict":true,)"
                  R"("input_schema":{"type":"object","properties":{"x":{"type":"strin"}}}}]})"),
      defaults());
  try {
    const PreparedPrompt p = engine().prepare(exchange->request().prompt);
    engine().submit(p, exchange->request().options).wait();
    ADD_FAILURE() << "accepted";
  } catch (const std::exception& e) {
    const ApiError error = from_exception(e, exchange->request());
    EXPECT_EQ(error.status, 400);
    const std::string message = anthropic_error_json(error)["error"]["message"];
    EXPECT_EQ(message.rfind("tools[1].input_schema.properties.x", 0), 0u) << message;
  }
}

}  // namespace
}  // namespace ninfer::api
