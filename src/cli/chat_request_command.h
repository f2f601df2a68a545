// `ninfer chat --request REQ.json [--model M] [--chat-template NAME|FILE]`: one OpenAI Chat
// Completions request body, mapped by src/api (the same mapping as the HTTP server), answered on
// stdout with the chat.completion object, or with an OpenAI-shaped error object.
#pragma once

#include <string>

#include "api/chat_request.h"

namespace ninfer::cli {

struct ChatRequestCommandOptions {
  int threads = 0;          // model threads; 0 = hardware concurrency
  int max_context = 4096;   // positions per request (prompt + output)
};

// Exit status: 0 with the chat.completion object; 2 when the request (or the template, or the
// model) is rejected before generating; 3 when generation failed (a dead end, non-finite logits).
// `stream` in the request is ignored: the final object is printed.
int run_chat_request(const std::string& request_path, const std::string& model, const std::string& chat_template_spec,
                     const ChatRequestCommandOptions& options = {});

// --chat-template NAME|FILE|FOLDER -> the template the request is rendered with (src/jinja's loader:
// bundled names, .jinja files, tokenizer configs, model folders); empty = the model's own. Throws
// std::runtime_error when the spec cannot be loaded.
api::ChatRequestDefaults chat_template_defaults(const std::string& chat_template_spec, bool has_tools);

}  // namespace ninfer::cli
