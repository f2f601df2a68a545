#include "runtime/chat_prompt.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "jinja/template.h"
#include "models/gguf.h"
#include "models/qwen3/frontend/qwen3_frontend.h"

namespace ninfer::runtime {
namespace {

// Stands for the continued message's content while the template renders: private-use code points
// that no request may contain, so the one place the template writes them is the region where the
// content goes (DESIGN.md section 6: located through the template, never by searching for the
// content's own bytes, which may occur elsewhere or be transformed).
constexpr std::string_view kContinuationMarker = "\xF3\xB0\x80\x80ninfer.continuation\xF3\xB0\x80\x81";

RequestError invalid_request(const std::string& message, std::string param = "") {
  return std::move(RequestError(RequestErrorKind::InvalidRequest, message).at_param(std::move(param)));
}

std::string render(const jinja::ChatTemplateSource& source, const nlohmann::ordered_json& context) {
  try {
    return jinja::parse_cached(source.source)->render(context);
  } catch (const jinja::TemplateError& e) {
    const std::string prefix = e.kind() == jinja::TemplateErrorKind::Raised ? "the chat template raised: "
                                                                            : std::string("chat template (") + source.origin + "): ";
    throw std::move(RequestError(RequestErrorKind::InvalidTemplate, prefix + e.what()).at_line(e.line(), e.column()));
  }
}

size_t count_occurrences(std::string_view text, std::string_view what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

}  // namespace

ModelChatTemplates::ModelChatTemplates(const nlohmann::json& config, std::string origin) {
  if (config.is_null()) return;
  plain_ = jinja::chat_template_from_config(config, false, origin);
  with_tools_ = jinja::chat_template_from_config(config, true, origin);
}

jinja::ChatTemplateSource ModelChatTemplates::select(bool has_tools) const {
  if (has_tools && with_tools_) return *with_tools_;
  if (plain_) return *plain_;
  jinja::ChatTemplateSource s;
  s.source = std::string(*jinja::bundled_template("qwen3"));
  s.origin = "bundled:qwen3";
  s.eos_token = "<|im_end|>";
  return s;
}

nlohmann::json model_tokenizer_config(const std::string& model_path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path config = fs::path(model_path) / "tokenizer_config.json";
  if (fs::is_directory(model_path, ec)) {
    if (!fs::is_regular_file(config, ec)) return nullptr;
    std::ifstream in(config);
    std::stringstream ss;
    ss << in.rdbuf();
    nlohmann::json doc = nlohmann::json::parse(ss.str(), nullptr, false);
    return doc.is_discarded() || !doc.is_object() ? nlohmann::json(nullptr) : doc;
  }
  if (!fs::is_regular_file(model_path, ec)) return nullptr;
  // GGUF: the template and the token strings, in tokenizer_config's shape.
  try {
    const models::gguf::File file = models::gguf::open(model_path);
    const models::gguf::Value* tmpl = file.find("tokenizer.chat_template");
    if (!tmpl || tmpl->type != models::gguf::ValueType::String) return nullptr;
    nlohmann::json doc = {{"chat_template", tmpl->str}};
    const models::gguf::Value* tokens = file.find("tokenizer.ggml.tokens");
    for (const auto& [key, field] : {std::pair{"tokenizer.ggml.bos_token_id", "bos_token"},
                                     std::pair{"tokenizer.ggml.eos_token_id", "eos_token"}}) {
      const std::optional<int64_t> id = file.get_int_or(key);
      if (id && tokens && *id >= 0 && size_t(*id) < tokens->strings.size()) doc[field] = tokens->strings[*id];
    }
    return doc;
  } catch (const std::exception&) {
    return nullptr;  // the model loader reports unusable files
  }
}

ChatOutput split_chat_output(const ChatTurn& turn, const std::string& text, uint64_t seed) {
  if (!turn.continuation) return qwen3::parse_chat_output(text, turn.start, turn.tools, turn.format, seed);
  // The continued body and the new suffix are one output; only the suffix is new.
  const std::string& prefix = *turn.continuation;
  ChatOutput out = qwen3::parse_chat_output(prefix + text, turn.start, turn.tools, turn.format, seed);
  std::string& field = turn.start == OutputStart::Body ? out.content : out.reasoning;
  if (field.compare(0, prefix.size(), prefix) == 0) field.erase(0, prefix.size());
  return out;
}

int thinking_block_tokens(const ChatTurn& turn, std::span<const int32_t> tokens, const tokenizer::Tokenizer& tok) {
  if (turn.start == OutputStart::Body) return 0;
  std::string text = turn.continuation.value_or("");
  bool opened = turn.start == OutputStart::Thinking;
  for (size_t i = 0; i < tokens.size(); ++i) {
    if (tokens[i] >= 0 && tokens[i] < tok.vocab_size() && tok.token_kind(tokens[i]) == tokenizer::TokenKind::Normal)
      text += tok.token_bytes(tokens[i]);
    if (!opened) {
      if (text.size() < qwen3::kThinkOpen.size()) {
        if (qwen3::kThinkOpen.compare(0, text.size(), text) != 0) return 0;
        continue;
      }
      if (text.compare(0, qwen3::kThinkOpen.size(), qwen3::kThinkOpen) != 0) return 0;
      opened = true;
    }
    if (text.find(qwen3::kThinkClose) != std::string::npos) return int(i + 1);
  }
  return opened ? int(tokens.size()) : 0;
}

ChatPromptInput single_turn_chat(const std::string& system, const std::string& user) {
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  if (!system.empty()) messages.push_back({{"role", "system"}, {"content", system}});
  messages.push_back({{"role", "user"}, {"content", user}});
  ChatPromptInput in;
  in.context_json = nlohmann::ordered_json{{"messages", messages}, {"add_generation_prompt", true}}.dump();
  return in;
}

PreparedPrompt prepare_chat_prompt(const ChatPromptInput& input, const ModelChatTemplates& templates,
                                   const tokenizer::Tokenizer& tok) {
  // Ordered: Python dicts keep their insertion order, and so must the tools and arguments that the
  // template prints with tojson (and the declared property order of the tool schemas).
  nlohmann::ordered_json context = nlohmann::ordered_json::parse(input.context_json, nullptr, false);
  if (context.is_discarded() || !context.is_object())
    throw invalid_request("the chat template context is not a JSON object");
  if (input.context_json.find(kContinuationMarker) != std::string::npos)
    throw invalid_request("the request contains reserved private-use code points (U+F0000)");
  if (!context.contains("messages") || !context["messages"].is_array())
    throw invalid_request("the chat context has no messages array", "messages");

  PreparedPrompt p;
  p.chat = true;
  if (context.contains("tools") && !context["tools"].is_null()) {
    if (!context["tools"].is_array()) throw invalid_request("tools must be an array", "tools");
    p.tools = qwen3::parse_tools(context["tools"]);
  }
  jinja::ChatTemplateSource source;
  if (!input.template_source.empty()) {
    source.source = input.template_source;
    source.origin = "request";
    source.bos_token = input.bos_token;
    source.eos_token = input.eos_token;
  } else {
    source = templates.select(!p.tools.empty());
  }
  // transformers passes the tokenizer's special tokens to every template.
  if (!context.contains("bos_token")) context["bos_token"] = source.bos_token;
  if (!context.contains("eos_token")) context["eos_token"] = source.eos_token;
  p.tool_format = input.tool_format == ToolCallFormat::Auto ? qwen3::tool_format_for_template(source.source)
                                                            : input.tool_format;
  const bool may_open_think = source.source.find("<think>") != std::string::npos;

  std::string rendered;
  if (input.continue_final_message) {
    nlohmann::ordered_json& messages = context["messages"];
    const std::string param = "messages[" + std::to_string(messages.empty() ? 0 : messages.size() - 1) + "]";
    if (messages.empty() || !messages.back().is_object() || messages.back().value("role", "") != "assistant")
      throw std::move(RequestError(RequestErrorKind::InvalidContinuation,
                                   "continue_final_message needs a final assistant message")
                          .at_param(param));
    if (context.value("add_generation_prompt", false))
      throw invalid_request("continue_final_message cannot be combined with add_generation_prompt", "add_generation_prompt");
    nlohmann::ordered_json& content = messages.back()["content"];
    if (!content.is_string())
      throw std::move(RequestError(RequestErrorKind::InvalidContinuation,
                                   "the continued assistant message's content must be a string")
                          .at_param(param + ".content"));
    const std::string body = content.get<std::string>();
    content = std::string(kContinuationMarker);
    const std::string full = render(source, context);
    if (count_occurrences(full, kContinuationMarker) != 1)
      throw std::move(RequestError(RequestErrorKind::InvalidContinuation,
                                   "the chat template does not write the final assistant message's content exactly once, "
                                   "so it cannot be continued")
                          .at_param(param + ".content"));
    rendered = full.substr(0, full.find(kContinuationMarker));
    p.start = qwen3::detect_output_start(rendered, may_open_think);
    rendered += body;
    p.continuation = body;
    p.continuation_param = param + ".content";
  } else {
    rendered = render(source, context);
    p.start = qwen3::detect_output_start(rendered, may_open_think);
  }
  if (rendered.empty()) throw invalid_request("the chat template rendered an empty prompt");
  p.tokens = tok.encode(rendered);
  p.rendered = std::move(rendered);
  return p;
}

}  // namespace ninfer::runtime
