#include "models/model_error.h"

namespace ninfer::models {

const char* model_error_kind_name(ModelErrorKind kind) {
  switch (kind) {
    case ModelErrorKind::NotFound: return "NotFound";
    case ModelErrorKind::BadHeader: return "BadHeader";
    case ModelErrorKind::Truncated: return "Truncated";
    case ModelErrorKind::MissingTensor: return "MissingTensor";
    case ModelErrorKind::WrongShape: return "WrongShape";
    case ModelErrorKind::UnknownDtype: return "UnknownDtype";
    case ModelErrorKind::BadConfig: return "BadConfig";
    case ModelErrorKind::Unsupported: return "Unsupported";
  }
  return "Unknown";
}

}  // namespace ninfer::models
