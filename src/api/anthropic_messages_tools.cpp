#include "api/anthropic_messages_tools.h"

#include <string>
#include <vector>

#include "api/tool_choice_mapping.h"

namespace ninfer::api {
namespace {

// One client tool -> {type: "function", function: {...}}; keeps the schema's key order.
Json convert_tool(const Field& tool) {
  tool.object();
  if (auto type = tool.optional_member("type"); type && type->string() != "custom")
    type->fail("Tools of type '" + type->string() +
                   "' (Anthropic server tools) are not supported; declare client tools (type 'custom' or no type) "
                   "with an input_schema.",
               "unsupported_value");
  tool.only_members({"type", "name", "description", "input_schema", "strict", "cache_control", "eager_input_streaming",
                     "input_examples", "defer_loading", "allowed_callers"});
  for (std::string_view key : {"input_examples", "defer_loading", "allowed_callers"})
    if (auto f = tool.optional_member(key))
      f->fail("'" + f->path() + "' is not supported by this server.", "unsupported_parameter");
  if (auto c = tool.optional_member("cache_control")) c->object();
  // Arguments stream as they are generated whatever this says.
  if (auto e = tool.optional_member("eager_input_streaming")) e->boolean();

  Json function = Json::object();
  function["name"] = tool.required_member("name").string();
  if (auto d = tool.optional_member("description")) function["description"] = d->string();
  function["parameters"] = tool.required_member("input_schema").object();
  if (auto s = tool.optional_member("strict")) function["strict"] = s->boolean();
  return {{"type", "function"}, {"function", std::move(function)}};
}

ToolChoice map_tool_choice(const Field& choice, const std::vector<std::string>& declared) {
  choice.object();
  const std::string& type = choice.required_member("type").one_of({"auto", "any", "tool", "none"});
  ToolChoice tc;
  if (type == "none") {
    choice.only_members({"type"});
    tc.mode = ToolChoiceMode::None;
    return tc;
  }
  if (type == "tool") {
    choice.only_members({"type", "name", "disable_parallel_tool_use"});
    tc = named_tool_choice(declared_tool_name(choice.required_member("name"), declared));
  } else {
    choice.only_members({"type", "disable_parallel_tool_use"});
    tc.mode = type == "auto" ? ToolChoiceMode::Auto : ToolChoiceMode::Required;
  }
  if (auto d = choice.optional_member("disable_parallel_tool_use"); d && d->boolean()) tc.parallel = false;
  return tc;
}

}  // namespace

AnthropicTools map_anthropic_tools(const Field& body) {
  AnthropicTools out;
  std::vector<std::string> names;
  if (auto tools = body.optional_member("tools")) {
    Json converted = Json::array();
    for (size_t i = 0; i < tools->array().size(); ++i) {
      converted.push_back(convert_tool(tools->element(i)));
      names.push_back(converted.back()["function"]["name"].get<std::string>());
    }
    if (!names.empty()) out.tools = std::move(converted);
  }
  const auto choice = body.optional_member("tool_choice");
  const auto enforcement = body.optional_member("tool_enforcement");
  if (names.empty()) {
    // {type: "none"} without tools asks for what already holds; any other choice needs tools.
    if (choice && !(choice->json().is_object() && choice->json().value("type", Json()) == "none"))
      choice->fail("Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.");
    if (choice) map_tool_choice(*choice, names);
    map_tool_enforcement(enforcement);
    return out;
  }
  ToolChoice tc = choice ? map_tool_choice(*choice, names) : ToolChoice{};
  if (auto e = map_tool_enforcement(enforcement)) tc.enforcement = *e;
  out.tool_choice = tc;
  return out;
}

}  // namespace ninfer::api
