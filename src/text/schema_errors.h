// The JSON Schema front end's typed errors, located by JSON Pointer.
#pragma once

#include <string>

#include "ninfer/constraint_error.h"

namespace ninfer::text {

[[noreturn]] inline void throw_unsupported(const std::string& keyword, const std::string& pointer,
                                           const std::string& why = "") {
  throw ConstraintError(ConstraintErrorKind::UnsupportedSchema,
                        "keyword '" + keyword + "' is not supported" + (why.empty() ? "" : ": " + why) + " at '" +
                            pointer + "'")
      .at_pointer(pointer)
      .with_keyword(keyword);
}

[[noreturn]] inline void throw_invalid_schema(const std::string& pointer, const std::string& why) {
  throw ConstraintError(ConstraintErrorKind::InvalidJsonSchema, why + " at '" + pointer + "'").at_pointer(pointer);
}

}  // namespace ninfer::text
