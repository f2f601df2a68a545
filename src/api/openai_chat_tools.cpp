#include "api/openai_chat_tools.h"

#include <string>
#include <vector>

#include "api/tool_choice_mapping.h"

namespace ninfer::api {
namespace {

// Checks one tool's outer shape and returns its function name.
std::string check_tool(const Field& tool) {
  tool.object();
  const Field type = tool.required_member("type");
  if (type.string() != "function")
    type.fail("Tools of type '" + type.string() + "' are not supported; use tools of type 'function'.",
              "unsupported_value");
  tool.only_members({"type", "function"});
  const Field function = tool.required_member("function");
  function.object();
  function.only_members({"name", "description", "parameters", "strict"});
  if (auto d = function.optional_member("description")) d->string();
  if (auto p = function.optional_member("parameters")) p->object();
  if (auto s = function.optional_member("strict")) s->boolean();
  return function.required_member("name").string();
}

ToolChoice map_tool_choice(const Field& choice, const std::vector<std::string>& declared) {
  if (choice.json().is_string()) return string_tool_choice(choice);
  if (!choice.json().is_object()) choice.fail_type("a string or an object");
  const Field type = choice.required_member("type");
  const std::string& kind = type.string();
  if (kind == "function")
    return named_tool_choice(chosen_tool_name(choice, declared, ToolNameLayout::Nested));
  if (kind != "allowed_tools")
    type.fail("Invalid value for '" + type.path() + "': expected 'function' or 'allowed_tools', but got '" + kind + "'.");
  choice.only_members({"type", "allowed_tools"});
  const Field allowed = choice.required_member("allowed_tools");
  allowed.object();
  allowed.only_members({"mode", "tools"});
  return allowed_tools_choice(allowed, declared, ToolNameLayout::Nested);
}

}  // namespace

ChatTools map_openai_tools(const Field& body) {
  ChatTools out;
  std::vector<std::string> names;
  if (auto tools = body.optional_member("tools")) {
    for (size_t i = 0; i < tools->array().size(); ++i) names.push_back(check_tool(tools->element(i)));
    if (!names.empty()) out.tools = &tools->json();
  }
  const auto choice = body.optional_member("tool_choice");
  const auto parallel = body.optional_member("parallel_tool_calls");
  const auto enforcement = body.optional_member("tool_enforcement");
  if (names.empty()) {
    // As OpenAI: these only mean something with tools.
    if (choice) choice->fail("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
    if (parallel)
      parallel->fail("Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
                     "specified.");
    map_tool_enforcement(enforcement);
    return out;
  }
  ToolChoice tc = choice ? map_tool_choice(*choice, names) : ToolChoice{};
  if (parallel && !parallel->boolean()) tc.parallel = false;
  if (auto e = map_tool_enforcement(enforcement)) tc.enforcement = *e;
  out.tool_choice = tc;
  return out;
}

}  // namespace ninfer::api
