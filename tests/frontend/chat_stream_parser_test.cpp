// ChatStreamParser against parse_chat_output as its oracle: for a corpus of outputs (thinking open,
// closed and cut, content, calls in both formats, malformed calls, continuations, multibyte text,
// text that looks like partial tags), every cut into two pieces, every character on its own, seeded
// random multi-cuts and every cut-off prefix must concatenate to exactly what parse_chat_output
// gives for the whole text (split_chat_output's treatment of a continuation included). Plus what
// streaming is for: text is published as soon as it is certain, in the order of the text.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>

#include "frontend_test_support.h"
#include "models/qwen3/frontend/chat_format.h"
#include "models/qwen3/frontend/chat_output_parser.h"
#include "models/qwen3/frontend/chat_stream_parser.h"

namespace ninfer::qwen3 {
namespace {

using Kind = ChatDelta::Kind;

const std::vector<ToolDefinition>& json_tools() {
  static const std::vector<ToolDefinition> t = {
      testing::tool("get_weather",
                    R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city"],"additionalProperties":false})"),
      testing::tool("search", "", false)};
  return t;
}

const std::vector<ToolDefinition>& xml_tools() {
  static const std::vector<ToolDefinition> t = {
      testing::tool(
          "f",
          R"({"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"},"ok":{"type":"boolean"},"ratio":{"type":"number"},"opt":{"type":["integer","null"]},"note":{"type":["string","null"]},"obj":{"type":"object"},"list":{"type":"array"}},"additionalProperties":false})"),
      testing::tool("g", "", false)};
  return t;
}

const std::vector<ToolDefinition>& no_tools() {
  static const std::vector<ToolDefinition> t;
  return t;
}

struct Case {
  const char* name;
  OutputStart start;
  ToolCallFormat format;
  const std::vector<ToolDefinition>* tools;
  std::string text;
  std::string continuation = {};
  bool grammatical = false;  // the output language's (calls in the template's exact shape)
};

std::string json_call(const std::string& name, const std::string& arguments) {
  return "<tool_call>\n{\"name\": \"" + name + "\", \"arguments\": " + arguments + "}\n</tool_call>";
}

std::string xml_call(const std::string& name, const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string s = "<tool_call>\n<function=" + name + ">\n";
  for (const auto& [p, v] : parameters) s += "<parameter=" + p + ">\n" + v + "\n</parameter>\n";
  return s + "</function>\n</tool_call>";
}

std::vector<Case> corpus() {
  const OutputStart body = OutputStart::Body, thinking = OutputStart::Thinking, optional = OutputStart::OptionalThinking;
  const ToolCallFormat json = ToolCallFormat::Json, xml = ToolCallFormat::Xml;
  const std::string weather = json_call("get_weather", R"({"city": "Paris", "days": 3})");
  const std::string tricky =
      json_call("search", R"({"q": "a \"quoted\" {brace} [x] \\ é \u00fc </tool_call>", "n": [1, -2.5e3, {"x": null}], "t": true})");
  const std::string f_call = xml_call("f", {{"city", "New York"},
                                            {"days", "3"},
                                            {"ok", "true"},
                                            {"ratio", "0.5"},
                                            {"opt", "null"},
                                            {"note", "two\nlines é"},
                                            {"obj", R"({"a": [1, 2]})"},
                                            {"list", R"(["x", "日本"])"}});
  const std::string g_call = xml_call("g", {{"body", "line 1\n<parameter=x>\n</tool_call> not the end"}, {"n", "7"}});
  return {
      {"PlainContent", body, json, &json_tools(), "Hello, world! <b>é</b> 日本語 😀", {}, true},
      {"PlainContentWithoutTools", body, json, &no_tools(), "x <tool_call>\n{\"name\": \"a\"}\n</tool_call>\n", {}, true},
      {"ContentThatLooksLikeTags", body, json, &json_tools(), "a <tool b <tool_cal\n</th x\n\n<tool\n<tool_c", {}, true},
      {"ContentEndingInNewlines", body, xml, &xml_tools(), "para\n\n\n", {}, true},
      {"ContentThenJsonCall", body, json, &json_tools(), "Let me check.\n" + weather, {}, true},
      {"JsonContentKeepsExtraNewline", body, json, &json_tools(), "Two newlines\n\n" + weather, {}, true},
      {"XmlContentWithOneNewline", body, xml, &xml_tools(), "One newline\n" + f_call, {}, true},
      {"JsonCallsOnly", body, json, &json_tools(), weather + "\n" + tricky + "\n" + json_call("search", "{}"), {}, true},
      {"JsonCallWithHugeNumbers", body, json, &json_tools(),
       json_call("search", R"({"n": 123456789012345678901234567890, "f": 1e400, "s":"é"})"), {}, true},
      {"ThinkingThenContent", thinking, json, &json_tools(), "Let me think <b>\nabout </thi it.\n</think>\n\nAnswer: 42", {}, true},
      {"ThinkingCut", thinking, json, &json_tools(), "reasoning goes on\n</thi", {}, true},
      {"ThinkingThenCalls", thinking, json, &json_tools(), "Plan: two calls.\n</think>\n\n" + weather + "\n" + tricky, {}, true},
      {"ThinkingLenientCloses", thinking, json, &no_tools(), "x</think>y", {}, false},
      {"ThinkingManyNewlines", thinking, json, &no_tools(), "x\n\n</think>\n\n\ny", {}, false},
      {"ThinkingOneNewline", thinking, json, &no_tools(), "x</think>\ny\n", {}, false},
      {"OptionalThinkingOpened", optional, json, &json_tools(), "<think>\nhmm é\n</think>\n\nHi there", {}, true},
      {"OptionalThinkingOpenedNoNewline", optional, json, &json_tools(), "<think>hmm</think>", {}, false},
      {"OptionalThinkingNotOpened", optional, json, &json_tools(), "<thinking is fun> says " + weather, {}, false},
      {"OptionalThinkingCut", optional, json, &json_tools(), "<thi", {}, true},
      {"JsonArgumentsNotAnObject", body, json, &json_tools(), "Text\n" + json_call("search", "[1]") + "\n" + weather, {}, false},
      {"JsonArgumentsAsString", body, json, &json_tools(), json_call("search", R"("{\"a\": [1, 2], \"b\": \"c d\"}")"), {}, false},
      {"JsonArgumentsNullAndMissing", body, json, &json_tools(),
       json_call("search", "null") + "\n<tool_call>\n{\"name\": \"search\"}\n</tool_call>", {}, false},
      {"JsonDuplicateKeys", body, json, &json_tools(),
       "<tool_call>\n{\"name\": \"x\", \"arguments\": {\"a\": 1}, \"name\": \"search\", \"arguments\": {\"a\": 2, \"a\": 3}}\n</tool_call>", {}, false},
      {"JsonBareClose", body, json, &json_tools(),
       "<tool_call>{\"arguments\": {\"a\": 1}, \"name\": \"search\"}</tool_call> then <tool_call>{\"name\": \"search\"}</tool_call>", {}, false},
      {"JsonTextBetweenAndAfterCalls", body, json, &json_tools(), "Hi\n" + weather + "\nMiddle text\n" + weather + "\n  \n" + weather + "\nDone!\n<tool_", {}, false},
      {"JsonBrokenCallBecomesContent", body, json, &json_tools(), "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"a\": }\n</tool_call>\nafter", {}, false},
      {"JsonCutOffCall", body, json, &json_tools(), "Sure.\n" + weather + "\n<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": \"par", {}, false},
      {"ContinuedContent", body, json, &json_tools(), " 42.\n" + weather, "The answer is", true},
      {"ContinuedContentEndingInSeparator", body, json, &json_tools(), weather, "Hello\n", false},
      {"ContinuedReasoning", thinking, json, &json_tools(), " more.\n</think>\n\nDone", "I was thinking", true},
      {"ContinuedOptionalThinking", optional, json, &json_tools(), "def</think>ok", "<think>\nabc", false},
      {"ContinuedDivergingPrefix", body, json, &json_tools(), "", "abc\n\n", false},
      {"ContentThenXmlCall", body, xml, &xml_tools(), "I'll call.\n\n" + f_call, {}, true},
      {"XmlCallsWithRawValues", thinking, xml, &xml_tools(), "ok\n</think>\n\n" + g_call + "\n" + f_call, {}, true},
      {"XmlContentKeepsExtraNewline", body, xml, &xml_tools(), "abc\n\n\n" + g_call, {}, true},
      {"XmlUnclosedValueEndsAtFirstClose", body, xml, &xml_tools(),
       "<tool_call>\n<function=f>\n<parameter=city>\nOslo</parameter>\n</function>\n</tool_call>\nok", {}, false},
      {"XmlMalformedCall", body, xml, &xml_tools(), "<tool_call>\n<function=f>\njunk\n</tool_call>\ntext after", {}, false},
      {"XmlNameWithNewline", body, xml, &xml_tools(), "<tool_call>\n<function=f\n>\n</function>\n</tool_call>", {}, false},
      {"XmlValueHoldsCloseThenStrays", body, xml, &xml_tools(),
       "<tool_call>\n<function=g>\n<parameter=a>\nq</tool_call>r\n</parameter>\nzz</tool_call>", {}, false},
      {"XmlCutOffCall", body, xml, &xml_tools(), f_call + "\n<tool_call>\n<function=f>\n<parameter=city>\nBer", {}, false},
  };
}

// ---- the oracle -------------------------------------------------------------------------------

// split_chat_output (src/runtime/chat_prompt.cpp), which this test binary does not link: the
// continued body is parsed with the output and dropped from the front of its field.
ChatOutput expected(const Case& c, const std::string& output) {
  ChatOutput out = parse_chat_output(c.continuation + output, c.start, *c.tools, c.format, 99);
  std::string& field = c.start == OutputStart::Body ? out.content : out.reasoning;
  if (!c.continuation.empty() && field.compare(0, c.continuation.size(), c.continuation) == 0)
    field.erase(0, c.continuation.size());
  return out;
}

// The deltas put together, with the order they must come in checked on the way.
struct Assembled {
  std::string reasoning, content;
  std::vector<ToolCall> calls;
  std::string fault;

  void add(const ChatDelta& d) {
    if (!fault.empty()) return;
    if (d.kind != Kind::Reasoning) left_reasoning = true;
    switch (d.kind) {
      case Kind::Reasoning:
        if (left_reasoning) fault = "reasoning after other deltas";
        reasoning += d.text;
        break;
      case Kind::Content: content += d.text; break;
      case Kind::ToolCallBegin:
        if (d.index != calls.size()) fault = "call " + std::to_string(d.index) + " begins out of order";
        calls.push_back(ToolCall{d.id, d.name, ""});
        break;
      case Kind::ToolCallArguments:
        if (calls.empty() || d.index != calls.size() - 1) fault = "arguments for a call that is not the latest";
        else calls.back().arguments += d.text;
        break;
    }
    if (d.kind != Kind::ToolCallBegin && d.text.empty()) fault = "an empty delta";
  }

  bool left_reasoning = false;
  size_t from_finish = 0;  // deltas that finish() returned
};

std::string describe(const ChatOutput& o) {
  std::string s = "reasoning=[" + o.reasoning + "] content=[" + o.content + "]";
  for (const ToolCall& c : o.tool_calls) s += " call(" + c.id + "," + c.name + "," + c.arguments + ")";
  return s;
}

std::string describe(const Assembled& a) {
  ChatOutput o;
  o.reasoning = a.reasoning;
  o.content = a.content;
  o.tool_calls = a.calls;
  return describe(o) + (a.fault.empty() ? "" : " FAULT: " + a.fault);
}

Assembled stream(const Case& c, const std::vector<std::string_view>& pieces, CallStreaming mode) {
  ChatStreamParser p(c.start, *c.tools, c.format, 99, c.continuation, mode);
  Assembled a;
  for (std::string_view piece : pieces)
    for (const ChatDelta& d : p.feed(piece)) a.add(d);
  const std::vector<ChatDelta> last = p.finish();
  for (const ChatDelta& d : last) a.add(d);
  a.from_finish = last.size();
  return a;
}

bool same_call(const ToolCall& a, const ToolCall& b) { return a.id == b.id && a.name == b.name && a.arguments == b.arguments; }

// Exact: the three parts equal. Cut off (Progressive streaming): the calls may hold one more,
// the call that was cut off, as far as it was published.
::testing::AssertionResult matches(const Assembled& got, const ChatOutput& want, bool allow_cut_off_call) {
  bool ok = got.fault.empty() && got.reasoning == want.reasoning && got.content == want.content;
  const size_t n = want.tool_calls.size();
  ok = ok && (got.calls.size() == n || (allow_cut_off_call && got.calls.size() == n + 1));
  for (size_t i = 0; ok && i < n; ++i) ok = same_call(got.calls[i], want.tool_calls[i]);
  if (ok) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\n  streamed: " << describe(got) << "\n  expected: " << describe(want);
}

// Where a piece may end: between UTF-8 characters (the engine publishes whole characters).
std::vector<size_t> char_boundaries(std::string_view s) {
  std::vector<size_t> b;
  for (size_t i = 1; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) b.push_back(i);
  return b;
}

std::vector<std::string_view> cut_at(std::string_view s, const std::vector<size_t>& cuts) {
  std::vector<std::string_view> pieces;
  size_t from = 0;
  for (size_t at : cuts) {
    pieces.push_back(s.substr(from, at - from));
    from = at;
  }
  pieces.push_back(s.substr(from));
  return pieces;
}

std::vector<size_t> random_cuts(const std::vector<size_t>& boundaries, std::mt19937& rng) {
  std::vector<size_t> cuts;
  if (boundaries.empty()) return cuts;
  const size_t n = 1 + rng() % std::min<size_t>(boundaries.size(), 12);
  for (size_t i = 0; i < n; ++i) cuts.push_back(boundaries[rng() % boundaries.size()]);
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  return cuts;
}

// Every way of cutting `output` the test tries: whole, every cut into two, every character alone,
// and `random` seeded multi-cuts.
std::vector<std::vector<size_t>> cuttings(std::string_view output, int random, std::mt19937& rng, bool every_single_cut) {
  const std::vector<size_t> b = char_boundaries(output);
  std::vector<std::vector<size_t>> all = {{}, b};
  if (every_single_cut)
    for (size_t at : b) all.push_back({at});
  for (int i = 0; i < random; ++i) all.push_back(random_cuts(b, rng));
  return all;
}

// Checks `c` every way; returns how many cut-off outputs left a partial call (Progressive).
size_t check_case(const Case& c, CallStreaming mode, std::mt19937& rng) {
  size_t partial_calls = 0;
  const bool progressive = mode == CallStreaming::Progressive;
  // The whole output, every way.
  const ChatOutput want = expected(c, c.text);
  // A grammatical output that ends with a call leaves nothing to the end: all was certain.
  const bool certain_at_end = c.grammatical && c.text.ends_with(kToolCallClose);
  for (const std::vector<size_t>& cuts : cuttings(c.text, 40, rng, true)) {
    const Assembled got = stream(c, cut_at(c.text, cuts), mode);
    EXPECT_TRUE(matches(got, want, false)) << c.name << " cut at " << ::testing::PrintToString(cuts);
    if (certain_at_end) {
      EXPECT_EQ(got.from_finish, 0u) << c.name << " cut at " << ::testing::PrintToString(cuts);
    }
  }
  // Every output cut off (max_tokens) at a character boundary, a few ways each.
  std::vector<size_t> ends = char_boundaries(c.text);
  ends.insert(ends.begin(), 0);
  for (size_t end : ends) {
    const std::string output = c.text.substr(0, end);
    const ChatOutput cut_want = expected(c, output);
    for (const std::vector<size_t>& cuts : cuttings(output, 2, rng, false)) {
      const Assembled got = stream(c, cut_at(output, cuts), mode);
      EXPECT_TRUE(matches(got, cut_want, progressive))
          << c.name << " cut off after " << end << " bytes, fed cut at " << ::testing::PrintToString(cuts);
      // The call cut off was published as far as the whole output's call goes.
      if (got.calls.size() > cut_want.tool_calls.size()) {
        const ToolCall& partial = got.calls.back();
        ++partial_calls;
        if (cut_want.tool_calls.size() >= want.tool_calls.size()) {
          ADD_FAILURE() << c.name << " after " << end << ": a partial call the whole output does not have";
          continue;
        }
        const ToolCall& whole = want.tool_calls[cut_want.tool_calls.size()];
        EXPECT_TRUE(partial.id == whole.id && partial.name == whole.name && whole.arguments.starts_with(partial.arguments))
            << c.name << " after " << end << ": " << partial.arguments << " is not the start of " << whole.arguments;
      }
    }
  }
  return partial_calls;
}

TEST(ChatStreamParser, BufferedStreamsConcatenateToTheParseOfTheWholeTextForEveryCut) {
  const auto t0 = std::chrono::steady_clock::now();
  std::mt19937 rng(20261201);
  for (const Case& c : corpus()) {
    SCOPED_TRACE(c.name);
    check_case(c, CallStreaming::Buffered, rng);
    if (HasFailure()) return;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

TEST(ChatStreamParser, ProgressiveStreamsOfGrammaticalOutputAreExactAndCutOffsOnlyLeaveThePartialCall) {
  std::mt19937 rng(7);
  size_t checked = 0, partial_calls = 0;
  for (const Case& c : corpus()) {
    if (!c.grammatical) continue;
    SCOPED_TRACE(c.name);
    ++checked;
    partial_calls += check_case(c, CallStreaming::Progressive, rng);
    if (HasFailure()) return;
  }
  EXPECT_GT(checked, 10u);
  EXPECT_GT(partial_calls, 100u);  // the cut-offs do reach into calls
}

// Buffered streaming is exact for any text: outputs mutated with framing fragments (the parse fuzz
// test's pieces), every start, both formats, a continuation now and then, fed in random pieces.
TEST(ChatStreamParser, BufferedStreamsOfMutatedOutputsAreExact) {
  const std::vector<Case> seeds = corpus();
  const std::string fragments[] = {"<tool_call>", "</tool_call>", "\n</tool_call>", "<think>", "</think>", "\n", "\n\n",
                                   "{", "}", "\"", "\\", "<function=f>\n", "<parameter=city>\n", "\n</parameter>\n",
                                   "</parameter>", "</function>\n</tool_call>", "é", "<tool_", "\n</thi", " "};
  std::mt19937 rng(424242);
  const auto t0 = std::chrono::steady_clock::now();
  for (int iter = 0; iter < 15000; ++iter) {
    Case c = seeds[rng() % seeds.size()];
    for (int m = int(rng() % 5); m >= 0; --m) {
      size_t at = c.text.empty() ? 0 : rng() % (c.text.size() + 1);
      while (at < c.text.size() && (static_cast<unsigned char>(c.text[at]) & 0xC0) == 0x80) ++at;  // a character boundary
      switch (rng() % 4) {
        case 0:
        case 1: c.text.insert(at, fragments[rng() % std::size(fragments)]); break;
        case 2: {
          size_t to = std::min(c.text.size(), at + 1 + rng() % 12);
          while (to < c.text.size() && (static_cast<unsigned char>(c.text[to]) & 0xC0) == 0x80) ++to;
          c.text.erase(at, to - at);
          break;
        }
        default: c.text.resize(at); break;  // cut off
      }
    }
    c.start = static_cast<OutputStart>(rng() % 3);
    c.format = rng() % 2 ? ToolCallFormat::Json : ToolCallFormat::Xml;
    c.tools = c.format == ToolCallFormat::Json ? &json_tools() : &xml_tools();
    if (rng() % 4 == 0) {
      const size_t split = rng() % (c.text.size() + 1);
      if (split == c.text.size() || (static_cast<unsigned char>(c.text[split]) & 0xC0) != 0x80) {
        c.continuation = c.text.substr(0, split);
        c.text.erase(0, split);
      }
    }
    const ChatOutput want = expected(c, c.text);
    const std::vector<size_t> b = char_boundaries(c.text);
    for (const std::vector<size_t>& cuts : {std::vector<size_t>{}, b, random_cuts(b, rng)})
      ASSERT_TRUE(matches(stream(c, cut_at(c.text, cuts), CallStreaming::Buffered), want, false))
          << "text " << ::testing::PrintToString(c.text) << " continuation " << ::testing::PrintToString(c.continuation)
          << " start " << int(c.start) << " format " << (c.format == ToolCallFormat::Xml ? "xml" : "json") << " cut at "
          << ::testing::PrintToString(cuts);
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

// ---- what streaming is for --------------------------------------------------------------------

struct Fed {
  std::vector<ChatDelta> deltas;
  std::string text(Kind kind) const {
    std::string s;
    for (const ChatDelta& d : deltas)
      if (d.kind == kind) s += d.text;
    return s;
  }
};

Fed feed(ChatStreamParser& p, std::string_view piece) { return Fed{p.feed(piece)}; }

TEST(ChatStreamParser, ContentStreamsAtOnceWhenNothingAfterItCouldBeFraming) {
  ChatStreamParser p(OutputStart::Body, json_tools(), ToolCallFormat::Json, 1);
  EXPECT_EQ(feed(p, "abc").text(Kind::Content), "abc");
  EXPECT_EQ(feed(p, " é\n").text(Kind::Content), " é");  // the newline may be the separator before a call
  EXPECT_EQ(feed(p, "<to").text(Kind::Content), "");
  EXPECT_EQ(feed(p, "p>").text(Kind::Content), "\n<top>");
  EXPECT_EQ(feed(p, "\n\n<tool_").text(Kind::Content), "\n");  // JSON: only one newline is the separator
  EXPECT_EQ(Fed{p.finish()}.text(Kind::Content), "\n<tool_");
}

TEST(ChatStreamParser, WithoutToolsNothingIsHeldBack) {
  ChatStreamParser p(OutputStart::Body, {}, ToolCallFormat::Json, 1);
  EXPECT_EQ(feed(p, "a\n<tool_").text(Kind::Content), "a\n<tool_");
}

TEST(ChatStreamParser, ReasoningHoldsOnlyAPossibleClose) {
  ChatStreamParser p(OutputStart::Thinking, json_tools(), ToolCallFormat::Json, 1);
  EXPECT_EQ(feed(p, "abc").text(Kind::Reasoning), "abc");
  EXPECT_EQ(feed(p, "\n</thi").text(Kind::Reasoning), "");
  EXPECT_EQ(feed(p, "s is").text(Kind::Reasoning), "\n</this is");
  EXPECT_EQ(feed(p, " fine</").text(Kind::Reasoning), " fine");
  const Fed closed = feed(p, "think>\n\nDone");
  EXPECT_EQ(closed.text(Kind::Reasoning), "");
  EXPECT_EQ(closed.text(Kind::Content), "Done");
}

TEST(ChatStreamParser, XmlHoldsTheTwoNewlineSeparator) {
  ChatStreamParser p(OutputStart::Body, xml_tools(), ToolCallFormat::Xml, 1);
  EXPECT_EQ(feed(p, "a\n\n").text(Kind::Content), "a");
  EXPECT_EQ(feed(p, "\n").text(Kind::Content), "\n");
  EXPECT_EQ(feed(p, "<tool_call>").text(Kind::Content), "");
}

TEST(ChatStreamParser, DeltasComeInTheOrderOfTheText) {
  const std::string text = "<think>\nWhy.\n</think>\n\nBecause.\n" + json_call("get_weather", R"({"city": "Oslo"})") + "\n" +
                           json_call("search", R"({"q": "x"})");
  for (CallStreaming mode : {CallStreaming::Buffered, CallStreaming::Progressive}) {
    ChatStreamParser p(OutputStart::OptionalThinking, json_tools(), ToolCallFormat::Json, 5, {}, mode);
    std::vector<ChatDelta> all;
    for (size_t i = 0; i < text.size(); ++i)
      for (ChatDelta& d : p.feed(text.substr(i, 1))) all.push_back(std::move(d));
    for (ChatDelta& d : p.finish()) all.push_back(std::move(d));
    std::vector<std::pair<Kind, size_t>> kinds;
    for (const ChatDelta& d : all)
      if (kinds.empty() || kinds.back() != std::pair{d.kind, d.index}) kinds.emplace_back(d.kind, d.index);
    const std::vector<std::pair<Kind, size_t>> want = {{Kind::Reasoning, 0},        {Kind::Content, 0},
                                                       {Kind::ToolCallBegin, 0},    {Kind::ToolCallArguments, 0},
                                                       {Kind::ToolCallBegin, 1},    {Kind::ToolCallArguments, 1}};
    EXPECT_EQ(kinds, want) << (mode == CallStreaming::Buffered ? "buffered" : "progressive");
    const auto begin = std::find_if(all.begin(), all.end(), [](const ChatDelta& d) { return d.kind == Kind::ToolCallBegin; });
    ASSERT_NE(begin, all.end());
    EXPECT_EQ(begin->id, tool_call_id(5, 0));
    EXPECT_EQ(begin->name, "get_weather");
  }
}

TEST(ChatStreamParser, ProgressiveJsonArgumentsStreamMinifiedBeforeTheCallCloses) {
  ChatStreamParser p(OutputStart::Body, json_tools(), ToolCallFormat::Json, 3, {}, CallStreaming::Progressive);
  EXPECT_TRUE(feed(p, "<tool_call>\n{\"name\": \"get_wea").deltas.empty());
  const Fed opened = feed(p, "ther\", \"arguments\": {\"city\": \"Par");
  ASSERT_EQ(opened.deltas.size(), 2u);
  EXPECT_EQ(opened.deltas[0].kind, Kind::ToolCallBegin);
  EXPECT_EQ(opened.deltas[0].name, "get_weather");
  EXPECT_EQ(opened.deltas[0].id, tool_call_id(3, 0));
  EXPECT_EQ(opened.text(Kind::ToolCallArguments), "{\"city\":\"Par");
  EXPECT_EQ(feed(p, "is \\\" x\", \"days\": [ 1 ,2 ]").text(Kind::ToolCallArguments), "is \\\" x\",\"days\":[1,2]");
  EXPECT_EQ(feed(p, "}}\n</tool_call>").text(Kind::ToolCallArguments), "}");
}

TEST(ChatStreamParser, BufferedCallsWaitForTheClose) {
  ChatStreamParser p(OutputStart::Body, json_tools(), ToolCallFormat::Json, 3);
  EXPECT_TRUE(feed(p, "<tool_call>\n{\"name\": \"search\", \"arguments\": {\"q\": 1}}").deltas.empty());
  const Fed closed = feed(p, "\n</tool_call>");
  ASSERT_EQ(closed.deltas.size(), 2u);
  EXPECT_EQ(closed.deltas[1].text, "{\"q\":1}");
}

TEST(ChatStreamParser, ProgressiveXmlCallBeginsAtItsNameAndPublishesEachParameterOfAStrictTool) {
  ChatStreamParser p(OutputStart::Body, xml_tools(), ToolCallFormat::Xml, 3, {}, CallStreaming::Progressive);
  const Fed named = feed(p, "<tool_call>\n<function=f>\n<parameter=days>\n4");
  ASSERT_EQ(named.deltas.size(), 1u);
  EXPECT_EQ(named.deltas[0].kind, Kind::ToolCallBegin);
  EXPECT_EQ(named.deltas[0].name, "f");
  EXPECT_EQ(feed(p, "2\n</parameter>\n<parameter=opt>\nNone\n</param").text(Kind::ToolCallArguments), "{\"days\":42");
  // A raw string streams as JSON string text, holding back only what may be its close.
  EXPECT_EQ(feed(p, "eter>\n<parameter=city>\nSão \"P\"\n</par").text(Kind::ToolCallArguments),
            ",\"opt\":null,\"city\":\"São \\\"P\\\"");
  EXPECT_EQ(feed(p, "k\n</parameter>\n").text(Kind::ToolCallArguments), "\\n</park\"");
  EXPECT_EQ(feed(p, "</function>\n</tool_call>").text(Kind::ToolCallArguments), "}");
}

TEST(ChatStreamParser, ProgressiveXmlArgumentsOfAToolWithoutAPlanComeWhole) {
  ChatStreamParser p(OutputStart::Body, xml_tools(), ToolCallFormat::Xml, 3, {}, CallStreaming::Progressive);
  EXPECT_EQ(feed(p, "<tool_call>\n<function=g>\n<parameter=a>\n1\n</parameter>\n").deltas.size(), 1u);
  EXPECT_EQ(feed(p, "</function>\n</tool_call>").text(Kind::ToolCallArguments), "{\"a\":\"1\"}");
}

TEST(ChatStreamParser, TheContinuedBodyIsNeverPublished) {
  ChatStreamParser p(OutputStart::Body, json_tools(), ToolCallFormat::Json, 3, "Dear ");
  EXPECT_EQ(feed(p, "Sir").text(Kind::Content), "Sir");
  ChatStreamParser r(OutputStart::Thinking, {}, ToolCallFormat::Json, 3, "step one");
  EXPECT_EQ(feed(r, ", two").text(Kind::Reasoning), ", two");
}

// The held-back text is bounded: after every character, what was published trails the parse of
// the text so far by at most a partial framing tag, and every call that parse reads is published
// whole (calls that only the end of the text can delimit, possible without a grammar, excepted).
TEST(ChatStreamParser, HeldBackTextIsAtMostAPartialTagAndClosedCallsArePublished) {
  size_t checked_calls = 0;
  for (CallStreaming mode : {CallStreaming::Buffered, CallStreaming::Progressive})
    for (const Case& c : corpus()) {
      // Ungrammatical calls: only finish() resolves those that Progressive streaming began.
      const bool ungrammatical_calls =
          !c.grammatical && (mode == CallStreaming::Progressive || !expected(c, c.text).tool_calls.empty());
      if (!c.continuation.empty() || ungrammatical_calls) continue;
      SCOPED_TRACE(c.name);
      ChatStreamParser p(c.start, *c.tools, c.format, 99, c.continuation, mode);
      const ChatOutput whole = expected(c, c.text);
      Assembled a;
      size_t from = 0;
      for (size_t end : char_boundaries(c.text + " ")) {
        for (const ChatDelta& d : p.feed(std::string_view(c.text).substr(from, end - from))) a.add(d);
        from = end;
        // What the parse of the text so far shares with the parse of the whole text.
        const ChatOutput so_far = expected(c, c.text.substr(0, end));
        if (whole.reasoning.starts_with(so_far.reasoning)) {
          ASSERT_LE(so_far.reasoning.size(), a.reasoning.size() + kThinkEndTag.size()) << "after " << end;
        }
        if (whole.content.starts_with(so_far.content)) {
          ASSERT_LE(so_far.content.size(), a.content.size() + kToolCallOpen.size() + 1) << "after " << end;
        }
        size_t closed = 0;
        while (closed < so_far.tool_calls.size() && same_call(so_far.tool_calls[closed], whole.tool_calls[closed])) ++closed;
        ASSERT_GE(a.calls.size(), closed) << "after " << end;
        for (size_t i = 0; i < closed; ++i) ASSERT_TRUE(same_call(a.calls[i], whole.tool_calls[i])) << "after " << end;
        checked_calls += closed;
      }
    }
  EXPECT_GT(checked_calls, 0u);
}

// Long outputs fed in small pieces cost time in proportion to their length (each search resumes
// where the last one stopped): 256 KiB of each phase in 3-byte pieces (quadratic work would take
// hours).
TEST(ChatStreamParser, LongOutputsInSmallPiecesStayLinear) {
  std::string lines;
  for (int i = 0; lines.size() < (1u << 18); ++i) lines += "line " + std::to_string(i) + " <b>\n";
  const std::string json_arguments = "{\"q\": \"" + std::string(1u << 18, 'x') + "\", \"n\": [1, 2]}";
  const std::vector<Case> long_cases = {
      {"LongJson", OutputStart::Thinking, ToolCallFormat::Json, &json_tools(),
       lines + "\n</think>\n\n" + lines + "\n" + json_call("search", json_arguments), {}, true},
      {"LongXml", OutputStart::Body, ToolCallFormat::Xml, &xml_tools(),
       xml_call("f", {{"city", lines}, {"note", lines}}) + "\n" + xml_call("g", {{"a", lines}}), {}, true},
  };
  const auto t0 = std::chrono::steady_clock::now();
  for (const Case& c : long_cases)
    for (CallStreaming mode : {CallStreaming::Buffered, CallStreaming::Progressive}) {
      std::vector<std::string_view> pieces;
      for (size_t at = 0; at < c.text.size(); at += 3) pieces.push_back(std::string_view(c.text).substr(at, 3));
      EXPECT_TRUE(matches(stream(c, pieces, mode), expected(c, c.text), false)) << c.name;
    }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}

}  // namespace
}  // namespace ninfer::qwen3
