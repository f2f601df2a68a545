// Splits a Qwen chat turn's output (finished or cut off) into reasoning, content and tool calls.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ninfer/chat.h"

namespace ninfer::qwen3 {

// - reasoning: the thinking text (without "<think>\n" and the close "\n</think>"); a cut-off
//   thinking phase is all reasoning (a trailing partial close is dropped). Never in content.
// - content: the body text before the first "<tool_call>", without the separator the template
//   writes before a call ("\n" for JSON, "\n\n" for XML); non-call text between or after calls
//   (possible only without a grammar) is appended; a partial "<tool_call" after the last call is
//   dropped (the next call being opened), before any call it is text (the language lets text end so).
// - tool_calls: each closed call, arguments typed by the tool's schema (XML: FACTS.md 5.2; JSON:
//   the arguments object re-serialised compactly). A cut-off call (no "</tool_call>") is dropped
//   and its text is not content; a closed call that does not parse stays in content as text.
// Ids are "call_" + 24 lowercase hex, a function of id_seed and the call's index.
ChatOutput parse_chat_output(std::string_view text, OutputStart start, const std::vector<ToolDefinition>& tools,
                             ToolCallFormat format, uint64_t id_seed);

// Reads closed calls as parse_chat_output reads the calls it finds, the tools' schemas parsed once
// (the stream parser reads each call, and each XML parameter, as it closes).
class ToolCallReader {
 public:
  ToolCallReader(std::vector<ToolDefinition> tools, ToolCallFormat format);
  // One call's text, "<tool_call>" to "</tool_call>" included: the call (id left empty), or nullopt
  // when the text stays content.
  std::optional<ToolCall> read(std::string_view whole) const;

 private:
  struct Impl;
  std::shared_ptr<const Impl> impl_;
};

// The id parse_chat_output gives the call at `index`.
std::string tool_call_id(uint64_t id_seed, size_t index);

}  // namespace ninfer::qwen3
