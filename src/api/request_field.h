// Typed reads of an untrusted request body. A Field is one JSON value with its path in the request
// ("messages[3].content"); every read that finds the wrong type, a value out of range or an
// unknown member throws an ApiError (400) that names the path. JSON null counts as absent for
// optional members, as in OpenAI's API.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api/api_error.h"

namespace ninfer::api {

// Insertion-ordered: tool schemas keep their key order (JSON Schema property order is the generation
// order, and templates print tools with tojson as the client wrote them).
using Json = nlohmann::ordered_json;

// Nesting deeper than this is rejected before anything walks the body recursively (above the
// schema compiler's own nesting limit, so that a deep schema gets the compiler's located error).
inline constexpr int kMaxRequestDepth = 512;

// Parses a request body; invalid JSON (or invalid UTF-8) and nesting beyond kMaxRequestDepth are 400s.
Json parse_request_body(std::string_view body);
// Throws a 400 when `value` nests deeper than kMaxRequestDepth (iterative: safe on any depth).
void check_request_depth(const Json& value);

// "a string", "an integer", "an object", ... for messages.
std::string json_type_phrase(const Json& value);

class Field {
 public:
  Field(const Json& value, std::string path) : value_(&value), path_(std::move(path)) {}

  const Json& json() const { return *value_; }
  const std::string& path() const { return path_; }
  bool is_null() const { return value_->is_null(); }

  // The member's field (a null field when absent); requires this field to be an object.
  Field member(std::string_view key) const;
  // The member unless it is absent or null.
  std::optional<Field> optional_member(std::string_view key) const;
  // The member; absent or null is "Missing required parameter".
  Field required_member(std::string_view key) const;
  Field element(size_t index) const;

  const Json& object() const;
  const Json& array() const;
  const std::string& string() const;
  bool boolean() const;
  // An integer in [min, max]; a float with an integral value (5.0) counts as an integer.
  int64_t integer(int64_t min, int64_t max) const;
  // A number in [min, max] (min excluded when min_exclusive).
  double number(double min, double max, bool min_exclusive = false) const;
  // One of `allowed` (a string).
  const std::string& one_of(std::initializer_list<std::string_view> allowed) const;

  // Rejects the first member not in `known` as "Unrecognized request argument supplied".
  void only_members(std::initializer_list<std::string_view> known) const;

  [[noreturn]] void fail(const std::string& message, const std::string& code = "invalid_value") const;
  [[noreturn]] void fail_type(const std::string& expected) const;

 private:
  std::string child_path(std::string_view key) const;

  const Json* value_;
  std::string path_;
};

// The body as the Field every path starts from; a body that is not an object is a 400 without a
// param (the request as a whole is at fault).
Field body_field(const Json& body);

}  // namespace ninfer::api
