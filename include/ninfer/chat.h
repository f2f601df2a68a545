// Chat requests (public: no third-party types): the template context a chat prompt is rendered
// from, the tools it declares, how tool calls are chosen and enforced (DESIGN.md section 6), and the
// parsed output of a chat turn (reasoning, content, tool calls).
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace ninfer {

// How a model writes tool calls (FACTS.md 5.1, 5.2).
enum class ToolCallFormat {
  Auto,  // follow the template: Qwen3's JSON unless the template writes <function=...> (XML)
  Json,  // <tool_call>\n{"name": "NAME", "arguments": {...}}\n</tool_call>
  Xml,   // <tool_call>\n<function=NAME>\n<parameter=P>\nVALUE\n</parameter>\n</function>\n</tool_call>
};
const char* tool_call_format_name(ToolCallFormat format);

// One function tool as the request declares it.
struct ToolDefinition {
  std::string name;
  std::string description;
  std::string parameters;  // JSON Schema text of the arguments object ("" = no parameters)
  bool strict = false;     // the arguments get exactly this schema (else any object / any parameters)
};

enum class ToolChoiceMode {
  Auto,      // text, then zero or more calls
  None,      // no call
  Required,  // one or more calls
};

enum class ToolEnforcement {
  Basic,      // with tools present, the wrapper and the names are always enforced, strict arguments too
  Automatic,  // only what the request asks for (strict, allowed names, Required/None, parallel=false)
};

struct ToolChoice {
  ToolChoiceMode mode = ToolChoiceMode::Auto;
  std::vector<std::string> allowed_names;  // empty = every declared tool (a named choice: one name)
  bool parallel = true;                    // false: at most one call
  ToolEnforcement enforcement = ToolEnforcement::Basic;
};

// Where the output of a chat turn starts, decided from the rendered prompt.
enum class OutputStart {
  Body,              // thinking is off or closed in the prompt
  Thinking,          // the prompt ends inside an open <think> (Qwen3.5's default)
  OptionalThinking,  // the model may open <think> itself (Qwen3 hybrid)
};
const char* output_start_name(OutputStart start);

// A chat prompt rendered through a chat template.
struct ChatPromptInput {
  // The template's variables as one JSON object: messages, tools, add_generation_prompt,
  // enable_thinking and any other chat_template_kwargs.
  std::string context_json;
  // Jinja source of the chat template; empty = the model's own template (the bundled qwen3
  // template when the model has none).
  std::string template_source;
  // Variables the template source came with (a tokenizer config's bos_token / eos_token).
  std::string bos_token, eos_token;
  // The final assistant message is rendered open and continued (DESIGN.md section 6).
  bool continue_final_message = false;
  ToolCallFormat tool_format = ToolCallFormat::Auto;
};

struct ToolCall {
  std::string id;         // call_<24 hex>
  std::string name;
  std::string arguments;  // the arguments object as JSON text, values typed by the schema
};

// A chat turn's output split by the Qwen frontend.
struct ChatOutput {
  std::string reasoning;  // thinking text (reasoning_content), never part of content
  std::string content;    // body text outside tool calls
  std::vector<ToolCall> tool_calls;
  bool thinking_closed = false;  // the output left the thinking phase
};

}  // namespace ninfer
