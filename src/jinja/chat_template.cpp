#include "jinja/chat_template.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "jinja/bundled_templates.h"

namespace ninfer::jinja {

std::optional<std::string_view> bundled_template(std::string_view name) {
  for (const auto& t : bundled_templates())
    if (t.name == name) return t.source;
  return std::nullopt;
}

std::vector<std::string> bundled_template_names() {
  std::vector<std::string> names;
  for (const auto& t : bundled_templates()) names.emplace_back(t.name);
  return names;
}

namespace {

std::string token_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_object() && v.contains("content") && v["content"].is_string()) return v["content"].get<std::string>();
  return {};
}

std::string read_file(const std::filesystem::path& path, const std::string& spec) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("chat template '" + spec + "': cannot read " + path.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::optional<ChatTemplateSource> chat_template_from_config(const nlohmann::json& config, bool has_tools, std::string origin) {
  if (!config.is_object() || !config.contains("chat_template")) return std::nullopt;
  const auto& ct = config["chat_template"];
  ChatTemplateSource out;
  if (ct.is_string()) {
    out.source = ct.get<std::string>();
  } else if (ct.is_array()) {
    const nlohmann::json* chosen = nullptr;
    const nlohmann::json* fallback = nullptr;
    for (const auto& entry : ct) {
      if (!entry.is_object() || !entry.contains("name") || !entry.contains("template") || !entry["template"].is_string()) continue;
      if (entry["name"] == "tool_use" && has_tools) chosen = &entry["template"];
      if (entry["name"] == "default") fallback = &entry["template"];
    }
    if (!chosen) chosen = fallback;
    if (!chosen) return std::nullopt;
    out.source = chosen->get<std::string>();
  } else {
    return std::nullopt;
  }
  if (config.contains("bos_token")) out.bos_token = token_text(config["bos_token"]);
  if (config.contains("eos_token")) out.eos_token = token_text(config["eos_token"]);
  out.origin = std::move(origin);
  return out;
}

ChatTemplateSource load_chat_template(const std::string& spec, bool has_tools) {
  namespace fs = std::filesystem;
  if (auto b = bundled_template(spec)) return ChatTemplateSource{std::string(*b), "", "", "bundled:" + spec};
  std::error_code ec;
  fs::path path(spec);
  if (fs::is_directory(path, ec)) path /= "tokenizer_config.json";
  if (!fs::is_regular_file(path, ec)) {
    std::string names;
    for (const auto& n : bundled_template_names()) names += (names.empty() ? "" : ", ") + n;
    throw std::runtime_error("chat template '" + spec + "': not a bundled template (" + names +
                             "), a file, or a folder holding tokenizer_config.json");
  }
  const std::string text = read_file(path, spec);
  if (path.extension() == ".json") {
    nlohmann::json config = nlohmann::json::parse(text, nullptr, false);
    if (config.is_discarded()) throw std::runtime_error("chat template '" + spec + "': " + path.string() + " is not valid JSON");
    auto t = chat_template_from_config(config, has_tools, path.string());
    if (!t) throw std::runtime_error("chat template '" + spec + "': " + path.string() + " has no usable chat_template");
    return *t;
  }
  return ChatTemplateSource{text, "", "", path.string()};
}

}  // namespace ninfer::jinja
