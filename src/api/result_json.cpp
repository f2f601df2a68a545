#include "api/result_json.h"

namespace ninfer::api {

nlohmann::json suspected_typos_json(const std::vector<SuspectedTypo>& typos) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& t : typos) list.push_back({{"pointer", t.pointer}, {"suggestion", t.suggestion}});
  return list;
}

nlohmann::json draft_counts_json(const DraftCounts& d) {
  return {{"drafted", d.drafted}, {"accepted", d.accepted}, {"illegal", d.illegal}, {"steps", d.steps}};
}

nlohmann::json constraint_report_json(const ConstraintReport& c) {
  nlohmann::json j{{"branch", c.branch},
                   {"complete", c.complete},
                   {"terminated", c.terminated},
                   {"cache", cache_outcome_name(c.cache)},
                   {"masked_positions", c.masked_positions},
                   {"mask_bytes_uploaded", c.mask_bytes_uploaded},
                   {"ignored_keywords", c.ignored_keywords}};
  // Only lenient strictness ever has suspected typos: the key stays out of other reports.
  if (!c.suspected_typos.empty()) j["suspected_typos"] = suspected_typos_json(c.suspected_typos);
  // Speculative decoding: present when the request verified drafts.
  if (c.drafts.drafted > 0) j["drafts"] = draft_counts_json(c.drafts);
  if (c.timed)
    j["cpu_seconds"] = {{"prepare", c.prepare_cpu_s}, {"mask", c.mask_cpu_s}, {"accept", c.accept_cpu_s}};
  return j;
}

nlohmann::json generation_result_json(const GenerationResult& r) {
  nlohmann::json j{{"text", r.text},
                   {"finish_reason", finish_reason_name(r.finish_reason)},
                   {"usage", {{"prompt_tokens", r.usage.prompt_tokens},
                              {"completion_tokens", r.usage.completion_tokens},
                              {"total_tokens", r.usage.prompt_tokens + r.usage.completion_tokens}}},
                   {"seed", r.seed},
                   {"constraint", r.constraint ? constraint_report_json(*r.constraint) : nlohmann::json(nullptr)}};
  if (r.error) j["error"] = {{"kind", request_error_kind_name(*r.error)}, {"message", r.error_message}};
  if (r.drafts.drafted > 0) j["drafts"] = draft_counts_json(r.drafts);
  if (r.chat) {
    nlohmann::json calls = nlohmann::json::array();
    for (const ToolCall& c : r.chat->tool_calls) calls.push_back({{"id", c.id}, {"name", c.name}, {"arguments", c.arguments}});
    j["chat"] = {{"reasoning", r.chat->reasoning},
                 {"content", r.chat->content},
                 {"tool_calls", calls},
                 {"thinking_closed", r.chat->thinking_closed}};
    j["usage"]["reasoning_tokens"] = r.usage.reasoning_tokens;
  }
  return j;
}

}  // namespace ninfer::api
