#include "api/request_conflicts.h"

namespace ninfer::api {

void apply_body_constraint(std::optional<BodyConstraint> constraint, bool tools_active, const ConflictWording& w,
                           ChatRequest& req) {
  RequestOptions& ro = req.options;
  if (constraint) {
    const OutputConstraint::Kind kind = constraint->constraint.kind();
    const bool free_form = kind == OutputConstraint::Kind::Grammar || kind == OutputConstraint::Kind::Regex ||
                           kind == OutputConstraint::Kind::Choice;
    // One grammar can union a JSON body with the tool calls; a grammar, regex or choice cannot.
    if (free_form && tools_active)
      throw invalid_request(constraint->param, "Invalid '" + constraint->param +
                                                   "': a grammar, regex or choice constraint cannot be combined with "
                                                   "active tools (set 'tool_choice' to " + w.none_choice +
                                                   " or drop the tools).",
                            "conflicting_parameters");
    req.constraint_param = constraint->param;
    ro.constraint = std::move(constraint->constraint);
  }
  if (!ro.stop.empty() && (ro.constraint || tools_active))
    throw invalid_request(w.stop_field,
                          "Invalid '" + w.stop_field + "': " + w.stop_noun + "s cannot be combined with " +
                              (ro.constraint ? "an output constraint ('" + req.constraint_param + "')"
                                             : std::string("active tools")) +
                              ", which a " + w.stop_noun + " could cut short.",
                          "conflicting_parameters");
  if (ro.ignore_eos && (ro.constraint || tools_active))
    throw invalid_request("ignore_eos",
                          w.has_tools ? "Invalid 'ignore_eos': it cannot be combined with an output constraint or "
                                        "active tools."
                                      : "Invalid 'ignore_eos': it cannot be combined with an output constraint.",
                          "conflicting_parameters");
}

}  // namespace ninfer::api
