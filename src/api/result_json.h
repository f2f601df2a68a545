// One JSON representation of a generation result and its constraint report (DESIGN.md section 8),
// shared by `ninfer generate --json`, `ninfer bench decode`, the chat.completion object and the
// HTTP server's final events and request logs.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "ninfer/engine.h"

namespace ninfer::api {

nlohmann::json constraint_report_json(const ConstraintReport& c);
// Speculative decoding: {"drafted", "accepted", "illegal", "steps"}.
nlohmann::json draft_counts_json(const DraftCounts& d);
// [{"pointer": ..., "suggestion": ...}, ...]
nlohmann::json suspected_typos_json(const std::vector<SuspectedTypo>& typos);
nlohmann::json generation_result_json(const GenerationResult& r);

}  // namespace ninfer::api
