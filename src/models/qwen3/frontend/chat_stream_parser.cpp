// The stream parser walks the text as parse_chat_output does (thinking, the body before the first
// call, each call, the text between calls), one phase at a time, and stops wherever the next step
// depends on text not yet seen. Within a phase it publishes everything except the tail that could
// still be framing. finish() resolves the last phase at the end of the text and then compares what
// was published with parse_chat_output on the whole text, publishing any difference: in Buffered
// mode the phases resolve everything and the difference is empty; in Progressive mode it settles
// what ungrammatical or cut-off text left open after a call was begun.
#include "models/qwen3/frontend/chat_stream_parser.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "models/qwen3/frontend/chat_format.h"
#include "models/qwen3/frontend/chat_output_parser.h"
#include "models/qwen3/frontend/tool_contract.h"

namespace ninfer::qwen3 {
namespace {

constexpr size_t npos = std::string_view::npos;
// What precedes "</think>" in the canonical close: held back with it.
constexpr std::string_view kThinkEndWithNewline = "\n</think>";
constexpr std::string_view kJsonCallEnd = "\n</tool_call>";

bool json_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
bool has_non_space(std::string_view s) { return s.find_first_not_of(" \t\r\n") != npos; }

// The longest suffix of `s` that is a proper prefix of `token`.
size_t partial_suffix(std::string_view s, std::string_view token) {
  for (size_t n = std::min(s.size(), token.size() - 1); n > 0; --n)
    if (token.substr(0, n) == s.substr(s.size() - n)) return n;
  return 0;
}

// Where a search for `token` resumes once `size` bytes were searched without finding it.
size_t resume_at(size_t from, size_t size, std::string_view token) {
  return std::max(from, size - std::min(size, token.size() - 1));
}

// split_chat_output drops the continued message's body from the front of one field (the content
// when the output starts in the body, else the reasoning), and only when the whole body is there:
// the field's text is held until it reaches the body's length or departs from it.
class ContinuedBody {
 public:
  explicit ContinuedBody(std::string body) : body_(std::move(body)), decided_(body_.empty()) {}

  // The part of the field's next raw text to publish.
  std::string pass(std::string_view raw) {
    if (decided_) return std::string(raw);
    held_ += raw;
    if (held_.size() >= body_.size()) {
      decided_ = true;
      return held_.starts_with(body_) ? held_.substr(body_.size()) : std::move(held_);
    }
    if (!body_.starts_with(held_)) {
      decided_ = true;
      return std::move(held_);
    }
    return {};
  }

  // The output ended: a field shorter than the body keeps all its text.
  std::string finish() {
    if (decided_) return {};
    decided_ = true;
    return std::move(held_);
  }

 private:
  std::string body_, held_;
  bool decided_;
};

// Where an XML-format call ends, read step by step as parse_chat_output reads it: the values end
// only at "\n</parameter>\n" (a raw value may hold "</tool_call>"), then "</function>\n</tool_call>".
// Offsets are relative to the call's "<tool_call>".
class XmlCallScan {
 public:
  enum class Result {
    NeedMore,     // the shape holds so far
    ValueClosed,  // a parameter's value closed (parameter_name(), value()): scan on
    End,          // the call ends at end()
    Malformed,  // the text strays from the shape: the call ends at the first "</tool_call>"
  };

  Result scan(std::string_view rest) {
    static constexpr std::string_view kHead = kXmlCallHead.substr(kToolCallOpen.size());
    while (true) {
      switch (step_) {
        case Step::Head: {
          const std::string_view tail = rest.substr(kToolCallOpen.size());
          if (!tail.starts_with(kHead)) return cut_or_malformed(tail, kHead);
          next(Step::Name, kXmlCallHead.size());
          name_begin_ = at_;
          break;
        }
        case Step::Name:
        case Step::ParameterName: {
          const size_t gt = rest.find_first_of(">\n", search_);
          if (gt == npos) {
            search_ = rest.size();
            return Result::NeedMore;
          }
          if (rest[gt] != '>') return Result::Malformed;
          if (step_ == Step::Name) name_end_ = gt;
          else parameter_ = {at_, gt};
          next(step_ == Step::Name ? Step::NameNewline : Step::ParameterNewline, gt + 1);
          break;
        }
        case Step::NameNewline:
        case Step::ParameterNewline:
          if (at_ >= rest.size()) return Result::NeedMore;
          if (rest[at_] != '\n') return Result::Malformed;
          next(step_ == Step::NameNewline ? Step::Element : Step::Value, at_ + 1);
          break;
        case Step::Element: {
          const std::string_view tail = rest.substr(at_);
          if (tail.starts_with(kXmlParameterOpen)) {
            next(Step::ParameterName, at_ + kXmlParameterOpen.size());
          } else if (tail.starts_with(kXmlFunctionEnd)) {
            end_ = at_ + kXmlFunctionEnd.size();
            return Result::End;
          } else {
            const bool either = cut_or_malformed(tail, kXmlParameterOpen) == Result::NeedMore ||
                                cut_or_malformed(tail, kXmlFunctionEnd) == Result::NeedMore;
            return either ? Result::NeedMore : Result::Malformed;
          }
          break;
        }
        case Step::Value: {
          const size_t v = rest.find(kXmlParameterClose, search_);
          if (v == npos) {
            search_ = resume_at(at_, rest.size(), kXmlParameterClose);
            return Result::NeedMore;
          }
          value_ = {at_, v};
          next(Step::Element, v + kXmlParameterClose.size());
          return Result::ValueClosed;
        }
      }
    }
  }

  // The text ended while the scan needed more: an unclosed value makes the call malformed when a
  // "</tool_call>" follows it (the call then ends at the call's first "</tool_call>"); otherwise it
  // is cut off.
  bool malformed_at_end(std::string_view rest) const {
    return step_ == Step::Value && rest.find(kToolCallClose, at_) != npos;
  }

  bool named() const { return step_ != Step::Head && step_ != Step::Name && step_ != Step::NameNewline; }
  std::string_view name(std::string_view rest) const { return rest.substr(name_begin_, name_end_ - name_begin_); }
  // The parameter last named, and its value: the open one while in_value(), else the last closed.
  std::string_view parameter_name(std::string_view rest) const { return slice(rest, parameter_); }
  bool in_value() const { return step_ == Step::Value; }
  size_t value_begin() const { return in_value() ? at_ : value_.first; }
  std::string_view value(std::string_view rest) const { return slice(rest, value_); }
  size_t end() const { return end_; }

 private:
  enum class Step { Head, Name, NameNewline, Element, ParameterName, ParameterNewline, Value };

  static Result cut_or_malformed(std::string_view tail, std::string_view expected) {
    return tail.size() < expected.size() && expected.starts_with(tail) ? Result::NeedMore : Result::Malformed;
  }

  static std::string_view slice(std::string_view rest, std::pair<size_t, size_t> r) {
    return rest.substr(r.first, r.second - r.first);
  }

  void next(Step step, size_t at) {
    step_ = step;
    at_ = search_ = at;
  }

  Step step_ = Step::Head;
  size_t at_ = 0, search_ = 0, name_begin_ = 0, name_end_ = 0, end_ = 0;
  std::pair<size_t, size_t> parameter_{0, 0}, value_{0, 0};
};

// A string's JSON text without its quotes, as parse_chat_output's dump writes it (broken UTF-8
// becomes U+FFFD).
std::string json_string_body(std::string_view s) {
  const std::string quoted = OJson(std::string(s)).dump(-1, ' ', false, OJson::error_handler_t::replace);
  return quoted.substr(1, quoted.size() - 2);
}

// How many bytes at the end of `s` begin a UTF-8 sequence that is not complete yet.
size_t incomplete_utf8_tail(std::string_view s) {
  for (size_t n = 1; n <= std::min<size_t>(3, s.size()); ++n) {
    const auto c = static_cast<unsigned char>(s[s.size() - n]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back
    const size_t length = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return length > n ? n : 0;
  }
  return 0;
}

// How a tool's XML arguments can be published parameter by parameter: only a strict tool's planned
// parameters, which the grammar writes once each in order (a repeated parameter replaces the first
// one's value in place, so other tools' arguments are published whole).
struct XmlArgumentPlan {
  std::string tool;
  bool per_parameter = false;
  std::vector<std::pair<std::string, XmlValueKind>> kinds;
};

std::vector<XmlArgumentPlan> xml_argument_plans(const std::vector<ToolDefinition>& tools) {
  std::vector<XmlArgumentPlan> plans;
  for (const ToolDefinition& t : tools) {
    XmlArgumentPlan plan;
    plan.tool = t.name;
    ToolContract c;
    c.definition = &t;
    try {
      if (!t.parameters.empty()) c.parameters = OJson::parse(t.parameters);
      plan.per_parameter = t.strict && try_plan_xml_parameters(c) && !c.xml_additional;
    } catch (const std::exception&) {
    }
    for (const XmlParameter& p : c.xml_parameters) plan.kinds.emplace_back(p.name, p.kind);
    plans.push_back(std::move(plan));
  }
  return plans;
}

// A JSON-format call read progressively along the shape the grammar writes:
// <tool_call>\n{"name": "NAME", "arguments": {...}}\n</tool_call>
struct JsonCallReader {
  enum class Step { Head, Name, Middle, ArgumentsStart, Arguments, Tail };
  Step step = Step::Head;
  size_t at = 0;  // the next byte to read, absolute
  size_t name_begin = 0, name_end = 0, tail_begin = 0;
  int depth = 0;
  bool in_string = false, escaped = false;
};

}  // namespace

struct ChatStreamParser::State {
  enum class Phase {
    Start,         // OptionalThinking: does the output open "<think>"?
    ThinkNewline,  // after the model's "<think>": the template's newline
    Reasoning,     // up to "</think>"
    AfterThink,    // the newlines after "</think>"
    Lead,          // the body before the first call
    Call,          // from "<tool_call>" to its end
    Between,       // text after a call
    AtFinish,      // the rest is resolved by finish()
  };

  OutputStart start;
  std::vector<ToolDefinition> tools;
  ToolCallFormat format;
  uint64_t id_seed;
  CallStreaming call_streaming;
  ContinuedBody continued;
  bool xml = false;

  std::string text;  // continuation + output so far
  bool ended = false, finished = false;
  Phase phase = Phase::Start;
  size_t region = 0;     // where the current phase's text starts
  size_t published = 0;  // how far the current phase's text is published
  size_t cursor = 0;     // where the search for the phase's closing tag resumes

  // The current call.
  size_t call_start = 0, close_search = 0;
  bool progressive = false, begun = false;
  JsonCallReader json;
  XmlCallScan xml_scan;
  std::optional<ToolCallReader> reader;           // built at the first call
  std::optional<std::vector<XmlArgumentPlan>> xml_plans;  // Progressive XML, built at the first call
  const XmlArgumentPlan* xml_plan = nullptr;  // the current call's, when published per parameter
  size_t xml_members = 0;       // parameters published
  bool raw_value_open = false;  // a raw string value is being published as it comes
  size_t raw_published = 0;     // how far its text is published, absolute
  bool between_counts = false;  // the text after the last call has non-space text: it is content

  // What was published, before the continued body is dropped (what parse_chat_output's fields hold).
  std::string reasoning, content;
  std::vector<ToolCall> calls;

  std::vector<ChatDelta> out;

  State(OutputStart s, std::vector<ToolDefinition> t, ToolCallFormat f, uint64_t seed, std::string continuation,
        CallStreaming streaming)
      : start(s),
        tools(std::move(t)),
        format(f),
        id_seed(seed),
        call_streaming(streaming),
        continued(continuation),
        xml(f == ToolCallFormat::Xml),
        text(std::move(continuation)) {}

  const ToolCallReader& call_reader() {
    if (!reader) reader.emplace(tools, format);
    return *reader;
  }

  // ---- publishing -------------------------------------------------------------------------------

  void emit(ChatDelta::Kind kind, std::string_view piece, size_t index = 0) {
    if (piece.empty()) return;
    if (!out.empty() && out.back().kind == kind && out.back().index == index) {
      out.back().text += piece;
      return;
    }
    ChatDelta d;
    d.kind = kind;
    d.text = std::string(piece);
    d.index = index;
    out.push_back(std::move(d));
  }

  bool reasoning_is_continued() const { return start != OutputStart::Body; }

  void publish_reasoning(std::string_view raw) {
    reasoning += raw;
    emit(ChatDelta::Kind::Reasoning, reasoning_is_continued() ? continued.pass(raw) : std::string(raw));
  }

  void publish_content(std::string_view raw) {
    content += raw;
    emit(ChatDelta::Kind::Content, reasoning_is_continued() ? std::string(raw) : continued.pass(raw));
  }

  // The current phase's text up to `upto` (never backwards: what is published is certain).
  void publish_reasoning_to(size_t upto) {
    if (upto <= published) return;
    publish_reasoning(std::string_view(text).substr(published, upto - published));
    published = upto;
  }
  void publish_content_to(size_t upto) {
    if (upto <= published) return;
    publish_content(std::string_view(text).substr(published, upto - published));
    published = upto;
  }

  // parse_chat_output joins later content to earlier content with a newline.
  void append_content_part(std::string_view part) {
    if (!content.empty()) publish_content("\n");
    publish_content(part);
  }

  void begin_call(std::string name) {
    ToolCall c;
    c.id = tool_call_id(id_seed, calls.size());
    c.name = std::move(name);
    ChatDelta d;
    d.kind = ChatDelta::Kind::ToolCallBegin;
    d.index = calls.size();
    d.id = c.id;
    d.name = c.name;
    out.push_back(std::move(d));
    calls.push_back(std::move(c));
  }

  void publish_arguments(std::string_view piece) {
    calls.back().arguments += piece;
    emit(ChatDelta::Kind::ToolCallArguments, piece, calls.size() - 1);
  }

  // ---- phases -----------------------------------------------------------------------------------

  void run() {
    while (advance()) {
    }
  }

  // One step; false when the phase waits for more text.
  bool advance() {
    switch (phase) {
      case Phase::Start: return at_start();
      case Phase::ThinkNewline: return after_think_open();
      case Phase::Reasoning: return in_reasoning();
      case Phase::AfterThink: return after_think_close();
      case Phase::Lead: return in_lead();
      case Phase::Call: return in_call();
      case Phase::Between: return between_calls();
      case Phase::AtFinish: return false;
    }
    return false;
  }

  bool enter(Phase p, size_t at) {
    phase = p;
    region = published = cursor = at;
    return true;
  }

  bool at_start() {
    if (start == OutputStart::Body) return enter(Phase::Lead, 0);
    if (start == OutputStart::Thinking) return enter(Phase::Reasoning, 0);
    if (text.starts_with(kThinkOpen)) return enter(Phase::ThinkNewline, kThinkOpen.size());
    if (kThinkOpen.starts_with(text)) {
      if (!ended) return false;
      return enter(Phase::AtFinish, text.size());  // cut off inside "<think>": nothing to show
    }
    return enter(Phase::Lead, 0);
  }

  bool after_think_open() {
    if (region < text.size()) return enter(Phase::Reasoning, region + (text[region] == '\n' ? 1 : 0));
    return ended && enter(Phase::Reasoning, region);
  }

  bool in_reasoning() {
    const std::string_view t = text;
    if (const size_t close = t.find(kThinkEndTag, cursor); close != npos) {
      const size_t end = close > region && t[close - 1] == '\n' ? close - 1 : close;
      publish_reasoning_to(end);
      // The reasoning is complete: a continued body it did not reach stays in it.
      emit(ChatDelta::Kind::Reasoning, continued.finish());
      return enter(Phase::AfterThink, close + kThinkEndTag.size());
    }
    cursor = resume_at(region, t.size(), kThinkEndTag);
    const std::string_view r = t.substr(region);
    if (ended) {
      publish_reasoning_to(t.size() - partial_suffix(r, kThinkClose));
      return enter(Phase::AtFinish, t.size());
    }
    publish_reasoning_to(t.size() - std::max(partial_suffix(r, kThinkEndWithNewline), partial_suffix(r, kThinkEndTag)));
    return false;
  }

  // "\n\n" is the template's; without it, any run of newlines goes.
  bool after_think_close() {
    const std::string_view t = std::string_view(text).substr(region);
    size_t newlines = 0;
    while (newlines < t.size() && t[newlines] == '\n') ++newlines;
    if (newlines == t.size() && !ended && newlines < 2) return false;
    return enter(Phase::Lead, region + (newlines >= 2 ? 2 : newlines));
  }

  bool in_lead() {
    const std::string_view t = text;
    if (tools.empty()) {
      publish_content_to(t.size());
      return ended && enter(Phase::AtFinish, t.size());
    }
    if (const size_t open = t.find(kToolCallOpen, cursor); open != npos) {
      // The separator the template writes before the first call.
      const std::string_view before = t.substr(region, open - region);
      size_t end = open;
      if (xml && before.ends_with("\n\n")) end -= 2;
      else if (before.ends_with("\n")) end -= 1;
      publish_content_to(end);
      return enter_call(open);
    }
    cursor = resume_at(region, t.size(), kToolCallOpen);
    if (ended) {
      publish_content_to(t.size());  // a trailing "<tool_c" stays content
      return enter(Phase::AtFinish, t.size());
    }
    const std::string_view body = t.substr(region);
    size_t hold = partial_suffix(body, kToolCallOpen);
    for (size_t n = xml ? 2 : 1; n > 0 && hold < body.size() && body[body.size() - 1 - hold] == '\n'; --n) ++hold;
    publish_content_to(t.size() - hold);
    return false;
  }

  bool enter_call(size_t at) {
    enter(Phase::Call, at);
    call_start = close_search = at;
    progressive = call_streaming == CallStreaming::Progressive;
    begun = false;
    json = JsonCallReader{};
    json.at = at;
    xml_scan = XmlCallScan{};
    xml_plan = nullptr;
    xml_members = 0;
    raw_value_open = false;
    return true;
  }

  bool in_call() {
    if (xml) return in_xml_call();
    if (progressive) return read_json_call();
    // parse_chat_output ends a JSON-format call at the first "\n</tool_call>"; only when none
    // follows anywhere does it end at the first "</tool_call>".
    const std::string_view t = text;
    if (const size_t e = t.find(kJsonCallEnd, cursor); e != npos) return close_call(e + kJsonCallEnd.size());
    cursor = resume_at(call_start, t.size(), kJsonCallEnd);
    if (!ended) return false;
    const size_t any = t.find(kToolCallClose, call_start);
    if (any == npos) return enter(Phase::AtFinish, t.size());  // cut off: neither a call nor content
    return close_call(any + kToolCallClose.size());
  }

  bool in_xml_call() {
    const std::string_view rest = std::string_view(text).substr(call_start);
    XmlCallScan::Result r;
    while (true) {
      r = xml_scan.scan(rest);
      if (progressive && !begun && xml_scan.named()) begin_xml_call(xml_scan.name(rest));
      if (r != XmlCallScan::Result::ValueClosed) break;
      if (xml_plan && !publish_parameter(rest)) return enter(Phase::AtFinish, text.size());
    }
    if (r == XmlCallScan::Result::End) {
      if (xml_plan) publish_arguments(xml_members > 0 ? "}" : "{}");
      return close_call(call_start + xml_scan.end());
    }
    if (r == XmlCallScan::Result::NeedMore) {
      if (xml_plan && xml_scan.in_value()) publish_open_raw_value(rest);
      if (!ended) return false;
      if (!xml_scan.malformed_at_end(rest)) return enter(Phase::AtFinish, text.size());  // cut off
    }
    // Malformed: the call ends at the first "</tool_call>".
    const size_t close = text.find(kToolCallClose, close_search);
    if (close != npos) return close_call(close + kToolCallClose.size());
    close_search = resume_at(call_start, text.size(), kToolCallClose);
    return ended && enter(Phase::AtFinish, text.size());
  }

  void begin_xml_call(std::string_view name) {
    begin_call(std::string(name));
    begun = true;
    if (!xml_plans) xml_plans = xml_argument_plans(tools);
    for (const XmlArgumentPlan& p : *xml_plans)
      if (p.tool == name) {
        if (p.per_parameter) xml_plan = &p;
        break;  // parse_chat_output types by the first tool of that name
      }
  }

  std::optional<XmlValueKind> parameter_kind(std::string_view name) const {
    for (const auto& [p, kind] : xml_plan->kinds)
      if (p == name) return kind;
    return std::nullopt;
  }

  std::string member_head(std::string_view parameter) const {
    return (xml_members > 0 ? "," : "{") + OJson(std::string(parameter)).dump(-1, ' ', false, OJson::error_handler_t::replace) + ":";
  }

  // A closed parameter: the rest of a raw string published as it came, or the typed value, as
  // parse_chat_output types it (read from a call holding only that parameter). False when the
  // value does not read.
  bool publish_parameter(std::string_view rest) {
    const std::string_view name = xml_scan.parameter_name(rest), value = xml_scan.value(rest);
    if (raw_value_open) {
      const size_t value_end = call_start + (value.data() - rest.data()) + value.size();
      publish_arguments(json_string_body(std::string_view(text).substr(raw_published, value_end - raw_published)) + "\"");
      raw_value_open = false;
    } else {
      const std::string alone = std::string(kXmlCallHead) + calls.back().name + ">\n" + std::string(kXmlParameterOpen) +
                                std::string(name) + ">\n" + std::string(value) + std::string(kXmlParameterClose) +
                                std::string(kXmlFunctionEnd);
      const std::optional<ToolCall> call = call_reader().read(alone);
      if (!call || call->arguments.size() < 2 || call->arguments == "{}") return false;
      publish_arguments((xml_members > 0 ? "," : "{") + call->arguments.substr(1, call->arguments.size() - 2));
    }
    ++xml_members;
    return true;
  }

  // A raw string value streams as JSON string text, holding what may be its close.
  void publish_open_raw_value(std::string_view rest) {
    const std::string_view name = xml_scan.parameter_name(rest);
    if (parameter_kind(name) != XmlValueKind::RawString) return;
    const size_t begin = call_start + xml_scan.value_begin();
    if (!raw_value_open) {
      publish_arguments(member_head(name) + "\"");
      raw_value_open = true;
      raw_published = begin;
    }
    const std::string_view open = std::string_view(text).substr(raw_published);
    const size_t hold = std::max(partial_suffix(std::string_view(text).substr(begin), kXmlParameterClose), incomplete_utf8_tail(open));
    if (open.size() > hold) {
      publish_arguments(json_string_body(open.substr(0, open.size() - hold)));
      raw_published += open.size() - hold;
    }
  }

  // A JSON-format call along the grammar's shape: the begin once the arguments open, then the
  // arguments minified as they come. A departure before the begin reads the call buffered; after
  // it, finish() settles the call.
  bool read_json_call() {
    const std::string_view t = text;
    JsonCallReader& r = json;
    std::string arguments;
    const auto flush = [&] {
      if (!arguments.empty()) publish_arguments(arguments);
      arguments.clear();
    };
    const auto buffered = [&] {
      progressive = false;
      return true;
    };
    while (r.at < t.size()) {
      const char c = t[r.at];
      switch (r.step) {
        case JsonCallReader::Step::Head:
          if (c != kJsonCallHead[r.at - call_start]) return buffered();
          if (++r.at - call_start == kJsonCallHead.size()) {
            r.step = JsonCallReader::Step::Name;
            r.name_begin = r.at;
          }
          break;
        case JsonCallReader::Step::Name:
          if (r.escaped) {
            r.escaped = false;
          } else if (c == '\\') {
            r.escaped = true;
          } else if (c == '"') {  // the first byte of the middle
            r.name_end = r.at;
            r.step = JsonCallReader::Step::Middle;
            break;
          }
          ++r.at;
          break;
        case JsonCallReader::Step::Middle:
          if (c != kJsonCallMiddle[r.at - r.name_end]) return buffered();
          if (++r.at - r.name_end == kJsonCallMiddle.size()) r.step = JsonCallReader::Step::ArgumentsStart;
          break;
        case JsonCallReader::Step::ArgumentsStart: {
          if (json_space(c)) {
            ++r.at;
            break;
          }
          if (c != '{') return buffered();
          const OJson name = OJson::parse(t.substr(r.name_begin - 1, r.name_end - r.name_begin + 2), nullptr, false);
          if (!name.is_string()) return buffered();
          begin_call(name.get<std::string>());
          begun = true;
          arguments += c;
          r.depth = 1;
          r.step = JsonCallReader::Step::Arguments;
          ++r.at;
          break;
        }
        case JsonCallReader::Step::Arguments:
          ++r.at;
          if (r.in_string) {
            arguments += c;
            if (r.escaped) r.escaped = false;
            else if (c == '\\') r.escaped = true;
            else if (c == '"') r.in_string = false;
            break;
          }
          if (json_space(c)) break;
          arguments += c;
          if (c == '"') r.in_string = true;
          else if (c == '{' || c == '[') ++r.depth;
          else if ((c == '}' || c == ']') && --r.depth == 0) {
            r.step = JsonCallReader::Step::Tail;
            r.tail_begin = r.at;
          }
          break;
        case JsonCallReader::Step::Tail:
          if (c != kJsonCallTail[r.at - r.tail_begin]) {
            flush();
            return enter(Phase::AtFinish, t.size());
          }
          if (++r.at - r.tail_begin == kJsonCallTail.size()) {
            flush();
            return close_call(r.at);
          }
          break;
      }
    }
    flush();
    if (!ended) return false;
    return begun ? enter(Phase::AtFinish, t.size()) : buffered();
  }

  // The call [call_start, end) is closed: a call, or content when it does not parse.
  bool close_call(size_t end) {
    const std::string_view whole = std::string_view(text).substr(call_start, end - call_start);
    std::optional<ToolCall> call = call_reader().read(whole);
    if (begun) {
      // Published progressively: the call must be the one the whole text gives.
      if (!call || call->name != calls.back().name || !call->arguments.starts_with(calls.back().arguments))
        return enter(Phase::AtFinish, text.size());
      publish_arguments(std::string_view(call->arguments).substr(calls.back().arguments.size()));
    } else if (call) {
      begin_call(std::move(call->name));
      publish_arguments(call->arguments);
    } else {
      append_content_part(whole);
    }
    between_counts = false;
    return enter(Phase::Between, end);
  }

  // Text after a call is content only when it holds more than spaces; a trailing partial
  // "<tool_call" (the next call opening) is never content.
  bool between_calls() {
    const std::string_view t = text;
    const size_t open = t.find(kToolCallOpen, cursor);
    const size_t upto = open != npos ? open : t.size() - partial_suffix(t.substr(region), kToolCallOpen);
    if (!between_counts && has_non_space(t.substr(region, upto - region))) {
      between_counts = true;
      if (!content.empty()) publish_content("\n");
    }
    if (between_counts) publish_content_to(upto);
    if (open != npos) return enter_call(open);
    cursor = resume_at(region, t.size(), kToolCallOpen);
    return ended && enter(Phase::AtFinish, t.size());
  }

  // ---- the end ----------------------------------------------------------------------------------

  // Publishes whatever parse_chat_output gives for the whole text beyond what was published,
  // where what was published is a prefix of it.
  void settle() {
    const ChatOutput whole = parse_chat_output(text, start, tools, format, id_seed);
    if (whole.reasoning.starts_with(reasoning)) publish_reasoning(std::string_view(whole.reasoning).substr(reasoning.size()));
    if (whole.content.starts_with(content)) publish_content(std::string_view(whole.content).substr(content.size()));
    for (size_t i = 0; i < whole.tool_calls.size(); ++i) {
      const ToolCall& c = whole.tool_calls[i];
      if (i < calls.size()) {
        if (calls[i].name == c.name && c.arguments.starts_with(calls[i].arguments)) {
          const std::string rest = c.arguments.substr(calls[i].arguments.size());
          calls[i].arguments += rest;
          emit(ChatDelta::Kind::ToolCallArguments, rest, i);
        }
        continue;
      }
      begin_call(c.name);
      publish_arguments(c.arguments);
    }
    emit(reasoning_is_continued() ? ChatDelta::Kind::Reasoning : ChatDelta::Kind::Content, continued.finish());
  }
};

ChatStreamParser::ChatStreamParser(OutputStart start, std::vector<ToolDefinition> tools, ToolCallFormat format,
                                   uint64_t id_seed, std::string continuation, CallStreaming calls)
    : state_(std::make_shared<State>(start, std::move(tools), format, id_seed, std::move(continuation), calls)) {}

std::vector<ChatDelta> ChatStreamParser::feed(std::string_view piece) {
  State& s = *state_;
  if (s.finished) return {};
  s.text += piece;
  s.run();
  return std::exchange(s.out, {});
}

std::vector<ChatDelta> ChatStreamParser::finish() {
  State& s = *state_;
  if (s.finished) return {};
  s.finished = s.ended = true;
  s.run();
  s.settle();
  return std::exchange(s.out, {});
}

}  // namespace ninfer::qwen3
