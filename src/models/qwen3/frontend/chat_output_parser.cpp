#include "models/qwen3/frontend/chat_output_parser.h"

#include <algorithm>
#include <optional>

#include "models/qwen3/frontend/chat_format.h"
#include "models/qwen3/frontend/tool_contract.h"
#include "models/qwen3/frontend/xml_value_typing.h"

namespace ninfer::qwen3 {
namespace {

// A member of a JSON object: its decoded key and its value's exact text.
struct JsonMember {
  std::string key;
  std::string_view value;
};

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// The end of the JSON value starting at text[i] (strings, nesting and scalars scanned, not
// checked: callers check the value with a parser), or npos.
size_t value_end(std::string_view text, size_t i) {
  int depth = 0;
  bool in_string = false;
  for (size_t j = i; j < text.size(); ++j) {
    const char c = text[j];
    if (in_string) {
      if (c == '\\') ++j;
      else if (c == '"') {
        in_string = false;
        if (depth == 0) return j + 1;
      }
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '{' || c == '[') ++depth;
    else if (c == '}' || c == ']') {
      if (depth == 0) return j;  // the end of the enclosing object: a scalar ended here
      if (--depth == 0) return j + 1;
    } else if (depth == 0 && (c == ',' || json_space(c))) {
      return j;
    }
  }
  return in_string || depth > 0 ? std::string_view::npos : text.size();
}

// The members of the object `text` holds (whitespace around it allowed), or nullopt.
std::optional<std::vector<JsonMember>> top_level_members(std::string_view text) {
  size_t i = 0;
  const auto skip = [&] {
    while (i < text.size() && json_space(text[i])) ++i;
  };
  skip();
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  ++i;
  std::vector<JsonMember> out;
  skip();
  if (i < text.size() && text[i] == '}') {
    ++i;
  } else {
    while (true) {
      skip();
      if (i >= text.size() || text[i] != '"') return std::nullopt;
      const size_t key_end = value_end(text, i);
      if (key_end == std::string_view::npos) return std::nullopt;
      JsonMember m;
      try {
        m.key = OJson::parse(text.substr(i, key_end - i)).get<std::string>();
      } catch (const std::exception&) {
        return std::nullopt;
      }
      i = key_end;
      skip();
      if (i >= text.size() || text[i] != ':') return std::nullopt;
      ++i;
      skip();
      const size_t end = value_end(text, i);
      if (end == std::string_view::npos || end == i) return std::nullopt;
      m.value = text.substr(i, end - i);
      out.push_back(std::move(m));
      i = end;
      skip();
      if (i < text.size() && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < text.size() && text[i] == '}') {
        ++i;
        break;
      }
      return std::nullopt;
    }
  }
  skip();
  if (i != text.size()) return std::nullopt;
  return out;
}

// One JSON number token, by the grammar of RFC 8259: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool json_number_ok(std::string_view t) {
  size_t i = 0;
  const auto digits = [&] {
    const size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > start;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') ++i;
  else if (!digits()) return false;
  if (i < t.size() && t[i] == '.') {
    ++i;
    if (!digits()) return false;
  }
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

// JSON syntax without judging magnitudes: a parser that converts numbers refuses integers past
// binary64 ("number overflow"), which are valid JSON text. Each number token is checked by its
// grammar and stands as 0 for the structural check.
bool json_syntax_ok(std::string_view text) {
  std::string shape;
  shape.reserve(text.size());
  bool in_string = false;
  for (size_t j = 0; j < text.size();) {
    const char c = text[j];
    if (in_string) {
      shape += c;
      if (c == '\\' && j + 1 < text.size()) shape += text[++j];
      else if (c == '"') in_string = false;
      ++j;
    } else if (c == '-' || (c >= '0' && c <= '9')) {
      size_t k = j;
      while (k < text.size() && (text[k] == '-' || text[k] == '+' || text[k] == '.' || text[k] == 'e' || text[k] == 'E' ||
                                 (text[k] >= '0' && text[k] <= '9')))
        ++k;
      if (!json_number_ok(text.substr(j, k - j))) return false;
      shape += '0';
      j = k;
    } else {
      shape += c;
      in_string = c == '"';
      ++j;
    }
  }
  return OJson::accept(shape);
}

// Valid JSON text without its insignificant whitespace (strings kept byte for byte).
std::string minified_json(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t j = 0; j < text.size(); ++j) {
    const char c = text[j];
    if (in_string) {
      out += c;
      if (c == '\\' && j + 1 < text.size()) out += text[++j];
      else if (c == '"') in_string = false;
    } else if (!json_space(c)) {
      out += c;
      in_string = c == '"';
    }
  }
  return out;
}

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) { return s.size() >= p.size() && s.substr(s.size() - p.size()) == p; }

// The longest suffix of `s` that is a proper prefix of `token`.
size_t partial_suffix(std::string_view s, std::string_view token) {
  for (size_t n = std::min(s.size(), token.size() - 1); n > 0; --n)
    if (token.substr(0, n) == s.substr(s.size() - n)) return n;
  return 0;
}

struct Split {
  std::string reasoning;
  std::string_view body;
  bool closed = false;
};

// Reasoning up to "</think>": the canonical close "\n</think>\n\n" and, leniently, any newlines
// around the tag.
Split split_thinking(std::string_view text, bool opened_by_output) {
  Split s;
  if (opened_by_output) {
    text.remove_prefix(kThinkOpen.size());
    if (starts_with(text, "\n")) text.remove_prefix(1);  // the templates write "<think>\n"
  }
  const size_t end = text.find(kThinkEndTag);
  if (end == std::string_view::npos) {
    std::string_view r = text;
    r.remove_suffix(partial_suffix(r, kThinkClose));
    s.reasoning = std::string(r);
    return s;
  }
  std::string_view r = text.substr(0, end);
  if (ends_with(r, "\n")) r.remove_suffix(1);
  s.reasoning = std::string(r);
  s.body = text.substr(end + kThinkEndTag.size());
  if (starts_with(s.body, "\n\n")) s.body.remove_prefix(2);
  else
    while (starts_with(s.body, "\n")) s.body.remove_prefix(1);
  s.closed = true;
  return s;
}

class CallParser {
 public:
  CallParser(const std::vector<ToolDefinition>& tools, ToolCallFormat format) : format_(format) {
    contracts_.reserve(tools.size());
    for (size_t i = 0; i < tools.size(); ++i) {
      ToolContract c;
      c.index = static_cast<int>(i);
      c.definition = &tools[i];
      if (!tools[i].parameters.empty()) {
        try {
          c.parameters = OJson::parse(tools[i].parameters);
        } catch (const std::exception&) {
        }
      }
      if (format == ToolCallFormat::Xml && tools[i].strict) try_plan_xml_parameters(c);
      contracts_.push_back(std::move(c));
    }
  }

  // The call's name and arguments text, or nullopt when `inner` (between the tags) is no call.
  std::optional<ToolCall> parse(std::string_view inner) const {
    return format_ == ToolCallFormat::Xml ? parse_xml(inner) : parse_json(inner);
  }

  // Where the call that starts `rest` (at "<tool_call>") ends: npos when it is cut off. JSON: at the
  // first "\n</tool_call>" (JSON text holds no raw newline inside strings, and no "<" outside them).
  // XML: the values are read in order (a raw value may hold "</tool_call>"; it ends only at
  // "\n</parameter>"), then "</function>" and "</tool_call>"; a call that strays from that shape
  // ends at the first "</tool_call>".
  size_t call_end(std::string_view rest) const {
    if (format_ == ToolCallFormat::Json) {
      const size_t e = rest.find("\n</tool_call>");
      if (e != std::string_view::npos) return e + 1 + kToolCallClose.size();
      const size_t any = rest.find(kToolCallClose);
      return any == std::string_view::npos ? any : any + kToolCallClose.size();
    }
    if (const size_t e = structured_xml_end(rest); e != kMalformed) return e;
    const size_t any = rest.find(kToolCallClose);
    return any == std::string_view::npos ? any : any + kToolCallClose.size();
  }

 private:
  static constexpr size_t kMalformed = std::string_view::npos - 1;

  ToolCallFormat format_;
  std::vector<ToolContract> contracts_;

  const ToolContract* contract(const std::string& name) const {
    for (const auto& c : contracts_)
      if (c.definition->name == name) return &c;
    return nullptr;
  }

  static size_t structured_xml_end(std::string_view rest) {
    const size_t size = rest.size();
    auto cut_or_malformed = [&](std::string_view tail, std::string_view expected) {
      return expected.substr(0, tail.size()) == tail.substr(0, expected.size()) && tail.size() < expected.size()
                 ? std::string_view::npos
                 : kMalformed;
    };
    rest.remove_prefix(kToolCallOpen.size());
    static constexpr std::string_view kHead = "\n<function=";
    if (!starts_with(rest, kHead)) return cut_or_malformed(rest, kHead);
    rest.remove_prefix(kHead.size());
    const size_t gt = rest.find_first_of(">\n");
    if (gt == std::string_view::npos) return std::string_view::npos;
    if (rest[gt] != '>') return kMalformed;
    rest.remove_prefix(gt + 1);
    if (!starts_with(rest, "\n")) return cut_or_malformed(rest, "\n");
    rest.remove_prefix(1);
    while (true) {
      if (starts_with(rest, kXmlParameterOpen)) {
        rest.remove_prefix(kXmlParameterOpen.size());
        const size_t e = rest.find_first_of(">\n");
        if (e == std::string_view::npos) return std::string_view::npos;
        if (rest[e] != '>') return kMalformed;
        rest.remove_prefix(e + 1);
        if (!starts_with(rest, "\n")) return cut_or_malformed(rest, "\n");
        rest.remove_prefix(1);
        const size_t v = rest.find(kXmlParameterClose);
        if (v == std::string_view::npos) return rest.find(kToolCallClose) == std::string_view::npos ? std::string_view::npos : kMalformed;
        rest.remove_prefix(v + kXmlParameterClose.size());
      } else if (starts_with(rest, kXmlFunctionEnd)) {
        return size - rest.size() + kXmlFunctionEnd.size();
      } else {
        const size_t a = cut_or_malformed(rest, kXmlParameterOpen), b = cut_or_malformed(rest, kXmlFunctionEnd);
        return a == std::string_view::npos || b == std::string_view::npos ? std::string_view::npos : kMalformed;
      }
    }
  }

  // The call object is read structurally rather than through a JSON library's numbers: the
  // arguments keep the model's exact value text (minus insignificant whitespace), so an integer
  // past 64 bits or past binary64 comes back as written instead of rounded, or lost to an overflow.
  std::optional<ToolCall> parse_json(std::string_view inner) const {
    const std::optional<std::vector<JsonMember>> members = top_level_members(inner);
    if (!members) return std::nullopt;
    ToolCall out;
    bool named = false;
    std::optional<std::string_view> args;
    for (const JsonMember& m : *members) {
      if (m.key == "name") {
        OJson name;
        try {
          name = OJson::parse(m.value);
        } catch (const std::exception&) {
          return std::nullopt;
        }
        if (!name.is_string()) return std::nullopt;
        out.name = name.get<std::string>();
        named = true;
      } else if (m.key == "arguments") {
        args = m.value;
      }
    }
    if (!named) return std::nullopt;
    // The arguments must be an object (OpenAI's `arguments` is an object's JSON text): written as
    // one, or as a JSON string holding one. Anything else is no call.
    const auto object_text = [](std::string_view t) {
      const size_t first = t.find_first_not_of(" \t\n\r");
      return first != std::string_view::npos && t[first] == '{' && json_syntax_ok(t);
    };
    if (!args || *args == "null") {
      out.arguments = "{}";
    } else if (args->front() == '"') {
      std::string text;
      try {
        text = OJson::parse(*args).get<std::string>();
      } catch (const std::exception&) {
        return std::nullopt;
      }
      if (!object_text(text)) return std::nullopt;
      out.arguments = minified_json(text);
    } else {
      if (!object_text(*args)) return std::nullopt;
      out.arguments = minified_json(*args);
    }
    return out;
  }

  std::optional<ToolCall> parse_xml(std::string_view inner) const {
    while (starts_with(inner, "\n")) inner.remove_prefix(1);
    static constexpr std::string_view kFunction = "<function=";
    if (!starts_with(inner, kFunction)) return std::nullopt;
    inner.remove_prefix(kFunction.size());
    const size_t gt = inner.find('>');
    if (gt == std::string_view::npos) return std::nullopt;
    ToolCall out;
    out.name = std::string(inner.substr(0, gt));
    std::string_view rest = inner.substr(gt + 1);
    if (const size_t f = rest.rfind("</function>"); f != std::string_view::npos) rest = rest.substr(0, f);
    const ToolContract* c = contract(out.name);
    // (name, value's JSON text) in first-appearance order; the last duplicate's value wins.
    std::vector<std::pair<std::string, std::string>> args;
    while (true) {
      const size_t p = rest.find(kXmlParameterOpen);
      if (p == std::string_view::npos) break;
      rest.remove_prefix(p + kXmlParameterOpen.size());
      const size_t e = rest.find('>');
      if (e == std::string_view::npos) break;
      const std::string pname(rest.substr(0, e));
      rest.remove_prefix(e + 1);
      if (starts_with(rest, "\n")) rest.remove_prefix(1);
      // The value ends at "\n</parameter>"; leniently at "</parameter>", the next parameter or the end.
      std::string_view value;
      if (const size_t v = rest.find(kXmlValueEnd); v != std::string_view::npos) {
        value = rest.substr(0, v);
        rest.remove_prefix(v + kXmlValueEnd.size());
      } else {
        size_t v2 = rest.find("</parameter>");
        const size_t next = rest.find(kXmlParameterOpen);
        if (next < v2) v2 = next;
        value = rest.substr(0, v2);
        if (ends_with(value, "\n")) value.remove_suffix(1);
        rest.remove_prefix(v2 == std::string_view::npos ? rest.size() : v2);
        if (starts_with(rest, "</parameter>")) rest.remove_prefix(std::string_view("</parameter>").size());
      }
      std::string text = typed(c, pname, std::string(value));
      const auto same = std::find_if(args.begin(), args.end(), [&](const auto& a) { return a.first == pname; });
      if (same != args.end()) {
        same->second = std::move(text);
      } else {
        args.emplace_back(pname, std::move(text));
      }
    }
    out.arguments = "{";
    for (const auto& [name, text] : args) {
      if (out.arguments.size() > 1) out.arguments += ',';
      out.arguments += OJson(name).dump(-1, ' ', false, OJson::error_handler_t::replace) + ':' + text;
    }
    out.arguments += '}';
    return out;
  }

  // A parameter's value as JSON text. Raw values are the model's bytes: a broken UTF-8 sequence
  // becomes U+FFFD, never an exception.
  static std::string typed(const ToolContract* c, const std::string& pname, const std::string& raw) {
    if (!c) return vllm_typed_json(raw, nullptr);
    for (const XmlParameter& p : c->xml_parameters)
      if (p.name == pname) return strict_typed_json(raw, p);
    const OJson* schema = nullptr;
    if (c->parameters.is_object())
      if (auto props = c->parameters.find("properties"); props != c->parameters.end() && props->is_object())
        if (auto it = props->find(pname); it != props->end()) schema = &*it;
    return vllm_typed_json(raw, schema);
  }
};

}  // namespace

std::string tool_call_id(uint64_t id_seed, size_t index) {
  static const char* digits = "0123456789abcdef";
  const uint64_t a = splitmix64(id_seed ^ splitmix64(index + 1));
  const uint64_t b = splitmix64(a);
  std::string id = "call_";
  for (int i = 15; i >= 0; --i) id += digits[(a >> (i * 4)) & 15];
  for (int i = 7; i >= 0; --i) id += digits[(b >> (i * 4)) & 15];
  return id;
}

struct ToolCallReader::Impl {
  std::vector<ToolDefinition> tools;
  CallParser parser;  // reads `tools`
  Impl(std::vector<ToolDefinition> t, ToolCallFormat format)
      : tools(std::move(t)), parser(tools, format == ToolCallFormat::Xml ? ToolCallFormat::Xml : ToolCallFormat::Json) {}
};

ToolCallReader::ToolCallReader(std::vector<ToolDefinition> tools, ToolCallFormat format)
    : impl_(std::make_shared<const Impl>(std::move(tools), format)) {}

std::optional<ToolCall> ToolCallReader::read(std::string_view whole) const {
  if (whole.size() < kToolCallOpen.size() + kToolCallClose.size()) return std::nullopt;
  return impl_->parser.parse(whole.substr(kToolCallOpen.size(), whole.size() - kToolCallOpen.size() - kToolCallClose.size()));
}

ChatOutput parse_chat_output(std::string_view text, OutputStart start, const std::vector<ToolDefinition>& tools,
                             ToolCallFormat format, uint64_t id_seed) {
  ChatOutput out;
  std::string_view body = text;
  if (start == OutputStart::Thinking || (start == OutputStart::OptionalThinking && starts_with(text, kThinkOpen))) {
    Split s = split_thinking(text, start == OutputStart::OptionalThinking);
    out.reasoning = std::move(s.reasoning);
    out.thinking_closed = s.closed;
    if (!s.closed) return out;
    body = s.body;
  } else if (start == OutputStart::OptionalThinking && !text.empty() && starts_with(kThinkOpen, text)) {
    return out;  // cut off inside "<think>": nothing to show yet
  } else {
    out.thinking_closed = true;
  }
  const size_t first = tools.empty() ? std::string_view::npos : body.find(kToolCallOpen);
  if (first == std::string_view::npos) {
    out.content = std::string(body);  // a trailing "<tool_c" stays: the language lets text end that way
    return out;
  }
  std::string_view before = body.substr(0, first);
  // The separator the template writes between content and the first call.
  if (format == ToolCallFormat::Xml && ends_with(before, "\n\n")) before.remove_suffix(2);
  else if (ends_with(before, "\n")) before.remove_suffix(1);
  out.content = std::string(before);
  const CallParser parser(tools, format == ToolCallFormat::Xml ? ToolCallFormat::Xml : ToolCallFormat::Json);
  std::string_view rest = body.substr(first);
  while (!rest.empty()) {
    const size_t open = rest.find(kToolCallOpen);
    std::string_view between = rest.substr(0, open == std::string_view::npos ? rest.size() : open);
    if (open == std::string_view::npos) between.remove_suffix(partial_suffix(between, kToolCallOpen));
    if (between.find_first_not_of(" \t\r\n") != std::string_view::npos) {
      if (!out.content.empty()) out.content += "\n";
      out.content += std::string(between);
    }
    if (open == std::string_view::npos) break;
    rest.remove_prefix(open);
    const size_t end = parser.call_end(rest);
    if (end == std::string_view::npos) break;  // cut off: neither a call nor content
    const std::string_view whole = rest.substr(0, end);
    std::optional<ToolCall> call =
        parser.parse(whole.substr(kToolCallOpen.size(), whole.size() - kToolCallOpen.size() - kToolCallClose.size()));
    if (call) {
      call->id = tool_call_id(id_seed, out.tool_calls.size());
      out.tool_calls.push_back(std::move(*call));
    } else {
      if (!out.content.empty()) out.content += "\n";
      out.content += std::string(whole);
    }
    rest.remove_prefix(whole.size());
  }
  return out;
}

}  // namespace ninfer::qwen3
