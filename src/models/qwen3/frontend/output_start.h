// Where a chat turn's output starts, read from the rendered prompt.
#pragma once

#include <string_view>

#include "ninfer/chat.h"

namespace ninfer::qwen3 {

// Looks at the text after the last "<|im_start|>assistant\n" (the whole prompt when there is
// none): an open <think> (no "</think>" after the last "<think>") -> Thinking; a closed one ->
// Body; nothing at all after the turn header -> OptionalThinking when the template lets the model
// open <think> itself (`model_may_open_think`), else Body; other text (a continued message) -> Body.
OutputStart detect_output_start(std::string_view rendered_prompt, bool model_may_open_think);

}  // namespace ninfer::qwen3
