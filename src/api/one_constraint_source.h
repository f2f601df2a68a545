// One output constraint per request (DESIGN.md section 3): of the top-level fields a protocol reads
// a body constraint from (response_format, text, output_config, output_format, structured_outputs),
// at most one may set it. Shared by every protocol mapping.
#pragma once

#include <functional>
#include <initializer_list>
#include <optional>
#include <string_view>

#include "api/body_constraint.h"

namespace ninfer::api {

struct ConstraintSource {
  std::string_view key;  // a top-level member of the body
  // Its value (never null) -> the constraint it sets; nullopt when it sets none (text format "text").
  std::function<std::optional<BodyConstraint>(const Field&)> map;
};

// The constraint the body's sources set, read in the order the body wrote them, so that a second
// source is the one the 400 names.
std::optional<BodyConstraint> one_constraint_source(const Field& body, std::initializer_list<ConstraintSource> sources);

}  // namespace ninfer::api
