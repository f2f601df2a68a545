// What every chat protocol hands the chat template (ChatPromptInput): its variables as JSON text
// (context_json) and the template to render them with. The variables are written member by member,
// so that messages and tools are dumped once and never copied: messages, tools (when there are
// any), add_generation_prompt, then what the protocol adds (chat_template_kwargs, enable_thinking).
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "api/chat_request.h"
#include "api/request_field.h"

namespace ninfer::api {

class TemplateContextWriter {
 public:
  // `tools`: the template's nested tools array, or null when the request declares none.
  TemplateContextWriter(const Json& messages, const Json* tools, bool add_generation_prompt);
  void add(const std::string& key, const Json& value);
  std::string finish() const { return out_ + "}"; }

 private:
  std::string out_;
};

// The vLLM extra `chat_template_kwargs`: each member joins the context. messages, tools and
// add_generation_prompt are rejected there ("set 'tools' with <own_fields>, not through
// chat_template_kwargs"); `check` sees every other member before it is added.
void add_chat_template_kwargs(const Field& body, std::string_view own_fields, TemplateContextWriter& context,
                              const std::function<void(const std::string& key, const Field& value)>& check = {});

// The caller's template (ChatRequestDefaults) with nothing else set.
ChatPromptInput default_chat_prompt(const ChatRequestDefaults& defaults);
// NInfer's `tool_call_format`: "json" | "xml"; absent = the template's own.
void map_tool_call_format(const Field& body, ChatPromptInput& chat);

}  // namespace ninfer::api
