// GenerationResult -> Anthropic's `message` object:
//   {id: "msg_…", type: "message", role: "assistant", model,
//    content: [{type: "thinking", thinking, signature: ""}?, {type: "text", text}?,
//              {type: "tool_use", id, name, input: {…}}*],
//    stop_reason, stop_sequence, usage {input_tokens, output_tokens, cache_read_input_tokens,
//    cache_creation_input_tokens: 0}, constraint}
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
// Anthropic's split of the prompt: input_tokens + cache_read_input_tokens (the prefix cache's hits)
// + cache_creation_input_tokens (0: storing a prefix costs nothing extra here) = the prompt's tokens.
Json anthropic_usage(const Usage& usage);
// message_start's usage, sent before the request meets the prefix cache: the whole prompt as
// input_tokens, and no cache fields (unknown yet; message_delta's usage gives all of them).
Json anthropic_start_usage(int prompt_tokens);

// The whole non-streamed response, with the `constraint` report (null without one).
Json anthropic_message(const ChatRequest& request, const PreparedPrompt& prompt, const GenerationResult& result,
                       const std::string& id, const std::string& model);

}  // namespace ninfer::api
