// Drives a Responses stream with ChatDelta sequences made from a finished chat turn, and checks the
// event rules every transcript must keep (first event, sequence numbers, items announced before use,
// deltas that add up to each .done and to the final response). Shared by the stream tests and the
// transcripts the SDK oracle (responses_stream_sdk.mjs) reads.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/openai_responses_exchange.h"
#include "api/openai_responses_stream.h"
#include "models/qwen3/frontend/chat_stream_parser.h"

namespace ninfer::api::testing {

using qwen3::ChatDelta;

// `text` cut at random places into 1..4-byte pieces (whole pieces when `rng` is null).
inline std::vector<std::string> cut(const std::string& text, std::mt19937* rng) {
  std::vector<std::string> pieces;
  size_t at = 0;
  while (at < text.size()) {
    const size_t n = rng ? 1 + (*rng)() % 4 : text.size();
    pieces.push_back(text.substr(at, n));
    at += n;
  }
  return pieces;
}

// The deltas a parser would give for `out`, in turn order: reasoning, content, then each call.
inline std::vector<ChatDelta> deltas_of(const ChatOutput& out, std::mt19937* rng = nullptr) {
  std::vector<ChatDelta> d;
  for (auto& p : cut(out.reasoning, rng)) d.push_back({ChatDelta::Kind::Reasoning, p, 0, {}, {}});
  for (auto& p : cut(out.content, rng)) d.push_back({ChatDelta::Kind::Content, p, 0, {}, {}});
  for (size_t i = 0; i < out.tool_calls.size(); ++i) {
    const ToolCall& c = out.tool_calls[i];
    d.push_back({ChatDelta::Kind::ToolCallBegin, "", i, c.id, c.name});
    for (auto& p : cut(c.arguments, rng)) d.push_back({ChatDelta::Kind::ToolCallArguments, p, i, {}, {}});
  }
  return d;
}

// Runs the exchange's stream over `deltas` and then `result` (finish, or fail for an error result).
inline std::vector<SseEvent> stream_events(ApiExchange& exchange, const std::vector<ChatDelta>& deltas,
                                           const GenerationResult& result) {
  std::vector<SseEvent> out;
  auto s = exchange.stream(PreparedPrompt{});
  s->open(out);
  for (const ChatDelta& d : deltas) s->delta(d, out);
  s->finish(result, out);
  return out;
}

// Checks the rules every transcript keeps and returns the parsed events' data.
inline std::vector<Json> checked_events(const std::vector<SseEvent>& events) {
  std::vector<Json> data;
  std::map<std::string, size_t> announced;          // item id -> output index
  std::map<std::string, std::string> accumulated;   // item id -> concatenated deltas
  std::map<std::string, bool> closed;
  for (size_t i = 0; i < events.size(); ++i) {
    const Json j = Json::parse(events[i].data);
    EXPECT_EQ(j["type"], events[i].event) << i;
    EXPECT_EQ(j["sequence_number"], i) << events[i].data;
    const std::string type = events[i].event;
    if (i == 0) {
      EXPECT_EQ(type, "response.created");
    }
    if (i == 1) {
      EXPECT_EQ(type, "response.in_progress");
    }
    if (type == "response.output_item.added") {
      EXPECT_EQ(j["output_index"], announced.size()) << events[i].data;
      if (j["item"].contains("status")) {
        EXPECT_EQ(j["item"]["status"], "in_progress");
      }
      announced[j["item"]["id"].get<std::string>()] = j["output_index"].get<size_t>();
    } else if (j.contains("item_id") && !announced.count(j["item_id"].get<std::string>())) {
      ADD_FAILURE() << "not announced: " << events[i].data;
    } else if (j.contains("item_id")) {
      const std::string id = j["item_id"];
      EXPECT_EQ(j["output_index"], announced[id]) << events[i].data;
      EXPECT_FALSE(closed[id]) << "after output_item.done: " << events[i].data;
      if (type.ends_with(".delta")) accumulated[id] += j["delta"].get<std::string>();
      if (type == "response.output_text.done" || type == "response.reasoning_text.done") {
        EXPECT_EQ(j["text"], accumulated[id]) << events[i].data;
      }
      if (type == "response.function_call_arguments.done") {
        EXPECT_EQ(j["arguments"], accumulated[id]);
      }
    }
    if (type == "response.output_item.done") {
      const std::string id = j["item"]["id"];
      EXPECT_TRUE(announced.count(id)) << events[i].data;
      EXPECT_EQ(j["output_index"], announced[id]);
      closed[id] = true;
    }
    data.push_back(j);
  }
  // Every item was closed, and the final response holds them in announcement order with the text
  // their deltas add up to.
  const std::string last = events.empty() ? "" : events.back().event;
  if (last == "response.completed" || last == "response.incomplete") {
    const Json& output = data.back()["response"]["output"];
    EXPECT_EQ(output.size(), announced.size());
    for (const auto& [id, index] : announced) {
      EXPECT_TRUE(closed[id]) << id;
      const Json& item = output[index];
      EXPECT_EQ(item["id"], id);
      const std::string text = item["type"] == "function_call" ? item["arguments"].get<std::string>()
                                                                : item["content"][0]["text"].get<std::string>();
      EXPECT_EQ(text, accumulated[id]) << id;
    }
  }
  return data;
}

// An SSE transcript as a server writes it.
inline std::string sse_text(const std::vector<SseEvent>& events) {
  std::string out;
  for (const SseEvent& e : events) out += "event: " + e.event + "\ndata: " + e.data + "\n\n";
  return out;
}

}  // namespace ninfer::api::testing
