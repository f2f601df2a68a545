#include "api/anthropic_messages_content.h"

#include <string>

#include "api/content_parts.h"

namespace ninfer::api {
namespace {

// Request-side members every block may carry that change nothing here (prompt caching is a billing
// hint): type-checked, then ignored.
void check_cache_control(const Field& block) {
  if (auto c = block.optional_member("cache_control")) c->object();
}

[[noreturn]] void reject_block_type(const Field& type, const std::string& where) {
  type.fail("Content blocks of type '" + type.string() + "' are not supported " + where +
                ": this server reads text, and tool_use, tool_result and thinking blocks where Anthropic allows them.",
            "unsupported_value");
}

// {type: "text", text, cache_control?, citations?}
const std::string& text_block(const Field& block) {
  block.only_members({"type", "text", "cache_control", "citations"});
  check_cache_control(block);
  if (auto c = block.optional_member("citations"))
    c->fail("'" + c->path() + "' is not supported: this server does not cite documents.", "unsupported_parameter");
  return block.required_member("text").string();
}

// A string, or an array of text blocks joined with "\n" (system prompts, tool results).
std::string text_of(const Field& content, const std::string& where) {
  return joined_content_text(content, "a string or an array of text blocks", [&](const Field& block, const Field& type) {
    if (type.string() != "text") reject_block_type(type, where);
    return text_block(block);
  });
}

void append_text(Json& message, const std::string& text) {
  std::string& content = message["content"].get_ref<std::string&>();
  if (!content.empty()) content += "\n";
  content += text;
}

// {type: "tool_result", tool_use_id, content?, is_error?, cache_control?} -> a tool message.
Json tool_result(const Field& block) {
  block.only_members({"type", "tool_use_id", "content", "is_error", "cache_control"});
  check_cache_control(block);
  Json out = {{"role", "tool"}, {"tool_call_id", block.required_member("tool_use_id").string()}};
  auto content = block.optional_member("content");
  out["content"] = content ? text_of(*content, "in a tool result") : std::string();
  // Kept on the message for templates that read it; Qwen's templates render the content only.
  if (auto e = block.optional_member("is_error"); e && e->boolean()) out["is_error"] = true;
  return out;
}

// {type: "tool_use", id, name, input, cache_control?} -> a tool call whose arguments are `input`.
Json tool_use(const Field& block) {
  block.only_members({"type", "id", "name", "input", "cache_control"});
  check_cache_control(block);
  const std::string& id = block.required_member("id").string();
  const std::string& name = block.required_member("name").string();
  const Field input = block.required_member("input");
  input.object();
  return {{"id", id}, {"type", "function"}, {"function", {{"name", name}, {"arguments", input.json()}}}};
}

Json assistant_turn(const Field& content) {
  Json out = {{"role", "assistant"}, {"content", ""}};
  if (content.json().is_string()) {
    out["content"] = content.string();
    return out;
  }
  std::string reasoning;
  bool has_reasoning = false;
  Json calls = Json::array();
  for_each_content_part(content, "a string or an array of content blocks", [&](const Field& block, const Field& type) {
    const std::string& kind = type.string();
    if (kind == "text") {
      append_text(out, text_block(block));
    } else if (kind == "thinking") {
      // The signature is Anthropic's proof of its own thinking; ours are "" and nothing checks them.
      block.only_members({"type", "thinking", "signature"});
      if (auto s = block.optional_member("signature")) s->string();
      if (has_reasoning) reasoning += "\n";
      reasoning += block.required_member("thinking").string();
      has_reasoning = true;
    } else if (kind == "tool_use") {
      calls.push_back(tool_use(block));
    } else {
      reject_block_type(type, "in assistant messages");
    }
  });
  if (has_reasoning) out["reasoning_content"] = reasoning;
  if (!calls.empty()) out["tool_calls"] = std::move(calls);
  return out;
}

// A user turn may become several messages: its text, and one tool message per tool_result.
void user_turn(const Field& content, Json& out) {
  if (content.json().is_string()) {
    out.push_back({{"role", "user"}, {"content", content.string()}});
    return;
  }
  bool open_text = false;  // the last message pushed is this turn's text, to be continued
  for_each_content_part(content, "a string or an array of content blocks", [&](const Field& block, const Field& type) {
    const std::string& kind = type.string();
    if (kind == "text") {
      const std::string& text = text_block(block);
      if (open_text) {
        append_text(out.back(), text);
      } else {
        out.push_back({{"role", "user"}, {"content", text}});
        open_text = true;
      }
    } else if (kind == "tool_result") {
      out.push_back(tool_result(block));
      open_text = false;
    } else {
      reject_block_type(type, "in user messages");
    }
  });
  if (content.json().empty()) out.push_back({{"role", "user"}, {"content", ""}});
}

}  // namespace

AnthropicConversation map_anthropic_messages(const std::optional<Field>& system, const Field& messages) {
  AnthropicConversation conv;
  if (system) {
    conv.messages.push_back({{"role", "system"}, {"content", text_of(*system, "in 'system'")}});
    conv.paths.push_back(system->path());
  }
  if (messages.array().empty())
    messages.fail("Invalid '" + messages.path() + "': empty array. Expected an array with at least one message.",
                  "empty_array");
  for (size_t i = 0; i < messages.json().size(); ++i) {
    const Field m = messages.element(i);
    m.object();
    m.only_members({"role", "content"});
    const std::string& role = m.required_member("role").one_of({"user", "assistant"});
    const Field content = m.required_member("content");
    if (role == "assistant") conv.messages.push_back(assistant_turn(content));
    else user_turn(content, conv.messages);
    conv.ends_with_assistant = role == "assistant";
    conv.paths.resize(conv.messages.size(), m.path());
  }
  return conv;
}

}  // namespace ninfer::api
