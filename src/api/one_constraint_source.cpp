#include "api/one_constraint_source.h"

namespace ninfer::api {

std::optional<BodyConstraint> one_constraint_source(const Field& body,
                                                    std::initializer_list<ConstraintSource> sources) {
  std::optional<BodyConstraint> out;
  for (const auto& [key, value] : body.json().items()) {
    if (value.is_null()) continue;
    std::optional<BodyConstraint> next;
    for (const ConstraintSource& source : sources)
      if (key == source.key) next = source.map(body.member(key));
    if (!next) continue;
    if (out)
      throw invalid_request(next->param, "Invalid '" + next->param + "': a request takes one output constraint, and '" +
                                             out->param + "' already sets one.",
                            "conflicting_parameters");
    out = std::move(next);
  }
  return out;
}

}  // namespace ninfer::api
