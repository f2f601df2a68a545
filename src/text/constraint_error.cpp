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
  }
  return "Unknown";
}

}  // namespace ninfer
