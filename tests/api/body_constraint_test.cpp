// response_format and structured_outputs -> RequestOptions::constraint, one source per request.
#include <gtest/gtest.h>

#include "api_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::reject;
using testing::with;

const char* kSchema = R"({"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name"]})";

TEST(BodyConstraint, JsonSchemaKeepsTheSchemaTextInItsKeyOrderAndNamesItsField) {
  const ChatRequest r =
      accept(with(std::string(R"("response_format":{"type":"json_schema","json_schema":{"name":"person","schema":)") + kSchema + "}}"));
  ASSERT_TRUE(r.options.constraint);
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::JsonSchema);
  EXPECT_EQ(r.options.constraint->source(), kSchema);
  EXPECT_EQ(r.options.constraint->json_options().schema_strictness, SchemaStrictness::Standard);
  EXPECT_EQ(r.constraint_param, "response_format.json_schema.schema");
}

TEST(BodyConstraint, StrictJsonSchemaRejectsKeywordsItCannotEnforce) {
  const ChatRequest r = accept(
      with(std::string(R"("response_format":{"type":"json_schema","json_schema":{"name":"p","strict":true,"schema":)") + kSchema + "}}"));
  EXPECT_EQ(r.options.constraint->json_options().schema_strictness, SchemaStrictness::Strict);
}

TEST(BodyConstraint, AJsonSchemaWithoutASchemaAllowsAnyJsonValue) {
  const ChatRequest r = accept(with(R"("response_format":{"type":"json_schema","json_schema":{"name":"any"}})"));
  EXPECT_EQ(r.options.constraint->source(), "{}");
}

TEST(BodyConstraint, JsonObjectAndTextMapToAJsonObjectAndToNothing) {
  const ChatRequest r = accept(with(R"("response_format":{"type":"json_object"})"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::JsonObject);
  EXPECT_EQ(r.constraint_param, "response_format");
  EXPECT_FALSE(accept(with(R"("response_format":{"type":"text"})")).options.constraint);
  EXPECT_FALSE(accept(with("")).options.constraint);
}

TEST(BodyConstraint, EachStructuredOutputsMemberBuildsItsConstraint) {
  ChatRequest r = accept(with(std::string(R"("structured_outputs":{"json":)") + kSchema + "}"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::JsonSchema);
  EXPECT_EQ(r.options.constraint->source(), kSchema);
  EXPECT_EQ(r.constraint_param, "structured_outputs.json");
  r = accept(with(R"("structured_outputs":{"json":"{\"type\":\"string\"}"})"));
  EXPECT_EQ(r.options.constraint->source(), R"({"type":"string"})");
  r = accept(with(R"("structured_outputs":{"regex":"[a-z]+"})"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::Regex);
  EXPECT_EQ(r.options.constraint->source(), "[a-z]+");
  EXPECT_EQ(r.constraint_param, "structured_outputs.regex");
  r = accept(with(R"("structured_outputs":{"choice":["yes","no"]})"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::Choice);
  EXPECT_EQ(r.options.constraint->choices(), (std::vector<std::string>{"no", "yes"}));
  r = accept(with(R"("structured_outputs":{"grammar":"root ::= \"a\""})"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::Grammar);
  EXPECT_EQ(r.constraint_param, "structured_outputs.grammar");
  r = accept(with(R"("structured_outputs":{"json_object":true})"));
  EXPECT_EQ(r.options.constraint->kind(), OutputConstraint::Kind::JsonObject);
  EXPECT_FALSE(accept(with(R"("structured_outputs":{"json_object":false})")).options.constraint);
  EXPECT_FALSE(accept(with(R"("structured_outputs":{"regex":null})")).options.constraint);
}

TEST(BodyConstraint, TwoSourcesAreRejectedNamingTheSecondAsWritten) {
  EXPECT_EQ(reject(with(R"("response_format":{"type":"json_object"},"structured_outputs":{"regex":"a"})")).param,
            "structured_outputs.regex");
  EXPECT_EQ(reject(with(R"("structured_outputs":{"regex":"a"},"response_format":{"type":"json_object"})")).param,
            "response_format");
  const ApiError e = reject(with(R"("structured_outputs":{"choice":["a"],"grammar":"root ::= \"a\""})"));
  EXPECT_EQ(e.param, "structured_outputs.grammar");
  EXPECT_EQ(e.code, "conflicting_parameters");
  // A text response_format sets no constraint, so it does not conflict.
  EXPECT_TRUE(accept(with(R"("response_format":{"type":"text"},"structured_outputs":{"regex":"a"})")).options.constraint);
}

TEST(BodyConstraint, StopStringsWithAGuaranteedConstraintAreRejected) {
  EXPECT_EQ(reject(with(R"("response_format":{"type":"json_object"},"stop":["\n"])")).param, "stop");
  EXPECT_EQ(reject(with(R"("structured_outputs":{"choice":["a"]},"stop":"x")")).param, "stop");
  EXPECT_EQ(accept(with(R"("stop":["a","b"])")).options.stop, (std::vector<std::string>{"a", "b"}));
}

TEST(BodyConstraint, GrammarRegexOrChoiceWithActiveToolsIsRejectedButNotWithToolChoiceNone) {
  const std::string tools = R"("tools":[{"type":"function","function":{"name":"f"}}],)";
  EXPECT_EQ(reject(with(tools + R"("structured_outputs":{"grammar":"root ::= \"a\""})")).param, "structured_outputs.grammar");
  EXPECT_EQ(reject(with(tools + R"("structured_outputs":{"regex":"a"})")).param, "structured_outputs.regex");
  EXPECT_EQ(reject(with(tools + R"("structured_outputs":{"choice":["a"]})")).param, "structured_outputs.choice");
  EXPECT_TRUE(accept(with(tools + R"("tool_choice":"none","structured_outputs":{"regex":"a"})")).options.constraint);
  // A JSON body and tools under auto form one union grammar (DESIGN.md section 6).
  EXPECT_TRUE(accept(with(tools + R"("response_format":{"type":"json_object"})")).options.constraint);
  EXPECT_EQ(reject(with(tools + R"("stop":"x")")).param, "stop");
}

TEST(BodyConstraint, EveryMalformedConstraintIsRejectedByItsField) {
  struct Case {
    const char* extra;
    const char* param;
  };
  const Case cases[] = {
      {R"("response_format":"json")", "response_format"},
      {R"("response_format":{})", "response_format.type"},
      {R"("response_format":{"type":"xml"})", "response_format.type"},
      {R"("response_format":{"type":"json_object","schema":{}})", "response_format.schema"},
      {R"("response_format":{"type":"json_schema"})", "response_format.json_schema"},
      {R"("response_format":{"type":"json_schema","json_schema":{"schema":{}}})", "response_format.json_schema.name"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"has space"}})", "response_format.json_schema.name"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}})",
       "response_format.json_schema.name"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"n","schema":"{}"}})", "response_format.json_schema.schema"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"n","strict":1}})", "response_format.json_schema.strict"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"n","description":{}}})",
       "response_format.json_schema.description"},
      {R"("response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{},"extra":1}})",
       "response_format.json_schema.extra"},
      {R"("structured_outputs":[])", "structured_outputs"},
      {R"("structured_outputs":{"json":5})", "structured_outputs.json"},
      {R"("structured_outputs":{"regex":["a"]})", "structured_outputs.regex"},
      {R"("structured_outputs":{"choice":"a"})", "structured_outputs.choice"},
      {R"("structured_outputs":{"choice":[]})", "structured_outputs.choice"},
      {R"("structured_outputs":{"choice":["a",2]})", "structured_outputs.choice[1]"},
      {R"("structured_outputs":{"grammar":{}})", "structured_outputs.grammar"},
      {R"("structured_outputs":{"json_object":"yes"})", "structured_outputs.json_object"},
      {R"("structured_outputs":{"whitespace_pattern":" "})", "structured_outputs.whitespace_pattern"},
  };
  for (const Case& c : cases) {
    const ApiError e = reject(with(c.extra));
    EXPECT_EQ(e.status, 400) << c.extra;
    EXPECT_EQ(e.param, c.param) << c.extra << ": " << e.message;
  }
}

}  // namespace
}  // namespace ninfer::api
