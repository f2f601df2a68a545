// GenerationResult -> OpenAI `chat.completion` object. The pieces (finish reason, message, usage)
// are separate so that the server's streamed chunks use the same mapping.
//
// Reasoning comes back as `reasoning_content` (vLLM before v0.26, SGLang, DeepSeek; the name the
// widest set of clients reads), only when there is some. Content is null when the turn holds only
// tool calls or only reasoning.
#pragma once

#include <cstdint>
#include <string>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

struct CompletionIds {
  std::string id;       // "chatcmpl-..."
  int64_t created = 0;  // Unix seconds
  std::string model;    // the model name the response reports
};

// A fresh "chatcmpl-<32 hex>" id created now.
CompletionIds new_completion_ids(std::string model);

// "stop" | "length" | "tool_calls" (a turn that stopped with calls); a length stays length. An
// error or cancelled result throws the ApiError it maps to.
std::string openai_finish_reason(const GenerationResult& result, const ChatRequest& request);
// {"role": "assistant", "content", "reasoning_content"?, "tool_calls"?}
Json openai_chat_message(const PreparedPrompt& prompt, const GenerationResult& result);
// {"id", "type": "function", "function": {"name", "arguments"}}
Json openai_tool_call(const ToolCall& call);
Json openai_usage(const Usage& usage);

// The whole non-streamed response, with the `constraint` report (null without one).
Json openai_chat_completion(const ChatRequest& request, const PreparedPrompt& prompt, const GenerationResult& result,
                            const CompletionIds& ids);

}  // namespace ninfer::api
