#include "cli/error_report.h"

#include <iostream>

#include <nlohmann/json.hpp>

#include "cli/constraint_flags.h"
#include "models/model_error.h"
#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"

namespace ninfer::cli {

int report_request_error(const std::exception& e) {
  if (dynamic_cast<const ConstraintError*>(&e)) return report_constraint_error(e);
  nlohmann::json err;
  if (auto* re = dynamic_cast<const RequestError*>(&e)) {
    err = {{"kind", request_error_kind_name(re->kind())}, {"message", re->what()}, {"location", nullptr}};
  } else if (auto* me = dynamic_cast<const models::ModelError*>(&e)) {
    err = {{"kind", "model"},
           {"model_kind", models::model_error_kind_name(me->kind())},
           {"message", me->what()},
           {"location", me->location()}};
  } else {
    err = {{"kind", "error"}, {"message", e.what()}, {"location", nullptr}};
  }
  std::cout << nlohmann::json{{"error", err}}.dump() << std::endl;
  return 2;
}

}  // namespace ninfer::cli
