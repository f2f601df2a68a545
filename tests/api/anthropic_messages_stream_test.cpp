// The Anthropic Messages stream from ChatDelta sequences: event names, block indices, and the
// message its events accumulate to (as the SDK's MessageStream accumulates them) against the
// non-streamed object. With NINFER_ANTHROPIC_SSE_DIR set, each case also writes its SSE transcript
// and the non-streamed object there for tests/api/anthropic_stream_sdk.mjs (the official SDK).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <random>

#include "anthropic_test_support.h"
#include "api/anthropic_messages_response.h"
#include "api/anthropic_messages_stream.h"

namespace ninfer::api {
namespace {

using qwen3::ChatDelta;
using testing::accept_anthropic;
using testing::anthropic_with;

// A chat turn as the stream parser would publish it: reasoning, content, then each call (begin,
// then its arguments), every text cut into random pieces at UTF-8 character boundaries.
std::vector<ChatDelta> deltas_of(const ChatOutput& out, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<ChatDelta> deltas;
  auto pieces = [&](ChatDelta::Kind kind, const std::string& text, size_t index) {
    size_t at = 0;
    while (at < text.size()) {
      size_t n = std::uniform_int_distribution<size_t>(1, 6)(rng);
      size_t end = std::min(text.size(), at + n);
      while (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) ++end;
      ChatDelta d;
      d.kind = kind;
      d.text = text.substr(at, end - at);
      d.index = index;
      deltas.push_back(std::move(d));
      at = end;
    }
  };
  pieces(ChatDelta::Kind::Reasoning, out.reasoning, 0);
  pieces(ChatDelta::Kind::Content, out.content, 0);
  for (size_t i = 0; i < out.tool_calls.size(); ++i) {
    ChatDelta begin;
    begin.kind = ChatDelta::Kind::ToolCallBegin;
    begin.index = i;
    begin.id = out.tool_calls[i].id;
    begin.name = out.tool_calls[i].name;
    deltas.push_back(begin);
    pieces(ChatDelta::Kind::ToolCallArguments, out.tool_calls[i].arguments, i);
  }
  return deltas;
}

struct Case {
  std::string name;
  std::string request_extra;  // members added to the request body
  GenerationResult result;
};

GenerationResult result_of(ChatOutput out, FinishReason finish = FinishReason::Stop) {
  GenerationResult r;
  r.finish_reason = finish;
  r.chat = std::move(out);
  r.usage = {7, 11};
  return r;
}

PreparedPrompt prompt_of(size_t tokens) {
  PreparedPrompt p;
  p.chat = true;
  p.tokens.assign(tokens, 1);
  return p;
}

std::vector<SseEvent> run_stream(const ChatRequest& request, const GenerationResult& result,
                                 const std::vector<ChatDelta>& deltas) {
  const auto stream = make_anthropic_message_stream(request, prompt_of(result.usage.prompt_tokens), "msg_s", "m");
  std::vector<SseEvent> events;
  stream->open(events);
  for (const ChatDelta& d : deltas) stream->delta(d, events);
  stream->finish(result, events);
  return events;
}

// The event grammar: message_start, then blocks 0, 1, ... each start, deltas, stop (one open at a
// time), then message_delta and message_stop; every event named by its data's type.
void expect_event_grammar(const std::vector<SseEvent>& events) {
  ASSERT_GE(events.size(), 3u);
  size_t next_index = 0;
  bool open = false;
  for (size_t i = 0; i < events.size(); ++i) {
    const Json data = Json::parse(events[i].data);
    const std::string type = data["type"];
    EXPECT_EQ(events[i].event, type) << i;
    EXPECT_EQ(events[i].data.find('\n'), std::string::npos);
    if (i == 0) {
      EXPECT_EQ(type, "message_start");
      continue;
    }
    if (i + 2 == events.size()) {
      EXPECT_EQ(type, "message_delta");
      EXPECT_FALSE(open);
      continue;
    }
    if (i + 1 == events.size()) {
      EXPECT_EQ(type, "message_stop");
      continue;
    }
    if (type == "content_block_start") {
      EXPECT_FALSE(open) << i;
      EXPECT_EQ(data["index"], next_index) << i;
      open = true;
    } else if (type == "content_block_delta") {
      EXPECT_TRUE(open) << i;
      EXPECT_EQ(data["index"], next_index) << i;
    } else if (type == "content_block_stop") {
      EXPECT_TRUE(open) << i;
      EXPECT_EQ(data["index"], next_index) << i;
      open = false;
      ++next_index;
    } else {
      ADD_FAILURE() << "unexpected event " << type << " at " << i;
    }
  }
}

// The message the events accumulate to, read the way the SDK's MessageStream reads them; a
// tool_use block's input is its input_json_delta fragments parsed strictly as one JSON text.
Json accumulate(const std::vector<SseEvent>& events, Json* constraint) {
  Json message;
  std::vector<std::string> json_buffers;
  for (const SseEvent& e : events) {
    const Json data = Json::parse(e.data);
    const std::string type = data["type"];
    if (type == "message_start") {
      message = data["message"];
    } else if (type == "content_block_start") {
      message["content"].push_back(data["content_block"]);
      json_buffers.emplace_back();
    } else if (type == "content_block_delta") {
      const size_t index = data["index"];
      Json& block = message["content"][index];
      const Json& delta = data["delta"];
      const std::string kind = delta["type"];
      if (kind == "text_delta") block["text"] = block["text"].get<std::string>() + delta["text"].get<std::string>();
      else if (kind == "thinking_delta")
        block["thinking"] = block["thinking"].get<std::string>() + delta["thinking"].get<std::string>();
      else if (kind == "input_json_delta") json_buffers[index] += delta["partial_json"].get<std::string>();
      else ADD_FAILURE() << "unexpected delta " << kind;
    } else if (type == "content_block_stop") {
      const size_t index = data["index"];
      Json& block = message["content"][index];
      if (block["type"] == "tool_use" && !json_buffers[index].empty()) block["input"] = Json::parse(json_buffers[index]);
    } else if (type == "message_delta") {
      message["stop_reason"] = data["delta"]["stop_reason"];
      message["stop_sequence"] = data["delta"]["stop_sequence"];
      for (const auto& [key, value] : data["usage"].items()) message["usage"][key] = value;
    } else if (type == "message_stop") {
      *constraint = data["constraint"];
    }
  }
  return message;
}

void write_transcript(const std::string& name, const std::vector<SseEvent>& events, const Json& message) {
  const char* dir = std::getenv("NINFER_ANTHROPIC_SSE_DIR");
  if (!dir) return;
  std::string sse;
  for (const SseEvent& e : events) sse += "event: " + e.event + "\ndata: " + e.data + "\n\n";
  std::ofstream(std::string(dir) + "/" + name + ".json") << Json{{"name", name}, {"sse", sse}, {"message", message}}.dump();
}

const char* kTools =
    R"("tools":[{"name":"get","input_schema":{"type":"object"}},{"name":"put","input_schema":{"type":"object"}}])";

std::vector<Case> cases() {
  std::vector<Case> out;
  out.push_back({"text", "", result_of({"", "Hello, world! A longer answer.", {}, true})});
  out.push_back({"thinking_then_text", R"("thinking":{"type":"enabled","budget_tokens":10})",
                 result_of({"Let me think about it.\nStep two.", "The answer is 42.", {}, true})});
  out.push_back({"text_and_two_calls", kTools,
                 result_of({"", "Checking both.",
                            {{"call_000000000000000000000001", "get", R"({"city":"Paris","days":[1,2,{"x":"a\"b"}]})"},
                             {"call_000000000000000000000002", "put", "{}"}},
                            true})});
  out.push_back({"thinking_then_calls", std::string(kTools) + R"(,"thinking":{"type":"enabled","budget_tokens":10})",
                 result_of({"plan: call get", "", {{"call_0000000000000000000000aa", "get", R"({"q":"\u00e9t\u00e9 ☀"})"}}, true})});
  out.push_back({"cut_in_thinking", R"("thinking":{"type":"enabled","budget_tokens":10})",
                 result_of({"still thinking about ünïcode", "", {}, false}, FinishReason::Length)});
  out.push_back({"empty", "", result_of({"", "", {}, true})});
  GenerationResult stopped = result_of({"", "one two ", {}, true});
  stopped.stop_sequence = "three";
  out.push_back({"stop_sequence", R"("stop_sequences":["three"])", stopped});
  GenerationResult constrained = result_of({"", R"({"a":1})", {}, true});
  constrained.constraint = ConstraintReport{};
  constrained.constraint->branch = "content";
  constrained.constraint->complete = true;
  constrained.constraint->terminated = true;
  constrained.constraint->masked_positions = 6;
  out.push_back({"constrained", R"("output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}})",
                 constrained});
  return out;
}

TEST(AnthropicMessagesStream, EventsAccumulateToTheNonStreamedMessage) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const ChatRequest request = accept_anthropic(anthropic_with(c.request_extra));
    Json message = anthropic_message(request, prompt_of(7), c.result, "msg_s", "m");
    for (uint32_t seed : {1u, 2u, 3u}) {
      const std::vector<SseEvent> events = run_stream(request, c.result, deltas_of(*c.result.chat, seed));
      expect_event_grammar(events);
      Json constraint;
      const Json streamed = accumulate(events, &constraint);
      EXPECT_EQ(constraint, message["constraint"]);
      Json expected = message;
      expected.erase("constraint");  // it travels on message_stop
      EXPECT_EQ(streamed, expected) << streamed.dump() << "\n" << expected.dump();
      if (seed == 1) write_transcript(c.name, events, message);
    }
  }
}

TEST(AnthropicMessagesStream, MessageStartCarriesTheInputTokensAndAnEmptyMessage) {
  const auto stream = make_anthropic_message_stream(accept_anthropic(anthropic_with("")), prompt_of(23), "msg_a", "mm");
  std::vector<SseEvent> events;
  stream->open(events);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].event, "message_start");
  EXPECT_EQ(events[0].data,
            R"({"type":"message_start","message":{"id":"msg_a","type":"message","role":"assistant","model":"mm",)"
            R"("content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":23,"output_tokens":0}}})");
}

TEST(AnthropicMessagesStream, ABlockClosesWhenTheNextKindOfOutputStarts) {
  const ChatOutput out{"r", "c", {{"call_1", "get", "{}"}, {"call_2", "put", R"({"a":1})"}}, true};
  auto delta = [](ChatDelta::Kind kind, std::string text, size_t index = 0, std::string id = "", std::string name = "") {
    ChatDelta d;
    d.kind = kind;
    d.text = std::move(text);
    d.index = index;
    d.id = std::move(id);
    d.name = std::move(name);
    return d;
  };
  using K = ChatDelta::Kind;
  const std::vector<ChatDelta> deltas = {
      delta(K::Reasoning, "r"),          delta(K::Content, "c"),         delta(K::ToolCallBegin, "", 0, "call_1", "get"),
      delta(K::ToolCallArguments, "{}"), delta(K::ToolCallBegin, "", 1, "call_2", "put"),
      delta(K::ToolCallArguments, R"({"a")", 1), delta(K::ToolCallArguments, ":1", 1), delta(K::ToolCallArguments, "}", 1)};
  const std::vector<SseEvent> events = run_stream(accept_anthropic(anthropic_with(kTools)), result_of(out), deltas);
  std::vector<std::string> shape;
  for (const SseEvent& e : events) {
    const Json d = Json::parse(e.data);
    std::string s = e.event;
    if (d.contains("index")) s += ":" + std::to_string(d["index"].get<size_t>());
    if (e.event == "content_block_start") s += ":" + d["content_block"]["type"].get<std::string>();
    if (e.event == "content_block_delta") s += ":" + d["delta"]["type"].get<std::string>();
    shape.push_back(s);
  }
  EXPECT_EQ(shape, (std::vector<std::string>{
                       "message_start", "content_block_start:0:thinking", "content_block_delta:0:thinking_delta",
                       "content_block_stop:0", "content_block_start:1:text", "content_block_delta:1:text_delta",
                       "content_block_stop:1", "content_block_start:2:tool_use", "content_block_delta:2:input_json_delta",
                       "content_block_stop:2",
                       "content_block_start:3:tool_use", "content_block_delta:3:input_json_delta",
                       "content_block_delta:3:input_json_delta", "content_block_delta:3:input_json_delta",
                       "content_block_stop:3", "message_delta", "message_stop"}));
  const Json start = Json::parse(events[7].data)["content_block"];
  EXPECT_EQ(start.dump(), R"({"type":"tool_use","id":"toolu_1","name":"get","input":{}})");
  EXPECT_EQ(Json::parse(events[15].data).dump(),
            R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},)"
            R"("usage":{"input_tokens":7,"output_tokens":11,"cache_creation_input_tokens":0,"cache_read_input_tokens":0}})");
}

TEST(AnthropicMessagesStream, EmptyDeltasOpenNoBlock) {
  const ChatRequest request = accept_anthropic(anthropic_with(""));
  std::vector<ChatDelta> deltas(2);
  deltas[0].kind = ChatDelta::Kind::Reasoning;
  deltas[1].kind = ChatDelta::Kind::Content;
  const std::vector<SseEvent> events = run_stream(request, result_of({"", "", {}, true}), deltas);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[1].event, "message_delta");
}

TEST(AnthropicMessagesStream, AFailureIsAnErrorEventInAnthropicsShape) {
  const auto stream = make_anthropic_message_stream(accept_anthropic(anthropic_with("")), prompt_of(3), "msg_f", "m");
  std::vector<SseEvent> events;
  stream->open(events);
  ChatDelta d;
  d.text = "partial";
  stream->delta(d, events);
  stream->fail(ApiError(503, "server_error", "The server is shutting down."), events);
  EXPECT_EQ(events.back().event, "error");
  EXPECT_EQ(events.back().data,
            R"({"type":"error","error":{"type":"overloaded_error","message":"The server is shutting down."}})");
  write_transcript("failed_midway", events, Json(nullptr));
}

TEST(AnthropicMessagesStream, AnErrorResultFinishesWithAnErrorEventInsteadOfAStop) {
  const ChatRequest request =
      accept_anthropic(anthropic_with(R"("output_config":{"format":{"type":"json_schema","schema":{}}})"));
  GenerationResult r = result_of({"", "", {}, false}, FinishReason::Error);
  r.error = RequestErrorKind::ConstraintDeadEnd;
  r.error_message = "no legal token";
  const std::vector<SseEvent> events = run_stream(request, r, {});
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].event, "error");
  const Json e = Json::parse(events[1].data);
  EXPECT_EQ(e["error"]["type"], "invalid_request_error");
  EXPECT_EQ(e["error"]["message"], "output_config.format.schema: no legal token");
  GenerationResult cancelled = result_of({"", "", {}, false}, FinishReason::Cancelled);
  EXPECT_EQ(run_stream(request, cancelled, {}).back().event, "error");
}

}  // namespace
}  // namespace ninfer::api
