#include "api/tool_choice_mapping.h"

namespace ninfer::api {

ToolChoice string_tool_choice(const Field& choice) {
  const std::string& mode = choice.one_of({"none", "auto", "required"});
  ToolChoice tc;
  tc.mode = mode == "none" ? ToolChoiceMode::None : mode == "auto" ? ToolChoiceMode::Auto : ToolChoiceMode::Required;
  return tc;
}

ToolChoice named_tool_choice(const std::string& name) {
  ToolChoice tc;
  tc.mode = ToolChoiceMode::Required;
  tc.allowed_names = {name};
  tc.parallel = false;
  return tc;
}

const std::string& declared_tool_name(const Field& name, const std::vector<std::string>& declared) {
  for (const auto& d : declared)
    if (d == name.string()) return d;
  name.fail("Invalid value for '" + name.path() + "': no tool named '" + name.string() + "' is declared in 'tools'.");
}

std::string chosen_tool_name(const Field& choice, const std::vector<std::string>& declared, ToolNameLayout layout) {
  choice.object();
  if (layout == ToolNameLayout::Flat) {
    choice.only_members({"type", "name"});
    choice.required_member("type").one_of({"function"});
    return declared_tool_name(choice.required_member("name"), declared);
  }
  choice.only_members({"type", "function"});
  choice.required_member("type").one_of({"function"});
  const Field function = choice.required_member("function");
  function.object();
  function.only_members({"name"});
  return declared_tool_name(function.required_member("name"), declared);
}

ToolChoice allowed_tools_choice(const Field& allowed, const std::vector<std::string>& declared, ToolNameLayout layout) {
  ToolChoice tc;
  tc.mode = allowed.required_member("mode").one_of({"auto", "required"}) == "auto" ? ToolChoiceMode::Auto
                                                                                    : ToolChoiceMode::Required;
  const Field tools = allowed.required_member("tools");
  if (tools.array().empty())
    tools.fail("Invalid '" + tools.path() + "': empty array. Expected at least one tool.", "empty_array");
  for (size_t j = 0; j < tools.json().size(); ++j)
    tc.allowed_names.push_back(chosen_tool_name(tools.element(j), declared, layout));
  return tc;
}

std::optional<ToolEnforcement> map_tool_enforcement(const std::optional<Field>& enforcement) {
  if (!enforcement) return std::nullopt;
  return enforcement->one_of({"basic", "automatic"}) == "basic" ? ToolEnforcement::Basic : ToolEnforcement::Automatic;
}

}  // namespace ninfer::api
