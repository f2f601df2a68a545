#include "models/qwen3/frontend/output_start.h"

#include "models/qwen3/frontend/chat_format.h"

namespace ninfer::qwen3 {

OutputStart detect_output_start(std::string_view prompt, bool model_may_open_think) {
  std::string_view tail = prompt;
  if (const size_t at = prompt.rfind(kAssistantTurn); at != std::string_view::npos) {
    tail = prompt.substr(at + kAssistantTurn.size());
    if (!tail.empty() && tail.front() == '\n') tail.remove_prefix(1);
  }
  const size_t open = tail.rfind(kThinkOpen);
  if (open != std::string_view::npos) {
    const bool closed = tail.find(kThinkEndTag, open) != std::string_view::npos;
    return closed ? OutputStart::Body : OutputStart::Thinking;
  }
  if (tail.empty() && model_may_open_think) return OutputStart::OptionalThinking;
  return OutputStart::Body;
}

}  // namespace ninfer::qwen3
