#include "ninfer/constraint_error.h"

namespace ninfer {

const char* constraint_error_kind_name(ConstraintErrorKind kind) {
  switch (kind) {
    case ConstraintErrorKind::InvalidGrammar: return "InvalidGrammar";
    case ConstraintErrorKind::InvalidJsonSchema: return "InvalidJsonSchema";
    case ConstraintErrorKind::UnsupportedSchema: return "UnsupportedSchema";
    case ConstraintErrorKind::Unsatisfiable: return "Unsatisfiable";
    case ConstraintErrorKind::InvalidRegex: return "InvalidRegex";
    case ConstraintErrorKind::InvalidChoice: return "InvalidChoice";
    case ConstraintErrorKind::LimitExceeded: return "LimitExceeded";
  }
  return "Unknown";
}

ConstraintError limit_exceeded(const std::string& name, uint64_t value, const std::string& what) {
  return ConstraintError(ConstraintErrorKind::LimitExceeded,
                         what + " exceeds the limit " + name + " = " + std::to_string(value))
      .with_limit(name, value);
}

}  // namespace ninfer
