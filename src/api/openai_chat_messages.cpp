#include "api/openai_chat_messages.h"

#include <string>

#include "api/content_parts.h"

namespace ninfer::api {
namespace {

// Text content: a string, or a list of text parts joined with "\n" (vLLM's "string" content format).
std::string message_text(const Field& content) {
  return joined_content_text(content, "a string or an array of content parts", [](const Field& part, const Field& type) {
    if (type.string() != "text")
      type.fail("Content parts of type '" + type.string() +
                    "' are not supported: this server reads text only (parts of type 'text').",
                "unsupported_value");
    part.only_members({"type", "text"});
    return part.required_member("text").string();
  });
}

Json map_tool_calls(const Field& calls) {
  Json out = Json::array();
  for (size_t k = 0; k < calls.array().size(); ++k) {
    const Field call = calls.element(k);
    call.object();
    call.only_members({"id", "type", "function"});
    Json c = Json::object();
    if (auto id = call.optional_member("id")) c["id"] = id->string();
    if (auto type = call.optional_member("type")) type->one_of({"function"});
    c["type"] = "function";
    const Field function = call.required_member("function");
    function.object();
    function.only_members({"name", "arguments"});
    c["function"] = {{"name", function.required_member("name").string()},
                     {"arguments", tool_call_arguments(function.required_member("arguments"))}};
    out.push_back(std::move(c));
  }
  return out;
}

Json map_message(const Field& m) {
  m.object();
  const std::string& role = m.required_member("role").one_of({"system", "developer", "user", "assistant", "tool"});
  if (role == "assistant")
    m.only_members({"role", "content", "name", "tool_calls", "reasoning_content", "reasoning", "refusal", "annotations",
                    "audio", "function_call"});
  else if (role == "tool")
    m.only_members({"role", "content", "tool_call_id", "name"});
  else
    m.only_members({"role", "content", "name"});

  // OpenAI's developer messages take the place of system messages; chat templates know only "system".
  Json out = {{"role", role == "developer" ? "system" : role}};
  if (role == "assistant") {
    auto content = m.optional_member("content");  // null with tool_calls (or an empty prefill)
    out["content"] = content ? message_text(*content) : std::string();
  } else {
    out["content"] = message_text(m.required_member("content"));
  }

  if (role == "assistant") {
    auto reasoning_content = m.optional_member("reasoning_content");
    auto reasoning = m.optional_member("reasoning");  // vLLM's newer name for the same text
    if (reasoning_content && reasoning && reasoning_content->string() != reasoning->string())
      reasoning->fail("Invalid value for '" + reasoning->path() + "': it differs from '" + reasoning_content->path() +
                      "'; give the reasoning once.");
    if (reasoning_content) out["reasoning_content"] = reasoning_content->string();
    else if (reasoning) out["reasoning_content"] = reasoning->string();
    if (auto calls = m.optional_member("tool_calls")) out["tool_calls"] = map_tool_calls(*calls);
    // What the SDKs echo back from a response message: accepted, and read by no chat template.
    if (auto refusal = m.optional_member("refusal")) refusal->string();
    if (auto annotations = m.optional_member("annotations")) annotations->array();
    if (auto audio = m.optional_member("audio"))
      audio->fail("'" + audio->path() + "' is not supported: this server reads text only.", "unsupported_parameter");
    if (auto call = m.optional_member("function_call"))
      call->fail("'" + call->path() + "' is deprecated and not supported; use 'tool_calls'.", "unsupported_parameter");
  }
  if (role == "tool") out["tool_call_id"] = m.required_member("tool_call_id").string();
  if (auto name = m.optional_member("name")) out["name"] = name->string();
  return out;
}

}  // namespace

Json tool_call_arguments(const Field& arguments) {
  if (arguments.json().is_object()) return arguments.json();
  const std::string& text = arguments.string();
  Json parsed;
  try {
    parsed = Json::parse(text);
    check_request_depth(parsed);
  } catch (const Json::exception& e) {
    arguments.fail("Invalid value for '" + arguments.path() + "': the arguments are not valid JSON (" + e.what() + ").");
  } catch (const ApiError& e) {
    arguments.fail("Invalid value for '" + arguments.path() + "': " + e.message);
  }
  if (!parsed.is_object())
    arguments.fail("Invalid value for '" + arguments.path() + "': the arguments must be a JSON object, but they are " +
                   json_type_phrase(parsed) + ".");
  return parsed;
}

Json map_openai_messages(const Field& messages) {
  if (messages.array().empty())
    messages.fail("Invalid '" + messages.path() + "': empty array. Expected an array with at least one message.",
                  "empty_array");
  Json out = Json::array();
  for (size_t i = 0; i < messages.json().size(); ++i) out.push_back(map_message(messages.element(i)));
  return out;
}

}  // namespace ninfer::api
