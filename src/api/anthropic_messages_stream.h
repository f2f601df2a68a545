// The Anthropic Messages stream: every SSE event's `event:` line is its data's `type`.
//   message_start {message: the message with empty content, usage {input_tokens: the whole prompt,
//   output_tokens: 0}}
//   then per content block: content_block_start {index, content_block}, content_block_delta
//   {index, delta: thinking_delta | text_delta | input_json_delta {partial_json}}, content_block_stop
//   message_delta {delta: {stop_reason, stop_sequence}, usage}, message_stop {constraint}.
// Blocks follow the turn: thinking, then text, then one tool_use block per call (its arguments
// JSON as input_json_delta fragments). A block closes when the next kind of output starts, so one
// block is open at a time and indices count up from 0. Accumulated as the SDK's MessageStream does,
// the events give back anthropic_message's object (its `constraint` travels on message_stop).
#pragma once

#include <memory>
#include <string>

#include "api/chat_request.h"
#include "api/protocol_stream.h"

namespace ninfer::api {

// `request` supplies the fields errors are reported against; `id` and `model` are the message's.
std::unique_ptr<ProtocolStream> make_anthropic_message_stream(const ChatRequest& request,
                                                              const PreparedPrompt& prompt, std::string id,
                                                              std::string model);

}  // namespace ninfer::api
