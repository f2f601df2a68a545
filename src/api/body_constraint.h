// The body constraint of a request: what its output must match, and the request field it came
// from (errors about the constraint name that field, down into the schema). Built from OpenAI's
// `response_format` and from the NInfer/vLLM extension `structured_outputs`, which all three
// protocols accept. One source per request (DESIGN.md section 3).
#pragma once

#include <optional>
#include <string>

#include "api/request_field.h"
#include "ninfer/output_constraint.h"

namespace ninfer::api {

struct BodyConstraint {
  OutputConstraint constraint;
  std::string param;  // "response_format.json_schema.schema", "structured_outputs.regex", ...
};

// response_format {type: text | json_object | json_schema}; text gives no constraint.
std::optional<BodyConstraint> map_openai_response_format(const Field& response_format);
// The json_schema members both OpenAI layouts share: name, description?, schema?, strict? (Chat:
// response_format.json_schema; Responses: flat in text.format beside `type`). The caller checks
// which other members may be there; without a schema the output is any JSON value.
BodyConstraint map_openai_json_schema(const Field& json_schema);
// structured_outputs {json | regex | choice | grammar | json_object}: exactly one member; a second
// one is rejected by name.
std::optional<BodyConstraint> map_structured_outputs(const Field& structured_outputs);

}  // namespace ninfer::api
