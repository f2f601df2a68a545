// The exact bytes Qwen chat templates use around thinking and tool calls (FACTS.md 5.1, 5.2), as
// the grammar and the parser both need them.
#pragma once

#include <string_view>

namespace ninfer::qwen3 {

inline constexpr std::string_view kThinkOpen = "<think>", kThinkClose = "\n</think>\n\n";
inline constexpr std::string_view kThinkEndTag = "</think>";
inline constexpr std::string_view kAssistantTurn = "<|im_start|>assistant";
inline constexpr std::string_view kToolCallOpen = "<tool_call>", kToolCallClose = "</tool_call>";
// Between two calls every template writes one newline.
inline constexpr std::string_view kCallSeparator = "\n";
// Qwen3 JSON: <tool_call>\n{"name": "NAME", "arguments": ARGS}\n</tool_call>
inline constexpr std::string_view kJsonCallHead = "<tool_call>\n{\"name\": \"", kJsonCallMiddle = "\", \"arguments\": ",
                                  kJsonCallTail = "}\n</tool_call>";
// Qwen XML: <tool_call>\n<function=NAME>\n(<parameter=P>\nVALUE\n</parameter>\n)*</function>\n</tool_call>
inline constexpr std::string_view kXmlCallHead = "<tool_call>\n<function=", kXmlFunctionEnd = "</function>\n</tool_call>";
inline constexpr std::string_view kXmlParameterOpen = "<parameter=", kXmlParameterClose = "\n</parameter>\n";
inline constexpr std::string_view kXmlValueEnd = "\n</parameter>";

}  // namespace ninfer::qwen3
