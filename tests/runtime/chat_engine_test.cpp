// Chat prompts through the Engine over the deterministic fake model: the chat template renders the
// prompt, the thinking budget forces the close through the masks, reasoning never reaches content,
// a continued assistant message constrains prefix + suffix, tool_choice decides which calls come,
// and stop strings end unconstrained outputs.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "jinja/chat_template.h"
#include "models/qwen3/frontend/qwen3_frontend.h"
#include "runtime/engine_impl.h"
#include "runtime/fake_model.h"
#include "runtime/runtime_test_support.h"

namespace ninfer {
namespace {

std::unique_ptr<EngineImpl> make_engine(int rows = 4, int max_context = 512) {
  EngineOptions o;
  o.max_batch_rows = rows;
  o.max_context = max_context;
  return std::make_unique<EngineImpl>(std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), rows, max_context), o);
}

PromptInput chat(const nlohmann::json& context, const std::string& template_name = "qwen3", bool continue_final = false) {
  PromptInput in;
  ChatPromptInput cp;
  cp.context_json = context.dump();
  cp.template_source = std::string(*jinja::bundled_template(template_name));
  cp.continue_final_message = continue_final;
  in.chat_prompt = std::move(cp);
  return in;
}

nlohmann::json user_turn(const std::string& text) {
  return {{"messages", nlohmann::json::array({{{"role", "user"}, {"content", text}}})}, {"add_generation_prompt", true}};
}

const char* kOkSchema = R"({"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"],"additionalProperties":false})";

// Tokens up to and including the end of the thinking close, or -1 when it never came.
int tokens_through_close(const std::vector<int32_t>& tokens) {
  std::string text;
  for (size_t i = 0; i < tokens.size(); ++i) {
    text += testing::qwen3_tokenizer()->decode(std::span<const int32_t>(&tokens[i], 1));
    if (text.find(qwen3::kThinkClose) != std::string::npos) return int(i + 1);
  }
  return -1;
}

TEST(ChatEngine, TheTemplateDecidesWhereOutputStarts) {
  auto e = make_engine();
  EXPECT_EQ(e->prepare(chat(user_turn("hi"), "qwen3_5")).start, OutputStart::Thinking);
  EXPECT_EQ(e->prepare(chat(user_turn("hi"), "qwen3")).start, OutputStart::OptionalThinking);
  nlohmann::json off = user_turn("hi");
  off["enable_thinking"] = false;
  EXPECT_EQ(e->prepare(chat(off, "qwen3")).start, OutputStart::Body);
  EXPECT_EQ(e->prepare(chat(off, "qwen3_5")).start, OutputStart::Body);
}

TEST(ChatEngine, AThinkingBudgetForcesTheCloseAndTheBodyStillFollowsItsSchema) {
  auto e = make_engine();
  const int close_tokens = int(testing::qwen3_tokenizer()->encode(std::string(qwen3::kThinkClose)).size());
  for (int budget : {0, 1, 4, 12}) {
    for (uint64_t seed : {1u, 2u, 3u}) {
      RequestOptions ro;
      ro.max_tokens = 96;
      ro.sampling.seed = seed;
      ro.constraint = OutputConstraint::json_schema(kOkSchema);
      ro.thinking_token_budget = budget;
      GenerationResult r = e->submit(e->prepare(chat(user_turn("think briefly"), "qwen3_5")), ro).wait();
      ASSERT_NE(r.finish_reason, FinishReason::Error) << r.error_message;
      ASSERT_TRUE(r.chat);
      const int through = tokens_through_close(r.tokens);
      ASSERT_GT(through, 0) << "budget " << budget << ": the close never came in " << r.text;
      // One extra token is allowed when the budget falls inside a UTF-8 sequence.
      EXPECT_LE(through, budget + close_tokens + 1) << r.text;
      EXPECT_TRUE(r.chat->thinking_closed);
      EXPECT_EQ(r.chat->content.find("think>"), std::string::npos);
      EXPECT_EQ(r.chat->reasoning.find("</think>"), std::string::npos);
      if (r.finish_reason == FinishReason::Stop) {
        const nlohmann::json body = nlohmann::json::parse(r.chat->content);
        EXPECT_TRUE(body.at("ok").is_boolean());
      }
    }
  }
}

TEST(ChatEngine, ReasoningCutOffByMaxTokensNeverReachesContent) {
  auto e = make_engine();
  RequestOptions ro;
  ro.max_tokens = 6;
  ro.sampling.seed = 5;
  ro.constraint = OutputConstraint::json_schema(kOkSchema);
  GenerationResult r = e->submit(e->prepare(chat(user_turn("think"), "qwen3_5")), ro).wait();
  ASSERT_EQ(r.finish_reason, FinishReason::Length);
  ASSERT_TRUE(r.chat);
  EXPECT_FALSE(r.chat->thinking_closed);
  EXPECT_EQ(r.chat->content, "");
  EXPECT_FALSE(r.chat->reasoning.empty());
}

nlohmann::json continuation_context(const std::string& prefix) {
  return {{"messages", nlohmann::json::array({{{"role", "user"}, {"content", "Give me JSON"}},
                                              {{"role", "assistant"}, {"content", prefix}}})},
          {"add_generation_prompt", false},
          {"enable_thinking", false}};
}

TEST(ChatEngine, AContinuedMessageConstrainsPrefixAndSuffixAndReturnsOnlyTheSuffix) {
  auto e = make_engine();
  const std::string prefix = R"({"ok":)";
  const PreparedPrompt p = e->prepare(chat(continuation_context(prefix), "qwen3", true));
  ASSERT_TRUE(p.continuation);
  EXPECT_EQ(*p.continuation, prefix);
  EXPECT_TRUE(p.rendered.ends_with("</think>\n\n" + prefix)) << p.rendered;
  for (uint64_t seed : {1u, 2u, 3u, 4u}) {
    RequestOptions ro;
    ro.max_tokens = 32;
    ro.sampling.seed = seed;
    ro.constraint = OutputConstraint::json_schema(kOkSchema);
    GenerationResult r = e->submit(p, ro).wait();
    ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.error_message;
    ASSERT_TRUE(r.chat);
    EXPECT_EQ(r.chat->content, r.text);
    const nlohmann::json whole = nlohmann::json::parse(prefix + r.text);
    EXPECT_TRUE(whole.at("ok").is_boolean());
  }
}

TEST(ChatEngine, AContinuationTheConstraintRejectsIsATypedErrorAtSubmit) {
  auto e = make_engine();
  RequestOptions ro;
  ro.constraint = OutputConstraint::json_schema(kOkSchema);
  try {
    e->submit(e->prepare(chat(continuation_context("[1,"), "qwen3", true)), ro);
    FAIL() << "accepted a prefix the schema rejects";
  } catch (const RequestError& err) {
    EXPECT_EQ(err.kind(), RequestErrorKind::InvalidContinuation);
    EXPECT_EQ(err.param(), "messages[1].content");
    EXPECT_NE(std::string(err.what()).find("rejects"), std::string::npos) << err.what();
  }
  nlohmann::json no_assistant = user_turn("x");
  no_assistant["add_generation_prompt"] = false;
  try {
    e->prepare(chat(no_assistant, "qwen3", true));
    FAIL() << "continued a conversation with no assistant message";
  } catch (const RequestError& err) {
    EXPECT_EQ(err.kind(), RequestErrorKind::InvalidContinuation);
    EXPECT_EQ(err.param(), "messages[0]");
  }
}

nlohmann::json with_tools(nlohmann::json context) {
  context["tools"] = nlohmann::json::parse(R"([
    {"type":"function","function":{"name":"get_weather","strict":true,"parameters":{"type":"object",
      "properties":{"city":{"type":"string","enum":["Paris","Oslo"]},"days":{"type":"integer","minimum":1,"maximum":3}},
      "required":["city","days"],"additionalProperties":false}}},
    {"type":"function","function":{"name":"get_time","strict":true,"parameters":{"type":"object",
      "properties":{"zone":{"type":"string","enum":["UTC","CET"]}},"required":["zone"],"additionalProperties":false}}}])");
  context["enable_thinking"] = false;
  return context;
}

TEST(ChatEngine, ToolChoiceDecidesWhichCallsComeInBothFormats) {
  auto e = make_engine();
  for (const char* tmpl : {"qwen3", "qwen3_5"}) {
    const PreparedPrompt p = e->prepare(chat(with_tools(user_turn("weather?")), tmpl));
    EXPECT_EQ(p.tool_format, std::string(tmpl) == "qwen3" ? ToolCallFormat::Json : ToolCallFormat::Xml);
    ASSERT_EQ(p.tools.size(), 2u);
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      RequestOptions named;
      named.max_tokens = 128;
      named.sampling.seed = seed;
      named.tool_choice = ToolChoice{ToolChoiceMode::Required, {"get_time"}, false, ToolEnforcement::Basic};
      GenerationResult r = e->submit(p, named).wait();
      ASSERT_NE(r.finish_reason, FinishReason::Error) << r.error_message;
      ASSERT_TRUE(r.chat);
      if (r.finish_reason == FinishReason::Stop) {
        ASSERT_EQ(r.chat->tool_calls.size(), 1u) << r.text;
        EXPECT_EQ(r.chat->tool_calls[0].name, "get_time");
        EXPECT_TRUE(r.chat->tool_calls[0].id.starts_with("call_"));
        const nlohmann::json args = nlohmann::json::parse(r.chat->tool_calls[0].arguments);
        EXPECT_TRUE(args.at("zone") == "UTC" || args.at("zone") == "CET");
      }
      RequestOptions none;
      none.max_tokens = 48;
      none.sampling.seed = seed;
      none.tool_choice = ToolChoice{ToolChoiceMode::None, {}, true, ToolEnforcement::Basic};
      r = e->submit(p, none).wait();
      ASSERT_NE(r.finish_reason, FinishReason::Error) << r.error_message;
      EXPECT_TRUE(r.chat->tool_calls.empty());
      EXPECT_EQ(r.text.find("<tool_call>"), std::string::npos);
    }
  }
}

TEST(ChatEngine, ANamedChoiceOfAnUndeclaredToolNamesTheField) {
  auto e = make_engine();
  const PreparedPrompt p = e->prepare(chat(with_tools(user_turn("x"))));
  RequestOptions ro;
  ro.tool_choice = ToolChoice{ToolChoiceMode::Required, {"nope"}, false, ToolEnforcement::Basic};
  try {
    e->submit(p, ro);
    FAIL();
  } catch (const RequestError& err) {
    EXPECT_EQ(err.kind(), RequestErrorKind::InvalidTools);
    EXPECT_EQ(err.param(), "tool_choice");
  }
}

TEST(ChatEngine, StopStringsEndAnUnconstrainedOutputBeforeTheStop) {
  auto e = make_engine();
  PromptInput in;
  in.text = "Once upon a time";
  RequestOptions ro;
  ro.max_tokens = 40;
  ro.sampling.seed = 9;
  const GenerationResult full = e->submit(e->prepare(in), ro).wait();
  ASSERT_GE(full.text.size(), 8u);
  const std::string stop = full.text.substr(full.text.size() / 2, 3);
  ro.stop = {stop};
  RequestHandle h = e->submit(e->prepare(in), ro);
  std::string streamed;
  while (auto ev = h.next()) streamed += ev->text;
  const GenerationResult cut = h.wait();
  EXPECT_EQ(cut.finish_reason, FinishReason::Stop);
  EXPECT_EQ(cut.text, full.text.substr(0, full.text.find(stop)));  // a single stop: its first occurrence
  EXPECT_EQ(streamed, cut.text);
  ro.constraint = OutputConstraint::json_object();
  EXPECT_THROW(e->submit(e->prepare(in), ro), RequestError);
}

}  // namespace
}  // namespace ninfer
