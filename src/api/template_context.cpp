#include "api/template_context.h"

namespace ninfer::api {

TemplateContextWriter::TemplateContextWriter(const Json& messages, const Json* tools, bool add_generation_prompt)
    : out_("{\"messages\":" + messages.dump()) {
  if (tools) out_ += ",\"tools\":" + tools->dump();
  out_ += add_generation_prompt ? ",\"add_generation_prompt\":true" : ",\"add_generation_prompt\":false";
}

void TemplateContextWriter::add(const std::string& key, const Json& value) {
  out_ += "," + Json(key).dump() + ":" + value.dump();
}

void add_chat_template_kwargs(const Field& body, std::string_view own_fields, TemplateContextWriter& context,
                              const std::function<void(const std::string& key, const Field& value)>& check) {
  const auto kwargs = body.optional_member("chat_template_kwargs");
  if (!kwargs) return;
  for (const auto& [key, value] : kwargs->object().items()) {
    const Field f = kwargs->member(key);
    if (key == "messages" || key == "tools" || key == "add_generation_prompt")
      f.fail("Invalid '" + f.path() + "': set '" + key + "' with " + std::string(own_fields) +
             ", not through chat_template_kwargs.");
    if (check) check(key, f);
    context.add(key, value);
  }
}

ChatPromptInput default_chat_prompt(const ChatRequestDefaults& defaults) {
  ChatPromptInput chat;
  chat.template_source = defaults.template_source;
  chat.bos_token = defaults.bos_token;
  chat.eos_token = defaults.eos_token;
  return chat;
}

void map_tool_call_format(const Field& body, ChatPromptInput& chat) {
  if (auto f = body.optional_member("tool_call_format"))
    chat.tool_format = f->one_of({"json", "xml"}) == "json" ? ToolCallFormat::Json : ToolCallFormat::Xml;
}

}  // namespace ninfer::api
