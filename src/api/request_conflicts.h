// What a body constraint cannot be combined with (DESIGN.md section 3), checked once the constraint
// is known, alike for every protocol: a grammar, regex or choice with active tools (the tool-call
// wrapper needs a grammar of its own), stop strings with a constraint or active tools (a stop string
// could cut a guaranteed output short), ignore_eos with either (sampling past EOS would run a
// guaranteed output past its end). The protocols differ only in the names they give these fields.
#pragma once

#include <optional>
#include <string>

#include "api/body_constraint.h"
#include "api/chat_request.h"

namespace ninfer::api {

struct ConflictWording {
  std::string stop_field = "stop";          // Anthropic: "stop_sequences"
  std::string stop_noun = "stop string";    // Anthropic: "stop sequence"
  std::string none_choice = "\"none\"";     // the tool_choice that turns tools off; Anthropic: {"type": "none"}
  bool has_tools = true;                    // Completions has no tools: its ignore_eos message names none
};

// Sets the body constraint (and the field it came from) on `request`, then rejects, with a 400 at the
// field at fault, whatever cannot be combined with it or with active tools.
void apply_body_constraint(std::optional<BodyConstraint> constraint, bool tools_active, const ConflictWording& wording,
                           ChatRequest& request);

}  // namespace ninfer::api
