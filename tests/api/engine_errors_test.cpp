// Engine errors located in the request: tool schemas, body schemas, regex/grammar sources, context paths.
#include <gtest/gtest.h>

#include "api/engine_errors.h"
#include "api/json_pointer_param.h"
#include "api_test_support.h"

namespace ninfer::api {
namespace {

using testing::accept;
using testing::with;

std::string three_tools() {
  return R"("tools":[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"b"}},)"
         R"({"type":"function","function":{"name":"c","parameters":{"type":"object","properties":{"x":{"type":"strin"},)"
         R"("list":{"type":"array","items":[{"type":"string"}]},"0":{"anyOf":[{"type":"string"},{"type":"null"}]},)"
         R"("a/b":{"type":"string"},"first name":{"type":"string"}}}}}])";
}

ConstraintError schema_error(const std::string& pointer, int tool = -1) {
  ConstraintError e(ConstraintErrorKind::InvalidJsonSchema, "bad schema at '" + pointer + "'");
  e.at_pointer(pointer);
  if (tool >= 0) e.in_tool(tool);
  return e;
}

TEST(EngineErrors, AToolSchemaErrorNamesTheToolsParametersDownToTheKeyword) {
  const ChatRequest r = accept(with(three_tools()));
  const ApiError e = from_constraint_error(schema_error("/properties/x", 2), r);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.type, "invalid_request_error");
  EXPECT_EQ(e.param, "tools[2].function.parameters.properties.x");
  EXPECT_EQ(e.code, "invalid_json_schema");
  EXPECT_EQ(e.message, "bad schema at '/properties/x'");
  EXPECT_EQ(from_constraint_error(schema_error("", 2), r).param, "tools[2].function.parameters");
}

TEST(EngineErrors, ArrayIndicesAreBracketedAndDigitKeysOfObjectsAreNot) {
  const ChatRequest r = accept(with(three_tools()));
  EXPECT_EQ(from_constraint_error(schema_error("/properties/list/items/0/type", 2), r).param,
            "tools[2].function.parameters.properties.list.items[0].type");
  EXPECT_EQ(from_constraint_error(schema_error("/properties/0/anyOf/1", 2), r).param,
            "tools[2].function.parameters.properties.0.anyOf[1]");
}

TEST(EngineErrors, EscapedAndSpacedKeysAreQuotedInBrackets) {
  const ChatRequest r = accept(with(three_tools()));
  EXPECT_EQ(from_constraint_error(schema_error("/properties/a~1b", 2), r).param,
            R"(tools[2].function.parameters.properties["a/b"])");
  EXPECT_EQ(from_constraint_error(schema_error("/properties/first name/type", 2), r).param,
            R"(tools[2].function.parameters.properties["first name"].type)");
}

TEST(EngineErrors, APointerOutsideTheDocumentReadsDigitSegmentsAsIndices) {
  EXPECT_EQ(json_pointer_param("/$defs/item/anyOf/3/minimum", nullptr), ".$defs.item.anyOf[3].minimum");
  EXPECT_EQ(json_pointer_param("", nullptr), "");
  EXPECT_EQ(json_pointer_param("/~0tilde", nullptr), R"(["~tilde"])");
}

TEST(EngineErrors, AResponseFormatSchemaErrorNamesTheSchemaField) {
  const ChatRequest r = accept(with(
      R"("response_format":{"type":"json_schema","json_schema":{"name":"p","schema":{"type":"object","properties":{"age":{"type":"integer","minimum":5,"maximum":1}}}}})"));
  ConstraintError ce(ConstraintErrorKind::Unsatisfiable, "schema admits no value");
  ce.at_pointer("/properties/age");
  const ApiError e = from_constraint_error(ce, r);
  EXPECT_EQ(e.param, "response_format.json_schema.schema.properties.age");
  EXPECT_EQ(e.code, "unsatisfiable");
}

TEST(EngineErrors, AStructuredOutputsSchemaGivenAsTextIsWalkedToo) {
  const ChatRequest r = accept(with(R"("structured_outputs":{"json":"{\"anyOf\":[{\"type\":\"string\"},{\"typo\":1}]}"})"));
  EXPECT_EQ(from_constraint_error(schema_error("/anyOf/1"), r).param, "structured_outputs.json.anyOf[1]");
}

TEST(EngineErrors, RegexAndGrammarErrorsNameTheirSourceFieldAndKeepTheirLocationInTheMessage) {
  ChatRequest r = accept(with(R"("structured_outputs":{"regex":"a(b"})"));
  ConstraintError re(ConstraintErrorKind::InvalidRegex, "invalid regex at character 3: missing )");
  re.at_offset(3);
  EXPECT_EQ(from_constraint_error(re, r).param, "structured_outputs.regex");
  EXPECT_EQ(from_constraint_error(re, r).message, "invalid regex at character 3: missing )");
  r = accept(with(R"("structured_outputs":{"grammar":"root ::= x"})"));
  ConstraintError ge(ConstraintErrorKind::InvalidGrammar, "undefined rule 'x' at 1:10");
  ge.at_line(1, 10);
  const ApiError e = from_constraint_error(ge, r);
  EXPECT_EQ(e.param, "structured_outputs.grammar");
  EXPECT_EQ(e.code, "invalid_grammar");
  EXPECT_NE(e.message.find("1:10"), std::string::npos);
}

TEST(EngineErrors, RequestErrorParamsIntoTheContextPassThrough) {
  const ChatRequest r = accept(with(three_tools()));
  RequestError re(RequestErrorKind::InvalidTools, "duplicate tool name");
  re.at_param("tools[1].function.name");
  const ApiError e = from_request_error(re, r);
  EXPECT_EQ(e.status, 400);
  EXPECT_EQ(e.param, "tools[1].function.name");
  EXPECT_EQ(e.code, "invalid_tools");
}

TEST(EngineErrors, RequestErrorsWithoutAParamNameTheFieldTheirKindIsAbout) {
  ChatRequest r = accept(with(R"("chat_template":"{% if %}")"));
  RequestError t(RequestErrorKind::InvalidTemplate, "expected an expression");
  t.at_line(1, 7);
  ApiError e = from_request_error(t, r);
  EXPECT_EQ(e.param, "chat_template");
  EXPECT_EQ(e.message, "expected an expression (chat template line 1, column 7)");
  // A template the server chose is not a field of this request.
  EXPECT_EQ(from_request_error(t, accept(with(""))).param, "");
  e = from_request_error(RequestError(RequestErrorKind::PromptTooLong, "too long"), r);
  EXPECT_EQ(e.param, "messages");
  EXPECT_EQ(e.code, "context_length_exceeded");
  r = accept(with(R"("structured_outputs":{"regex":"a"})"));
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::EmptyInitialMask, "no token"), r).param,
            "structured_outputs.regex");
}

TEST(EngineErrors, OverloadAndDrainAre503sAndOnlyEngineFaultsAre500s) {
  const ChatRequest r = accept(with(""));
  for (RequestErrorKind k : {RequestErrorKind::Overloaded, RequestErrorKind::ShuttingDown, RequestErrorKind::DeadlineExceeded})
    EXPECT_EQ(from_request_error(RequestError(k, "busy"), r).status, 503);
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::Internal, "bug"), r).status, 500);
  EXPECT_EQ(from_request_error(RequestError(RequestErrorKind::NonFiniteLogits, "nan"), r).status, 500);
  for (RequestErrorKind k : {RequestErrorKind::InvalidRequest, RequestErrorKind::ConflictingOptions,
                             RequestErrorKind::InvalidContinuation, RequestErrorKind::ConstraintDeadEnd})
    EXPECT_EQ(from_request_error(RequestError(k, "bad"), r).status, 400);
}

TEST(EngineErrors, ExceptionsAreDispatchedByTheirType) {
  const ChatRequest r = accept(with(three_tools()));
  EXPECT_EQ(from_exception(schema_error("/properties/x", 2), r).param, "tools[2].function.parameters.properties.x");
  EXPECT_EQ(from_exception(RequestError(RequestErrorKind::Overloaded, "busy"), r).status, 503);
  EXPECT_EQ(from_exception(std::runtime_error("odd"), r).status, 500);
}

}  // namespace
}  // namespace ninfer::api
