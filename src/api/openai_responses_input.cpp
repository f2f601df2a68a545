#include "api/openai_responses_input.h"

#include <initializer_list>
#include <string>
#include <string_view>

#include "api/content_parts.h"
#include "api/openai_chat_messages.h"

namespace ninfer::api {
namespace {

// A part list or a string -> text; `allowed` are the part types that carry text in this place.
std::string parts_text(const Field& content, std::initializer_list<std::string_view> allowed) {
  return joined_content_text(content, "a string or an array of content parts", [&](const Field& part, const Field& type) {
    bool known = false;
    for (std::string_view a : allowed) known = known || type.string() == a;
    if (!known)
      type.fail("Content parts of type '" + type.string() + "' are not supported here: this server reads text only (" +
                    (allowed.size() == 1 ? "parts of type 'input_text'" : std::string("'input_text' or 'output_text' parts")) +
                    ").",
                "unsupported_value");
    if (type.string() == "output_text") {
      part.only_members({"type", "text", "annotations", "logprobs"});
      if (auto a = part.optional_member("annotations")) a->array();
      if (auto l = part.optional_member("logprobs")) l->array();
    } else {
      part.only_members({"type", "text"});
    }
    return part.required_member("text").string();
  });
}

// The text of a reasoning item: its reasoning_text content, else its summary.
std::string reasoning_text(const Field& item) {
  if (auto e = item.optional_member("encrypted_content"))
    e->fail("'" + e->path() + "' is not supported: this server neither makes nor reads encrypted reasoning.",
            "unsupported_parameter");
  auto read = [](const Field& list, std::string_view part_type) {
    std::string text;
    for (size_t j = 0; j < list.array().size(); ++j) {
      const Field part = list.element(j);
      part.object();
      part.only_members({"type", "text"});
      part.required_member("type").one_of({part_type});
      if (j > 0) text += "\n";
      text += part.required_member("text").string();
    }
    return text;
  };
  const Field summary = item.required_member("summary");
  std::string text = read(summary, "summary_text");
  if (auto content = item.optional_member("content"); content && !content->array().empty())
    text = read(*content, "reasoning_text");
  return text;
}

class MessageBuilder {
 public:
  void text_message(const char* role, std::string text) { push({{"role", role}, {"content", std::move(text)}}); }

  void message(const Field& item) {
    const std::string& role = item.required_member("role").one_of({"user", "assistant", "system", "developer"});
    item.only_members({"type", "role", "content", "id", "status", "phase"});
    if (auto t = item.optional_member("type")) t->one_of({"message"});
    if (auto id = item.optional_member("id")) id->string();
    if (auto s = item.optional_member("status")) s->one_of({"in_progress", "completed", "incomplete"});
    if (auto p = item.optional_member("phase")) p->one_of({"commentary", "final_answer"});
    const Field content = item.required_member("content");
    if (role == "assistant") {
      start_assistant(parts_text(content, {"output_text", "input_text"}));
      return;
    }
    // Templates know only "system"; Qwen3's would drop a developer message silently.
    push({{"role", role == "developer" ? "system" : role}, {"content", parts_text(content, {"input_text"})}});
  }

  void function_call(const Field& item) {
    item.only_members({"type", "call_id", "name", "arguments", "id", "status"});
    if (auto id = item.optional_member("id")) id->string();
    if (auto s = item.optional_member("status")) s->one_of({"in_progress", "completed", "incomplete"});
    Json call = {{"id", item.required_member("call_id").string()},
                 {"type", "function"},
                 {"function",
                  {{"name", item.required_member("name").string()},
                   {"arguments", tool_call_arguments(item.required_member("arguments"))}}}};
    // Calls right after an assistant message (or another call) belong to that turn.
    if (reasoning_.empty() && !messages_.empty() && messages_.back()["role"] == "assistant") {
      Json& last = messages_.back();
      if (!last.contains("tool_calls")) last["tool_calls"] = Json::array();
      last["tool_calls"].push_back(std::move(call));
      return;
    }
    start_assistant("");
    messages_.back()["tool_calls"] = Json::array({std::move(call)});
  }

  void function_call_output(const Field& item) {
    item.only_members({"type", "call_id", "output", "id", "status"});
    if (auto id = item.optional_member("id")) id->string();
    if (auto s = item.optional_member("status")) s->one_of({"in_progress", "completed", "incomplete"});
    push({{"role", "tool"},
          {"content", parts_text(item.required_member("output"), {"input_text"})},
          {"tool_call_id", item.required_member("call_id").string()}});
  }

  void reasoning(const Field& item) {
    item.only_members({"type", "id", "summary", "content", "encrypted_content", "status"});
    if (auto id = item.optional_member("id")) id->string();
    if (auto s = item.optional_member("status")) s->one_of({"in_progress", "completed", "incomplete"});
    const std::string text = reasoning_text(item);
    reasoning_ += reasoning_.empty() || text.empty() ? text : "\n" + text;
    pending_reasoning_ = true;
  }

  Json finish() {
    flush_reasoning();
    return std::move(messages_);
  }

 private:
  // An assistant message; the reasoning items before it become its reasoning_content.
  void start_assistant(std::string content) {
    Json m = {{"role", "assistant"}, {"content", std::move(content)}};
    if (pending_reasoning_) m["reasoning_content"] = reasoning_;
    reasoning_.clear();
    pending_reasoning_ = false;
    messages_.push_back(std::move(m));
  }
  void push(Json message) {
    flush_reasoning();
    messages_.push_back(std::move(message));
  }
  // Reasoning that no assistant output followed: the assistant thought and said nothing.
  void flush_reasoning() {
    if (pending_reasoning_) start_assistant("");
  }

  Json messages_ = Json::array();
  std::string reasoning_;
  bool pending_reasoning_ = false;
};

}  // namespace

Json map_responses_input(const Field& input, const std::optional<Field>& instructions) {
  MessageBuilder b;
  if (instructions) b.text_message("system", instructions->string());
  if (input.json().is_string()) {
    b.text_message("user", input.string());
    return b.finish();
  }
  if (!input.json().is_array()) input.fail_type("a string or an array of input items");
  if (input.json().empty())
    input.fail("Invalid '" + input.path() + "': empty array. Expected an array with at least one input item.",
               "empty_array");
  for (size_t i = 0; i < input.json().size(); ++i) {
    const Field item = input.element(i);
    item.object();
    const auto type = item.optional_member("type");
    const std::string kind = type ? type->string() : "message";  // easy input messages leave the type out
    if (kind == "message") b.message(item);
    else if (kind == "function_call") b.function_call(item);
    else if (kind == "function_call_output") b.function_call_output(item);
    else if (kind == "reasoning") b.reasoning(item);
    else if (kind == "item_reference")
      type->fail("Input items of type 'item_reference' are not supported: this server stores no responses; send the "
                 "items themselves.",
                 "unsupported_value");
    else
      type->fail("Input items of type '" + kind + "' are not supported: this server reads message, function_call, "
                 "function_call_output and reasoning items.",
                 "unsupported_value");
  }
  return b.finish();
}

}  // namespace ninfer::api
