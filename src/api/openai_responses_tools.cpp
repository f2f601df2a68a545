#include "api/openai_responses_tools.h"

#include <string>
#include <vector>

namespace ninfer::api {
namespace {

// One flat function tool -> the nested Chat shape, members in the order the client wrote them.
Json nested_tool(const Field& tool, Json& echo) {
  tool.object();
  const Field type = tool.required_member("type");
  if (type.string() != "function")
    type.fail("Tools of type '" + type.string() + "' are not supported: this server runs tools of type 'function' only.",
              "unsupported_value");
  tool.only_members({"type", "name", "description", "parameters", "strict", "defer_loading"});
  if (auto d = tool.optional_member("defer_loading"); d && d->boolean())
    d->fail("'" + d->path() + "' is not supported by this server (every tool is in the prompt).", "unsupported_value");
  tool.required_member("name").string();
  if (auto d = tool.optional_member("description")) d->string();
  if (auto p = tool.optional_member("parameters")) p->object();
  bool strict = true;  // OpenAI's Responses default
  if (auto s = tool.optional_member("strict")) strict = s->boolean();

  Json function = Json::object();
  for (const auto& [key, value] : tool.json().items())
    if (key != "type" && key != "defer_loading" && key != "strict" && !value.is_null()) function[key] = value;
  function["strict"] = strict;
  echo.push_back({{"type", "function"},
                  {"name", function["name"]},
                  {"description", function.contains("description") ? function["description"] : Json(nullptr)},
                  {"parameters", function.contains("parameters") ? function["parameters"] : Json(nullptr)},
                  {"strict", strict}});
  return {{"type", "function"}, {"function", std::move(function)}};
}

// {"type": "function", "name": NAME} naming one of the declared tools.
std::string chosen_tool_name(const Field& choice, const std::vector<std::string>& declared) {
  choice.object();
  choice.only_members({"type", "name"});
  choice.required_member("type").one_of({"function"});
  const Field name = choice.required_member("name");
  for (const auto& d : declared)
    if (d == name.string()) return d;
  name.fail("Invalid value for '" + name.path() + "': no tool named '" + name.string() + "' is declared in 'tools'.");
}

ToolChoice map_tool_choice(const Field& choice, const std::vector<std::string>& declared) {
  ToolChoice tc;
  if (choice.json().is_string()) {
    const std::string& mode = choice.one_of({"none", "auto", "required"});
    tc.mode = mode == "none" ? ToolChoiceMode::None : mode == "auto" ? ToolChoiceMode::Auto : ToolChoiceMode::Required;
    return tc;
  }
  if (!choice.json().is_object()) choice.fail_type("a string or an object");
  const Field type = choice.required_member("type");
  const std::string& kind = type.string();
  if (kind == "function") {
    // A named choice: exactly that tool, once (DESIGN.md section 6).
    tc.mode = ToolChoiceMode::Required;
    tc.allowed_names = {chosen_tool_name(choice, declared)};
    tc.parallel = false;
    return tc;
  }
  if (kind != "allowed_tools")
    type.fail("Invalid value for '" + type.path() + "': this server runs function tools only, so 'tool_choice' takes "
              "'function' or 'allowed_tools', but got '" + kind + "'.",
              "unsupported_value");
  choice.only_members({"type", "mode", "tools"});
  tc.mode = choice.required_member("mode").one_of({"auto", "required"}) == "auto" ? ToolChoiceMode::Auto
                                                                                   : ToolChoiceMode::Required;
  const Field tools = choice.required_member("tools");
  if (tools.array().empty())
    tools.fail("Invalid '" + tools.path() + "': empty array. Expected at least one tool.", "empty_array");
  for (size_t j = 0; j < tools.json().size(); ++j) tc.allowed_names.push_back(chosen_tool_name(tools.element(j), declared));
  return tc;
}

}  // namespace

ResponsesTools map_responses_tools(const Field& body) {
  ResponsesTools out;
  std::vector<std::string> names;
  if (auto tools = body.optional_member("tools")) {
    Json nested = Json::array();
    for (size_t i = 0; i < tools->array().size(); ++i) {
      nested.push_back(nested_tool(tools->element(i), out.echo));
      names.push_back(nested.back()["function"]["name"].get<std::string>());
    }
    if (!names.empty()) out.template_tools = std::move(nested);
  }
  const auto choice = body.optional_member("tool_choice");
  const auto parallel = body.optional_member("parallel_tool_calls");
  const auto enforcement = body.optional_member("tool_enforcement");
  if (parallel) out.parallel_tool_calls = parallel->boolean();
  if (choice) out.tool_choice_echo = choice->json();
  if (names.empty()) {
    // A response repeats tool_choice and parallel_tool_calls, so clients send them back without tools:
    // what means nothing without tools passes, what cannot be honoured is rejected.
    if (choice && !(choice->json().is_string() && choice->one_of({"none", "auto", "required"}) != "required"))
      choice->fail("Invalid value for 'tool_choice': a choice that requires a tool call needs 'tools'.");
    if (enforcement) enforcement->one_of({"basic", "automatic"});
    return out;
  }
  ToolChoice tc = choice ? map_tool_choice(*choice, names) : ToolChoice{};
  if (!out.parallel_tool_calls) tc.parallel = false;
  if (enforcement)
    tc.enforcement = enforcement->one_of({"basic", "automatic"}) == "basic" ? ToolEnforcement::Basic
                                                                             : ToolEnforcement::Automatic;
  out.tool_choice = tc;
  return out;
}

}  // namespace ninfer::api
