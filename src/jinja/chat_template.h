// Where a chat template comes from, by Hugging Face conventions: a bundled name, a .jinja file, a tokenizer config
// (its chat_template string or named list, and its bos/eos tokens), or a model folder holding tokenizer_config.json.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace ninfer::jinja {

struct ChatTemplateSource {
  std::string source;
  std::string bos_token, eos_token;
  std::string origin;  // "bundled:qwen3", a file path
};

// The templates compiled into the binary ("qwen3", "qwen3_5", "qwen3_coder"), byte for byte as published.
std::optional<std::string_view> bundled_template(std::string_view name);
std::vector<std::string> bundled_template_names();

// spec: a bundled name | a .jinja (or any non-JSON) file | a tokenizer config *.json | a folder holding
// tokenizer_config.json. A list-form chat_template yields the entry named "tool_use" when has_tools and present,
// else "default". Throws std::runtime_error naming the spec when nothing usable is found.
ChatTemplateSource load_chat_template(const std::string& spec, bool has_tools = false);

// The same selection from a tokenizer_config document already in memory; nullopt when it holds no template.
std::optional<ChatTemplateSource> chat_template_from_config(const nlohmann::json& tokenizer_config, bool has_tools,
                                                            std::string origin);

}  // namespace ninfer::jinja
