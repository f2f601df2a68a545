// A JSON Pointer into a schema, written as the rest of an OpenAI-style param path:
// "/properties/x" -> ".properties.x", "/anyOf/0" -> ".anyOf[0]", "/properties/first name" ->
// ".properties[\"first name\"]". Walking the schema tells array indices from object keys that are
// digits; where the pointer leaves the document, a segment of digits is read as an index.
#pragma once

#include <string>
#include <string_view>

#include "api/request_field.h"

namespace ninfer::api {

// `document` may be null (the pointer is converted from its text alone).
std::string json_pointer_param(std::string_view pointer, const Json* document);

}  // namespace ninfer::api
