// The output language through the real matcher over the qwen3 token domain: what the templates
// render for assistant turns is accepted, near-misses are rejected.
#include <gtest/gtest.h>

#include "frontend_test_support.h"
#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"

namespace ninfer::qwen3 {
namespace {

using namespace testing;

const std::string kWeather =
    R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["c","f"]}},"required":["city","days"],"additionalProperties":false})";
const std::string kSearch =
    R"({"type":"object","properties":{"query":{"type":"string"},"exact":{"type":"boolean"},"tags":{"type":"array","items":{"type":"string"}}},"required":["query"],"additionalProperties":false})";

std::vector<ToolDefinition> two_tools() { return {tool("get_weather", kWeather), tool("search", kSearch)}; }

struct Lang {
  std::vector<ToolDefinition> tools;
  OutputLanguage lang;
  Lang(std::vector<ToolDefinition> t, ToolCallFormat f, ToolChoice c, OutputStart s = OutputStart::Body) : tools(std::move(t)) {
    lang.start = s;
    lang.tools = &tools;
    lang.format = f;
    lang.choice = std::move(c);
  }
  std::shared_ptr<const grammar::CompiledGrammar> compile() const { return compile_language(lang); }
};

// ---- JSON format --------------------------------------------------------------------------------

const std::string kJsonCall = "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 3}}\n</tool_call>";
const std::string kJsonCall2 = "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"query\": \"a <b>\\n\", \"exact\": true, \"tags\": [\"x\", \"y\"]}}\n</tool_call>";

TEST(JsonToolLanguage, AcceptsCallsAsTheQwen3TemplateRendersThem) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto)).compile();
  EXPECT_TRUE(accepts(g, kJsonCall));
  EXPECT_TRUE(accepts(g, kJsonCall + "\n" + kJsonCall2));
  EXPECT_TRUE(accepts(g, "Let me check.\n" + kJsonCall));
  EXPECT_TRUE(accepts(g, "Just text, no call."));
  EXPECT_TRUE(accepts(g, ""));
  // Compact arguments (a client's JSON string rendered verbatim) are in the language too.
  EXPECT_TRUE(accepts(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\":\"P\",\"days\":3}}\n</tool_call>"));
}

TEST(JsonToolLanguage, RejectsNearMisses) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto)).compile();
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"get_weathr\""));                         // wrong name
  EXPECT_FALSE(accepts(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\"}}\n</tool_call>"));  // missing days
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\", \"days\": 3, \"x\""));  // extra
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"P\", \"days\": 15"));  // maximum
  EXPECT_FALSE(accepts(g, kJsonCall + "\nand some text after"));  // only calls after calls
  EXPECT_FALSE(accepts(g, kJsonCall + "\n\n" + kJsonCall));       // one newline between calls
  EXPECT_FALSE(accepts_prefix(g, "text <tool_call> inside text"));
  EXPECT_FALSE(accepts_prefix(g, "I think <think>"));
}

TEST(JsonToolLanguage, ParallelFalseCapsAtOneCall) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto, {}, false)).compile();
  EXPECT_TRUE(accepts(g, kJsonCall));
  EXPECT_FALSE(accepts_prefix(g, kJsonCall + "\n<"));
}

TEST(JsonToolLanguage, RequiredAllowsNoTextBeforeTheCall) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Required)).compile();
  EXPECT_TRUE(accepts(g, kJsonCall));
  EXPECT_FALSE(accepts(g, ""));
  EXPECT_FALSE(accepts_prefix(g, "Sure.\n<tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "S"));
}

TEST(JsonToolLanguage, NamedChoiceAllowsOnlyThatTool) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Required, {"search"}, false)).compile();
  EXPECT_TRUE(accepts(g, kJsonCall2));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"get_weather\""));
}

TEST(JsonToolLanguage, NoneAllowsNoCall) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::None)).compile();
  EXPECT_TRUE(accepts(g, "A plain answer."));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "text\n<tool_call>"));
}

TEST(JsonToolLanguage, NonStrictToolsTakeAnyObject) {
  std::vector<ToolDefinition> tools{tool("get_weather", kWeather, false)};
  const auto g = Lang(tools, ToolCallFormat::Json, choice(ToolChoiceMode::Required)).compile();
  EXPECT_TRUE(accepts(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"anything\": [1, {\"b\": null}]}}\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"get_weather\", \"arguments\": ["));
}

TEST(JsonToolLanguage, AutomaticEnforcementLeavesNamesFreeUnlessNarrowed) {
  std::vector<ToolDefinition> tools{tool("get_weather", kWeather, false), tool("search", kSearch, true)};
  Lang auto_lang(tools, ToolCallFormat::Json, choice(ToolChoiceMode::Auto, {}, true, ToolEnforcement::Automatic));
  EXPECT_TRUE(needs_grammar(auto_lang.lang));  // a strict tool asks for its arguments
  const auto g = auto_lang.compile();
  EXPECT_TRUE(accepts(g, "<tool_call>\n{\"name\": \"other\", \"arguments\": {}}\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"nope\""));  // strict args still hold
  std::vector<ToolDefinition> loose{tool("get_weather", kWeather, false)};
  Lang nothing(loose, ToolCallFormat::Json, choice(ToolChoiceMode::Auto, {}, true, ToolEnforcement::Automatic));
  EXPECT_FALSE(needs_grammar(nothing.lang));
  Lang basic(loose, ToolCallFormat::Json, choice(ToolChoiceMode::Auto));
  EXPECT_TRUE(needs_grammar(basic.lang));
}

// ---- Thinking -------------------------------------------------------------------------------

TEST(ThinkingLanguage, ThinkingStartNeedsTheCanonicalCloseBeforeTheBody) {
  const auto g = Lang(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto), OutputStart::Thinking).compile();
  EXPECT_TRUE(accepts(g, "Let me think.\n</think>\n\nThe answer."));
  EXPECT_TRUE(accepts(g, "\n</think>\n\n" + kJsonCall));
  EXPECT_FALSE(accepts(g, "still thinking"));  // EOS inside thinking
  EXPECT_FALSE(accepts(g, "x</think>\n\nbody"));  // not the canonical close
  EXPECT_FALSE(accepts_prefix(g, "a <think> b"));
  grammar::Matcher m(g);
  EXPECT_TRUE(m.accept_bytes("thinking"));
  EXPECT_FALSE(m.can_end());
}

TEST(ThinkingLanguage, OptionalThinkingAllowsABlockOrNone) {
  const auto g = Lang({}, ToolCallFormat::Json, choice(ToolChoiceMode::Auto), OutputStart::OptionalThinking).compile();
  EXPECT_TRUE(accepts(g, "<think>\nhmm\n</think>\n\nAnswer"));
  EXPECT_TRUE(accepts(g, "<think>\n\n</think>\n\nAnswer"));  // the template's empty block
  EXPECT_TRUE(accepts(g, "Answer directly"));
  EXPECT_FALSE(accepts(g, "<think>\nhmm"));
  EXPECT_FALSE(accepts_prefix(g, "Answer </think>"));
}

TEST(ThinkingLanguage, BodyConstraintAppliesOnlyAfterTheClose) {
  const OutputConstraint body = OutputConstraint::json_schema(R"({"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false})");
  OutputLanguage lang;
  lang.start = OutputStart::Thinking;
  lang.body = &body;
  const auto g = compile_language(lang);
  EXPECT_TRUE(accepts(g, "free { text\n</think>\n\n{\"a\":1}"));
  EXPECT_FALSE(accepts(g, "x\n</think>\n\nnot json"));
  EXPECT_FALSE(accepts_prefix(g, "{\"a\":1}\n</think>\n\n{\"a\":1}x"));
}

TEST(ThinkingLanguage, AutoWithABodyConstraintIsTheUnionOfBodyAndCalls) {
  const OutputConstraint body = OutputConstraint::json_object();
  Lang l(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto));
  l.lang.body = &body;
  const auto g = l.compile();
  EXPECT_TRUE(accepts(g, "{\"x\":1}"));
  EXPECT_TRUE(accepts(g, kJsonCall));
  EXPECT_FALSE(accepts_prefix(g, "text"));
  EXPECT_FALSE(accepts(g, "{\"x\":1}\n" + kJsonCall));
}

// ---- XML format ---------------------------------------------------------------------------------

const std::string kXmlCall =
    "<tool_call>\n<function=get_weather>\n<parameter=city>\nNew York\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>";

TEST(XmlToolLanguage, AcceptsCallsAsTheXmlTemplatesRenderThem) {
  const auto g = Lang(two_tools(), ToolCallFormat::Xml, choice(ToolChoiceMode::Auto)).compile();
  EXPECT_TRUE(accepts(g, kXmlCall));
  EXPECT_TRUE(accepts(g, "Checking.\n\n" + kXmlCall + "\n" + kXmlCall));
  EXPECT_TRUE(accepts(g,
                      "<tool_call>\n<function=search>\n<parameter=query>\nline 1\n</parameter line 2 </parameter>\n</parameter>\n"
                      "<parameter=exact>\nTrue\n</parameter>\n<parameter=tags>\n[\"a\", \"b\"]\n</parameter>\n</function>\n</tool_call>"));
  EXPECT_TRUE(accepts(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\n\n</parameter>\n<parameter=days>\n14\n</parameter>\n"
                         "<parameter=unit>\nf\n</parameter>\n</function>\n</tool_call>"));
}

TEST(XmlToolLanguage, RejectsNearMisses) {
  const auto g = Lang(two_tools(), ToolCallFormat::Xml, choice(ToolChoiceMode::Auto)).compile();
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_wether"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=days>"));  // declared order: city first
  EXPECT_FALSE(accepts(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\nP\n</parameter>\n</function>\n</tool_call>"));  // days missing
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\nP\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=extra"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\nP\n</parameter>\n<parameter=city>"));  // duplicate
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\nP\n</parameter>\n<parameter=days>\n\"3\""));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=city>\nP\n</parameter>\n<parameter=days>\n3\n</parameter>\n<parameter=unit>\nk"));
  // "\n</parameter>" ends a raw string: the text after it must be the next parameter.
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=search>\n<parameter=query>\na\n</parameter>\nb"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=search>\n<parameter=exact>"));  // query is required
}

TEST(XmlToolLanguage, AStrictToolWithoutParametersTakesNone) {
  std::vector<ToolDefinition> tools{tool("ping", "")};
  const auto g = Lang(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Required)).compile();
  EXPECT_TRUE(accepts(g, "<tool_call>\n<function=ping>\n</function>\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=ping>\n<p"));
  const auto j = Lang(tools, ToolCallFormat::Json, choice(ToolChoiceMode::Required)).compile();
  EXPECT_TRUE(accepts(j, "<tool_call>\n{\"name\": \"ping\", \"arguments\": {}}\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(j, "<tool_call>\n{\"name\": \"ping\", \"arguments\": {\""));
}

TEST(XmlToolLanguage, NonStrictToolsTakeAnyParametersInAnyOrder) {
  std::vector<ToolDefinition> tools{tool("get_weather", kWeather, false)};
  const auto g = Lang(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Required)).compile();
  EXPECT_TRUE(accepts(g, "<tool_call>\n<function=get_weather>\n<parameter=days>\nx\n</parameter>\n<parameter=days>\n4\n</parameter>\n"
                         "<parameter=zzz>\n{\n</parameter>\n</function>\n</tool_call>"));
  EXPECT_TRUE(accepts(g, "<tool_call>\n<function=get_weather>\n</function>\n</tool_call>"));
}

TEST(XmlToolLanguage, StringEnumPatternAndLengthHoldOnRawText) {
  std::vector<ToolDefinition> tools{tool(
      "f", R"({"type":"object","properties":{"code":{"type":"string","pattern":"^[A-Z]{3}$"},"note":{"type":"string","maxLength":3},"c":{"const":"x\ny"}},"required":["code","note","c"],"additionalProperties":false})")};
  const auto g = Lang(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Required)).compile();
  const std::string head = "<tool_call>\n<function=f>\n<parameter=code>\n";
  EXPECT_TRUE(accepts(g, head + "ABC\n</parameter>\n<parameter=note>\nab\n</parameter>\n<parameter=c>\nx\ny\n</parameter>\n</function>\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, head + "ABCD"));
  EXPECT_FALSE(accepts_prefix(g, head + "ABC\n</parameter>\n<parameter=note>\nabcd"));
}

TEST(XmlToolLanguage, AmbiguousStringUnionsAreRejectedAtTheirPointer) {
  for (const std::string& prop : {std::string(R"({"type":["string","integer"]})"), std::string(R"({"anyOf":[{"type":"string"},{"type":"number"}]})"),
                                  std::string("{}")}) {
    std::vector<ToolDefinition> tools{tool("ok", kWeather), tool("bad", R"({"type":"object","properties":{"v":)" + prop + R"(},"additionalProperties":false})")};
    Lang l(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Auto));
    try {
      output_language_grammar(l.lang);
      ADD_FAILURE() << "accepted " << prop;
    } catch (const ConstraintError& e) {
      EXPECT_EQ(e.kind(), ConstraintErrorKind::UnsupportedSchema) << prop;
      EXPECT_EQ(e.tool(), 1) << prop;
      EXPECT_EQ(e.pointer(), "/properties/v") << prop;
    }
  }
}

TEST(XmlToolLanguage, PropertiesMayReferToTheRootDefinitions) {
  std::vector<ToolDefinition> tools{tool(
      "ship", R"({"$defs":{"A":{"type":"object","properties":{"zip":{"type":"string","pattern":"^[0-9]{5}$"}},"required":["zip"],"additionalProperties":false},"Code":{"type":"string","enum":["x","y"]}},"type":"object","properties":{"to":{"$ref":"#/$defs/A"},"code":{"$ref":"#/$defs/Code"}},"required":["to","code"],"additionalProperties":false})")};
  const auto g = Lang(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Required)).compile();
  const std::string head = "<tool_call>\n<function=ship>\n<parameter=to>\n";
  EXPECT_TRUE(accepts(g, head + "{\"zip\": \"12345\"}\n</parameter>\n<parameter=code>\ny\n</parameter>\n</function>\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, head + "{\"zip\": \"1234x"));
  EXPECT_FALSE(accepts_prefix(g, head + "{\"zip\": \"12345\"}\n</parameter>\n<parameter=code>\nz"));
  std::vector<ToolDefinition> foreign{tool(
      "f", R"({"type":"object","properties":{"a":{"type":"integer"},"b":{"$ref":"#/properties/a"}},"additionalProperties":false})")};
  try {
    output_language_grammar(Lang(foreign, ToolCallFormat::Xml, choice(ToolChoiceMode::Auto)).lang);
    ADD_FAILURE();
  } catch (const ConstraintError& e) {
    EXPECT_EQ(e.kind(), ConstraintErrorKind::UnsupportedSchema);
    EXPECT_EQ(e.pointer(), "/properties/b/$ref");
    EXPECT_EQ(e.tool(), 0);
  }
}

TEST(XmlToolLanguage, AutomaticEnforcementWithoutNarrowingAlsoTakesUndeclaredNames) {
  std::vector<ToolDefinition> tools{tool("get_weather", kWeather)};
  const auto g = Lang(tools, ToolCallFormat::Xml, choice(ToolChoiceMode::Auto, {}, true, ToolEnforcement::Automatic)).compile();
  EXPECT_TRUE(accepts(g, "<tool_call>\n<function=other>\n<parameter=q>\nx\n</parameter>\n</function>\n</tool_call>"));
  EXPECT_FALSE(accepts_prefix(g, "<tool_call>\n<function=get_weather>\n<parameter=q>"));  // declared: its schema holds
}

TEST(BodyConstraintErrors, PassThroughAsTheConstraintCompilerThrowsThem) {
  const OutputConstraint body = OutputConstraint::json_schema(R"({"type":"object","properties":{"a":{"type":"integer","minimum":"x"}}})");
  Lang l(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto));
  l.lang.body = &body;
  try {
    output_language_grammar(l.lang);
    ADD_FAILURE();
  } catch (const ConstraintError& e) {
    EXPECT_EQ(e.tool(), -1);
    EXPECT_EQ(e.pointer(), "/properties/a/minimum");
  }
}

TEST(ToolSchemaErrors, CarryTheToolIndexAndThePointerInsideItsParameters) {
  for (ToolCallFormat f : {ToolCallFormat::Json, ToolCallFormat::Xml}) {
    std::vector<ToolDefinition> tools{tool("ok", kWeather),
                                      tool("bad", R"({"type":"object","properties":{"n":{"type":"integer","maximum":"ten"}},"additionalProperties":false})")};
    Lang l(tools, f, choice(ToolChoiceMode::Auto));
    try {
      output_language_grammar(l.lang);
      ADD_FAILURE() << "accepted";
    } catch (const ConstraintError& e) {
      EXPECT_EQ(e.tool(), 1);
      EXPECT_EQ(e.pointer(), "/properties/n/maximum") << static_cast<int>(f) << " " << e.what();
    }
  }
}

TEST(ToolChoiceErrors, ANamedToolThatIsNotDeclaredNamesTheField) {
  Lang l(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Required, {"nope"}, false));
  try {
    output_language_grammar(l.lang);
    ADD_FAILURE();
  } catch (const RequestError& e) {
    EXPECT_EQ(e.kind(), RequestErrorKind::InvalidTools);
    EXPECT_EQ(e.param(), "tool_choice.function.name");
  }
}

TEST(OutputLanguageKey, DiffersWhenAnyInputDiffers) {
  Lang a(two_tools(), ToolCallFormat::Json, choice(ToolChoiceMode::Auto));
  Lang b = a;
  b.lang.tools = &b.tools;
  EXPECT_EQ(output_language_key(a.lang), output_language_key(b.lang));
  b.lang.choice.parallel = false;
  EXPECT_NE(output_language_key(a.lang), output_language_key(b.lang));
  Lang c = a;
  c.lang.tools = &c.tools;
  c.tools[1].strict = false;
  EXPECT_NE(output_language_key(a.lang), output_language_key(c.lang));
  Lang d = a;
  d.lang.tools = &d.tools;
  d.lang.format = ToolCallFormat::Xml;
  EXPECT_NE(output_language_key(a.lang), output_language_key(d.lang));
  Lang e = a;
  e.lang.tools = &e.tools;
  e.lang.start = OutputStart::Thinking;
  EXPECT_NE(output_language_key(a.lang), output_language_key(e.lang));
}

}  // namespace
}  // namespace ninfer::qwen3
