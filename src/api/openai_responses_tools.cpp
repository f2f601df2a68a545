#include "api/openai_responses_tools.h"

#include <string>
#include <vector>

#include "api/tool_choice_mapping.h"

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

ToolChoice map_tool_choice(const Field& choice, const std::vector<std::string>& declared) {
  if (choice.json().is_string()) return string_tool_choice(choice);
  if (!choice.json().is_object()) choice.fail_type("a string or an object");
  const Field type = choice.required_member("type");
  const std::string& kind = type.string();
  if (kind == "function") return named_tool_choice(chosen_tool_name(choice, declared, ToolNameLayout::Flat));
  if (kind != "allowed_tools")
    type.fail("Invalid value for '" + type.path() + "': this server runs function tools only, so 'tool_choice' takes "
              "'function' or 'allowed_tools', but got '" + kind + "'.",
              "unsupported_value");
  choice.only_members({"type", "mode", "tools"});
  return allowed_tools_choice(choice, declared, ToolNameLayout::Flat);
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
    map_tool_enforcement(enforcement);
    return out;
  }
  ToolChoice tc = choice ? map_tool_choice(*choice, names) : ToolChoice{};
  if (!out.parallel_tool_calls) tc.parallel = false;
  if (auto e = map_tool_enforcement(enforcement)) tc.enforcement = *e;
  out.tool_choice = tc;
  return out;
}

}  // namespace ninfer::api
