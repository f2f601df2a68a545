// Engine results for the response and stream tests of every protocol, built as the Engine builds them.
#pragma once

#include <utility>

#include "ninfer/engine.h"

namespace ninfer::api::testing {

// What Engine::prepare returns for a chat prompt (the responses read only that it is one).
inline PreparedPrompt chat_prompt() {
  PreparedPrompt p;
  p.chat = true;
  return p;
}

// A chat turn that ended with `finish`: `text` is the reasoning then the content, as generated.
inline GenerationResult finished_chat(ChatOutput out, FinishReason finish, Usage usage) {
  GenerationResult r;
  r.finish_reason = finish;
  r.text = out.reasoning + out.content;
  r.chat = std::move(out);
  r.usage = usage;
  return r;
}

}  // namespace ninfer::api::testing
