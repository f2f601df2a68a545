// Writes Responses transcripts for the SDK oracle (tests/api/responses_stream_sdk.mjs, run by
// tests/api/run_responses_sdk.sh): per case the request body, the non-streamed response and the SSE
// stream of the same result. Skipped unless NINFER_RESPONSES_SDK_DIR names the folder to write.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "responses_stream_driver.h"
#include "responses_test_support.h"

namespace ninfer::api {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  ASSERT_TRUE(f.good()) << path;
}

struct Case {
  const char* name;
  std::string body;
  ChatOutput output;
  FinishReason finish = FinishReason::Stop;
  bool fails = false;  // the stream fails after its deltas
};

TEST(ResponsesSdkTranscripts, WriteOneFolderPerCaseForTheNodeOracle) {
  const char* dir = std::getenv("NINFER_RESPONSES_SDK_DIR");
  if (!dir) GTEST_SKIP() << "NINFER_RESPONSES_SDK_DIR is not set (tests/api/run_responses_sdk.sh sets it)";
  const std::string tools =
      R"("tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}])";
  const Case cases[] = {
      {"content", R"({"model":"qwen","input":"hi","stream":true})", {"", "Hello there, caf\xC3\xA9!", {}, false}},
      {"reasoning_and_content", R"({"model":"qwen","input":"2+2?","instructions":"be short","stream":true})",
       {"Two plus two\nis four.", "4", {}, true}},
      {"tool_calls", R"({"model":"qwen","input":"weather in Paris and Rome","stream":true,)" + tools + "}",
       {"I will call.", "", {{"call_aaaaaaaaaaaaaaaaaaaaaaaa", "get_weather", R"({"city":"Paris"})"},
                               {"call_bbbbbbbbbbbbbbbbbbbbbbbb", "get_weather", R"({"city":"Rome"})"}}, true}},
      {"json_schema",
       R"({"model":"qwen","input":"a person","stream":true,"text":{"format":{"type":"json_schema","name":"person","strict":true,"schema":{"type":"object","properties":{"name":{"type":"string"},"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}}}})",
       {"", R"({"name":"Ada","age":36})", {}, true}},
      {"incomplete", R"({"model":"qwen","input":"count","stream":true,"max_output_tokens":8})",
       {"", "1, 2, 3, 4", {}, true}, FinishReason::Length},
      {"failed", R"({"model":"qwen","input":"x","stream":true,"text":{"format":{"type":"json_object"}}})",
       {"", "{\"a\":", {}, true}, FinishReason::Stop, true},
  };
  std::mt19937 rng(11);
  for (const Case& c : cases) {
    const std::filesystem::path folder = std::filesystem::path(dir) / c.name;
    std::filesystem::create_directories(folder);
    auto exchange = make_openai_responses_exchange(testing::accept_responses(c.body), new_response_ids());
    GenerationResult r;
    r.finish_reason = c.finish;
    r.chat = c.output;
    r.text = c.output.reasoning + c.output.content;
    r.usage = {31, 17, c.output.reasoning.empty() ? 0 : 6};
    r.total_s = 0.8;
    std::vector<SseEvent> events;
    auto stream = exchange->stream(PreparedPrompt{});
    stream->open(events);
    for (const auto& d : testing::deltas_of(c.output, &rng)) stream->delta(d, events);
    if (c.fails) {
      stream->fail(ApiError(400, "invalid_request_error", "The output reached a state with no legal token.",
                            "text.format", "constraint_dead_end"),
                   events);
    } else {
      stream->finish(r, events);
      write_file(folder / "response.json", exchange->response(PreparedPrompt{}, r).dump());
    }
    testing::checked_events(events);
    write_file(folder / "request.json", c.body);
    write_file(folder / "stream.sse", testing::sse_text(events));
  }
}

}  // namespace
}  // namespace ninfer::api
