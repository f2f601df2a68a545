// GenerationResult -> Anthropic's `message` object:
//   {id: "msg_…", type: "message", role: "assistant", model,
//    content: [{type: "thinking", thinking, signature: ""}?, {type: "text", text}?,
//              {type: "tool_use", id, name, input: {…}}*],
//    stop_reason, stop_sequence, usage {input_tokens, output_tokens, cache_*: 0}, constraint}
// The parts (stop reason, usage, tool ids, tool input) are separate so that the stream builds the
// same message from its events; the SDK's stream accumulation gives back this object.
#pragma once

#include <string>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

// "end_turn" | "max_tokens" | "stop_sequence" (GenerationResult::stop_sequence is set) | "tool_use"
// (a turn that stopped with calls). An error or cancelled result throws the ApiError it maps to.
std::string anthropic_stop_reason(const GenerationResult& result, const ChatRequest& request);
// Anthropic's tool-use ids start "toolu_": the frontend's "call_<hex>" becomes "toolu_<hex>".
std::string anthropic_tool_use_id(const std::string& call_id);
// A call's arguments JSON text as the tool_use `input` object (key order kept); {} when the text
// is not a JSON object.
Json anthropic_tool_input(const std::string& arguments);
// {input_tokens, output_tokens, cache_creation_input_tokens: 0, cache_read_input_tokens: 0}: no
// prompt cache is billed here.
Json anthropic_usage(int input_tokens, int output_tokens);

// The whole non-streamed response, with the `constraint` report (null without one).
Json anthropic_message(const ChatRequest& request, const PreparedPrompt& prompt, const GenerationResult& result,
                       const std::string& id, const std::string& model);

}  // namespace ninfer::api
