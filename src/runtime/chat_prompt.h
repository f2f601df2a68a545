// Chat prompts: which chat template renders a request (the request's own, else the model's, else
// the bundled qwen3 template), the rendering (src/jinja), and what the Qwen frontend reads from the
// rendered prompt: the declared tools, where the output starts, and the continued message's body.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "jinja/chat_template.h"
#include "ninfer/engine.h"
#include "runtime/request.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::runtime {

// The model's own chat template(s), from its tokenizer config (HF folder) or GGUF metadata.
class ModelChatTemplates {
 public:
  ModelChatTemplates() = default;
  // `config`: the tokenizer_config document (or null when the model has none).
  ModelChatTemplates(const nlohmann::json& config, std::string origin);
  // As transformers chooses from a list-form template: `tool_use` with tools, else `default`;
  // the bundled qwen3 template when the model has no template.
  jinja::ChatTemplateSource select(bool has_tools) const;

 private:
  std::optional<jinja::ChatTemplateSource> plain_, with_tools_;
};

// Reads the model's tokenizer config next to its weights (a folder's tokenizer_config.json, or a
// GGUF file's tokenizer.chat_template and token strings); null when there is none.
nlohmann::json model_tokenizer_config(const std::string& model_path);

// Renders the request and tokenises the result. Throws RequestError: InvalidRequest (context),
// InvalidTemplate (with line:column), InvalidTools (param), InvalidContinuation.
PreparedPrompt prepare_chat_prompt(const ChatPromptInput& input, const ModelChatTemplates& templates,
                                   const tokenizer::Tokenizer& tok);

// A finished chat turn's text split into reasoning, content and tool calls (the continued
// message's body, part of the prompt, is not repeated in the content).
ChatOutput split_chat_output(const ChatTurn& turn, const std::string& text, uint64_t seed);

// How many of `tokens` belong to the thinking block (its close included): 0 when the output starts
// in the body or never opened thinking, all of them when thinking never closed.
int thinking_block_tokens(const ChatTurn& turn, std::span<const int32_t> tokens, const tokenizer::Tokenizer& tok);

// PromptInput::chat: one user turn (and an optional system message) through the template.
ChatPromptInput single_turn_chat(const std::string& system, const std::string& user);

}  // namespace ninfer::runtime
