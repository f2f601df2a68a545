// The protocol-neutral chat request that every protocol mapping (OpenAI Chat today; Responses and
// Anthropic Messages next) produces, and that the CLI and the HTTP server hand to the Engine:
// prepare(request.prompt) -> submit(prepared, request.options).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ninfer/engine.h"

namespace ninfer::api {

// What the caller (the CLI's flags, the server's configuration) supplies when a request leaves it out.
struct ChatRequestDefaults {
  // The chat template source (already loaded from --chat-template); empty = the model's own template.
  std::string template_source;
  std::string bos_token, eos_token;  // variables that came with template_source
  // Whether a request may carry its own template source in `chat_template` (a vLLM extra); a server
  // shared by untrusted clients may turn it off.
  bool allow_request_template = true;
  int max_tokens = RequestOptions{}.max_tokens;  // when the request gives neither max_tokens field
  // The model name responses report when the request names none (the server's served model name).
  std::string served_model = "ninfer";
};

struct ChatRequest {
  PromptInput prompt;      // chat_prompt is set: the template context (context_json) and how to render it
  RequestOptions options;  // sampling, max_tokens, constraint, tool_choice, thinking budget, stop strings
  std::string model;       // as the request names it ("" when absent); the caller decides whether it must match
  bool stream = false;
  bool include_usage = false;  // stream_options.include_usage
  // The request field the body constraint came from ("response_format.json_schema.schema",
  // "structured_outputs.regex", ...; "" without one): constraint errors are reported against it.
  std::string constraint_param;
  bool request_template = false;  // the template came from the request's own `chat_template`
  // How the protocol the request came in names the fields the Engine reports in OpenAI Chat's
  // template layout. engine_errors applies them where it builds the ApiError, so that every
  // protocol's errors name its own fields; empty = Chat's own layout.
  // A whole param path: "tools[2].function.parameters.x" -> Responses "tools[2].parameters.x",
  // Anthropic "tools[2].input_schema.x"; "messages" -> Responses "input".
  std::function<std::string(const std::string&)> translate_param;
  // The same paths inside an error message's text (Anthropic has no param: the message names them).
  std::function<std::string(const std::string&)> translate_message;
  // The request path of each template message, where the mapping does not keep message indices
  // (Anthropic: `system` comes first, each tool_result is a message of its own): a param
  // "messages[k]..." becomes message_paths[k] + "...". Empty = the indices are the request's.
  std::vector<std::string> message_paths;
};

}  // namespace ninfer::api
