// OpenAI `chat.completion.chunk` stream: a role chunk, one chunk per delta (content,
// reasoning_content, tool_calls[i] with id/name first and argument fragments after), a final chunk
// with finish_reason, a usage chunk (choices: []) when stream_options.include_usage, and
// `data: [DONE]`. The last JSON chunk carries the constraint report.
#pragma once

#include <memory>

#include "api/openai_chat_response.h"
#include "api/protocol_stream.h"

namespace ninfer::api {

// `request` must outlive the stream (the ApiExchange owns both).
std::unique_ptr<ProtocolStream> make_openai_chat_stream(const ChatRequest& request, CompletionIds ids);

}  // namespace ninfer::api
