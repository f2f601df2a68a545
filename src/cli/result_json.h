// One JSON representation of a generation result and its constraint report, shared by
// `ninfer generate --json`, `ninfer bench decode` (and later the HTTP entry points).
#pragma once

#include <nlohmann/json.hpp>

#include "ninfer/engine.h"

namespace ninfer::cli {

nlohmann::json constraint_report_json(const ConstraintReport& c);
// [{"pointer": ..., "suggestion": ...}, ...]
nlohmann::json suspected_typos_json(const std::vector<SuspectedTypo>& typos);
nlohmann::json generation_result_json(const GenerationResult& r);
// Prints {"error": {kind, message, location}} for a constraint, request or model error; returns 2.
int report_request_error(const std::exception& e);

}  // namespace ninfer::cli
