#include "models/qwen3/frontend/tool_definitions.h"

#include <set>
#include <string>

#include "ninfer/engine.h"

namespace ninfer::qwen3 {
namespace {

RequestError invalid(const std::string& param, const std::string& message) {
  return RequestError(RequestErrorKind::InvalidTools, message).at_param(param);
}

}  // namespace

bool is_valid_tool_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

std::vector<ToolDefinition> parse_tools(const nlohmann::ordered_json& tools) {
  if (!tools.is_array()) throw invalid("tools", "tools must be an array");
  std::vector<ToolDefinition> out;
  std::set<std::string> names;
  for (size_t i = 0; i < tools.size(); ++i) {
    const std::string at = "tools[" + std::to_string(i) + "]";
    const auto& tool = tools[i];
    if (!tool.is_object()) throw invalid(at, at + " must be an object");
    if (auto t = tool.find("type"); t != tool.end()) {
      if (!t->is_string() || t->get<std::string>() != "function")
        throw invalid(at + ".type", at + ".type must be \"function\" (the only tool type a chat template can render)");
    }
    auto fn = tool.find("function");
    if (fn == tool.end() || !fn->is_object()) throw invalid(at + ".function", at + ".function must be an object");
    ToolDefinition def;
    auto name = fn->find("name");
    if (name == fn->end() || !name->is_string()) throw invalid(at + ".function.name", at + ".function.name must be a string");
    def.name = name->get<std::string>();
    if (!is_valid_tool_name(def.name))
      throw invalid(at + ".function.name", at + ".function.name '" + def.name + "' must match [a-zA-Z0-9_-]{1,64}");
    if (!names.insert(def.name).second)
      throw invalid(at + ".function.name", "tool name '" + def.name + "' is declared twice");
    if (auto d = fn->find("description"); d != fn->end() && !d->is_null()) {
      if (!d->is_string()) throw invalid(at + ".function.description", at + ".function.description must be a string");
      def.description = d->get<std::string>();
    }
    if (auto p = fn->find("parameters"); p != fn->end() && !p->is_null()) {
      if (!p->is_object()) throw invalid(at + ".function.parameters", at + ".function.parameters must be a JSON Schema object");
      def.parameters = p->dump();
    }
    if (auto s = fn->find("strict"); s != fn->end() && !s->is_null()) {
      if (!s->is_boolean()) throw invalid(at + ".function.strict", at + ".function.strict must be a boolean");
      def.strict = s->get<bool>();
    }
    out.push_back(std::move(def));
  }
  return out;
}

ToolCallFormat tool_format_for_template(std::string_view template_source) {
  return template_source.find("<function=") != std::string_view::npos ? ToolCallFormat::Xml : ToolCallFormat::Json;
}

}  // namespace ninfer::qwen3
