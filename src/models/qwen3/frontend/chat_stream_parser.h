// Splits a Qwen chat turn's output into reasoning, content and tool-call deltas while it streams,
// so that every protocol's stream can publish each part as soon as it is certain. The contract:
// for any way the output text is cut into pieces, the deltas concatenate to exactly what
// parse_chat_output gives for the whole text (reasoning, content, each call's id, name and
// arguments), in the order the parts appear in the text.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ninfer/chat.h"

namespace ninfer::qwen3 {

struct ChatDelta {
  enum class Kind {
    Reasoning,      // text: more thinking text
    Content,        // text: more body text
    ToolCallBegin,  // a call opens: index, id, name (its arguments follow as ToolCallArguments)
    ToolCallArguments,  // text: more of call `index`'s arguments JSON text
  };
  Kind kind = Kind::Content;
  std::string text;
  size_t index = 0;  // tool calls: the call's index in the turn (0, 1, ...)
  std::string id, name;  // ToolCallBegin
};

// When a tool call is published. The held-back text of reasoning and content is the same in both.
enum class CallStreaming {
  // A call is published (begin, then its whole arguments) once "</tool_call>" closes it and it
  // parses; a call that does not parse becomes content. Exact for any text: the mode for output that
  // no grammar constrains.
  Buffered,
  // The grammar enforces the call wrapper and the arguments: the request decodes under the chat
  // output grammar (qwen3::needs_grammar) with tools declared; every call that grammar admits has
  // the template's shape, whatever it narrows. The begin is published once the name is read and
  // JSON-format arguments stream as written, minified as parse_chat_output minifies them.
  // XML-format arguments of a strict tool without undeclared parameters come parameter by parameter
  // (raw strings as they are written); other tools' come whole when the call closes, since a
  // repeated parameter would change an earlier one. The one divergence from parse_chat_output: a
  // call cut off (max_tokens, finish reason `length`; or a stop string) keeps the begin and the
  // partial arguments already published (a prefix of the whole call's), where parse_chat_output
  // drops the call. Text the grammar could not have produced is resolved by finish() as far as what
  // was published allows.
  Progressive,
};

class ChatStreamParser {
 public:
  // As parse_chat_output(text, start, tools, format, id_seed); `continuation` is the continued
  // assistant message's body (part of the prompt: it is parsed with the output but never published,
  // as split_chat_output drops it from the reasoning, or from the content when the output starts in
  // the body).
  ChatStreamParser(OutputStart start, std::vector<ToolDefinition> tools, ToolCallFormat format, uint64_t id_seed,
                   std::string continuation = {}, CallStreaming calls = CallStreaming::Buffered);

  // Appends the next piece of output text and returns the deltas that became certain. Text that may
  // still turn out to be framing (a partial "\n</think>", a partial "<tool_call>") is held back.
  std::vector<ChatDelta> feed(std::string_view piece);
  // The output ended: returns what was held back, resolved as parse_chat_output resolves it.
  std::vector<ChatDelta> finish();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace ninfer::qwen3
