// Seeded random walks through the token masks of strict tool grammars over the qwen3 vocabulary
// (tool_sets.json: 60 realistic sets; both formats; tool_choice required, named, none, and auto
// with parallel_tool_calls false). Every finished output is parsed with parse_chat_output and
// every call's arguments are validated with Ajv. The walk picks uniformly among allowed tokens
// but, half of the time, only among tokens that close something (first byte " } ] , < or a
// newline, or EOS), so free strings end; walks that reach the length cap are counted apart. Every
// walk's text is also streamed through ChatStreamParser (both call modes) against the same parse.
#include <gtest/gtest.h>

#include <bit>
#include <chrono>
#include <cstdio>
#include <random>
#include <unistd.h>

#include "frontend_test_support.h"
#include "models/qwen3/frontend/chat_stream_parser.h"

namespace ninfer::qwen3 {
namespace {

using namespace testing;
using OJson = nlohmann::ordered_json;

constexpr size_t kMaxTokens = 512;
#if defined(__SANITIZE_ADDRESS__)
// Under ASan+UBSan the walks check memory, not statistics: every fourth tool set keeps the run short.
constexpr size_t kSetStride = 4;
#else
constexpr size_t kSetStride = 1;
#endif

struct WalkResult {
  std::string text;
  bool finished = false;
  bool mask_mismatch = false;
  bool dead_end = false;
};

class Walker {
 public:
  Walker() : domain_(qwen3_domain()) {
    const size_t n = static_cast<size_t>(domain_->size());
    closing_.assign(n, 0);
    for (size_t id = 0; id < n; ++id) {
      const std::string& b = domain_->bytes(static_cast<int32_t>(id));
      if (!b.empty() && std::string_view("\"}],<\n").find(b[0]) != std::string_view::npos) closing_[id] = 1;
    }
  }

  WalkResult walk(const std::shared_ptr<const grammar::CompiledGrammar>& g, uint64_t seed) {
    grammar::Matcher m(g);
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> mask(static_cast<size_t>(domain_->mask_words()));
    std::vector<int32_t> all, closers;
    WalkResult r;
    for (size_t step = 0; step < kMaxTokens; ++step) {
      m.fill_mask(mask.data());
      bool eos = false;
      for (int32_t id : domain_->eos_ids()) {
        uint32_t& w = mask[static_cast<size_t>(id >> 5)];
        if (w & (1u << (id & 31))) eos = true;
        w &= ~(1u << (id & 31));
      }
      if (eos != m.can_end()) return r.mask_mismatch = true, r;
      all.clear(), closers.clear();
      for (size_t w = 0; w < mask.size(); ++w)
        for (uint32_t bits = mask[w]; bits; bits &= bits - 1) {
          const auto id = static_cast<int32_t>(w * 32 + static_cast<size_t>(std::countr_zero(bits)));
          all.push_back(id);
          if (closing_[static_cast<size_t>(id)]) closers.push_back(id);
        }
      const bool bias = rng() % 2 == 0;
      if (eos && (all.empty() || bias)) {
        if (!m.accept_token(domain_->eos_ids()[0])) return r.mask_mismatch = true, r;
        r.finished = true;
        return r;
      }
      if (all.empty()) return r.dead_end = true, r;
      const std::vector<int32_t>& pool = bias && !closers.empty() ? closers : all;
      const int32_t id = pool[rng() % pool.size()];
      if (!m.accept_token(id)) return r.mask_mismatch = true, r;
      r.text += domain_->bytes(id);
    }
    return r;
  }

 private:
  std::shared_ptr<const grammar::TokenDomain> domain_;
  std::vector<uint8_t> closing_;
};

// The walk's text streamed through ChatStreamParser in random pieces (between UTF-8 characters, as
// the engine publishes): the deltas must give parse_chat_output's result. Progressive streaming
// of a walk cut at the length cap may hold one more call, the one cut off, begun and partial.
void expect_stream_matches(const std::string& text, const std::vector<ToolDefinition>& tools, ToolCallFormat format,
                           bool finished, std::mt19937_64& rng) {
  const ChatOutput want = parse_chat_output(text, OutputStart::Body, tools, format, 5);
  std::vector<size_t> boundaries;
  for (size_t i = 1; i < text.size(); ++i)
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) boundaries.push_back(i);
  for (CallStreaming mode : {CallStreaming::Buffered, CallStreaming::Progressive})
    for (int round = 0; round < 3; ++round) {
      ChatStreamParser p(OutputStart::Body, tools, format, 5, {}, mode);
      ChatOutput got;
      const auto take = [&](const std::vector<ChatDelta>& deltas) {
        for (const ChatDelta& d : deltas) {
          if (d.kind == ChatDelta::Kind::Reasoning) got.reasoning += d.text;
          if (d.kind == ChatDelta::Kind::Content) got.content += d.text;
          if (d.kind == ChatDelta::Kind::ToolCallBegin) got.tool_calls.push_back(ToolCall{d.id, d.name, ""});
          if (d.kind == ChatDelta::Kind::ToolCallArguments) got.tool_calls.at(d.index).arguments += d.text;
        }
      };
      size_t from = 0;
      for (size_t b : boundaries)
        if (round == 0 || rng() % (round == 1 ? 2 : 8) == 0) {
          take(p.feed(std::string_view(text).substr(from, b - from)));
          from = b;
        }
      take(p.feed(std::string_view(text).substr(from)));
      take(p.finish());
      const bool cut_off_call = !finished && mode == CallStreaming::Progressive && got.tool_calls.size() == want.tool_calls.size() + 1;
      if (cut_off_call) got.tool_calls.pop_back();
      EXPECT_EQ(got.reasoning, want.reasoning);
      EXPECT_EQ(got.content, want.content);
      ASSERT_EQ(got.tool_calls.size(), want.tool_calls.size()) << (mode == CallStreaming::Buffered ? "buffered" : "progressive");
      for (size_t i = 0; i < want.tool_calls.size(); ++i) {
        EXPECT_EQ(got.tool_calls[i].id, want.tool_calls[i].id);
        EXPECT_EQ(got.tool_calls[i].name, want.tool_calls[i].name);
        EXPECT_EQ(got.tool_calls[i].arguments, want.tool_calls[i].arguments);
      }
    }
}

struct Counts {
  size_t walks = 0, finished = 0, unfinished = 0, calls = 0;
};

TEST(ToolGrammarRandomWalk, FinishedOutputsParseAndEveryCallValidatesWithAjv) {
  const auto t0 = std::chrono::steady_clock::now();
  const OJson sets = OJson::parse(read_text_file(std::string(NINFER_SOURCE_DIR) + "/tests/frontend/tool_sets.json"));
  ASSERT_GE(sets.size(), 50u);
  Walker walker;
  std::string ajv_cases;
  std::map<std::string, Counts> counts;  // per tool_choice shape
  size_t violations = 0;
  for (size_t si = 0; si < sets.size(); si += kSetStride) {
    const OJson& set = sets[si];
    const std::vector<ToolDefinition> tools = parse_tools(set["tools"]);
    for (ToolCallFormat format : {ToolCallFormat::Json, ToolCallFormat::Xml}) {
      const std::string fname = format == ToolCallFormat::Xml ? "xml" : "json";
      const std::string named = tools[si % tools.size()].name;
      std::vector<std::pair<std::string, ToolChoice>> choices = {
          {"required", choice(ToolChoiceMode::Required)},
          {"named", choice(ToolChoiceMode::Required, {named}, false)},
      };
      if (si % 3 == 0) {
        choices.push_back({"none", choice(ToolChoiceMode::None)});
        choices.push_back({"auto_single", choice(ToolChoiceMode::Auto, {}, false)});
      }
      for (const auto& [cname, ch] : choices) {
        OutputLanguage lang;
        lang.tools = &tools;
        lang.format = format;
        lang.choice = ch;
        const auto g = compile_language(lang);
        const uint64_t seed = 1000003ull * si + 7919ull * (format == ToolCallFormat::Xml) + std::hash<std::string>{}(cname) % 1000;
        const WalkResult w = walker.walk(g, seed);
        SCOPED_TRACE(set["name"].get<std::string>() + " " + fname + " " + cname + ": " + grammar::quote_bytes(w.text));
        EXPECT_FALSE(w.mask_mismatch);
        EXPECT_FALSE(w.dead_end);
        Counts& c = counts[fname + "/" + cname];
        ++c.walks;
        std::mt19937_64 cut_rng(seed);
        expect_stream_matches(w.text, tools, format, w.finished, cut_rng);
        if (!w.finished) {
          ++c.unfinished;
          continue;
        }
        ++c.finished;
        const ChatOutput out = parse_chat_output(w.text, OutputStart::Body, tools, format, si);
        c.calls += out.tool_calls.size();
        // tool_choice rules, read from the parsed output.
        if (cname == "none") {
          violations += !out.tool_calls.empty();
          EXPECT_TRUE(out.tool_calls.empty());
          EXPECT_EQ(w.text.find("<tool_call>"), std::string::npos);
          continue;
        }
        if (cname == "auto_single") {
          EXPECT_LE(out.tool_calls.size(), 1u);
        }
        if (cname == "required" || cname == "named") {
          EXPECT_GE(out.tool_calls.size(), 1u);
          EXPECT_EQ(out.content, "");
        }
        if (cname == "named") {
          EXPECT_EQ(out.tool_calls.size(), 1u);
          for (const auto& call : out.tool_calls) {
            EXPECT_EQ(call.name, named);
          }
        }
        // A closed "<tool_call>" that did not parse would have landed in content.
        EXPECT_EQ(out.content.find("<tool_call>"), std::string::npos);
        for (const auto& call : out.tool_calls) {
          const ToolDefinition* def = nullptr;
          for (const auto& t : tools) {
            if (t.name == call.name) def = &t;
          }
          ASSERT_NE(def, nullptr) << call.name;
          nlohmann::json line = {{"label", set["name"].get<std::string>() + "/" + fname + "/" + cname + "/" + call.name},
                                 {"schema", nlohmann::json::parse(def->parameters)},
                                 {"arguments", call.arguments}};
          ajv_cases += line.dump() + "\n";
        }
      }
    }
  }
  // Ajv, once for every call of every finished walk.
  char in_path[] = "/tmp/ninfer_ajv_in_XXXXXX";
  const int fd = mkstemp(in_path);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(write(fd, ajv_cases.data(), ajv_cases.size()), static_cast<ssize_t>(ajv_cases.size()));
  close(fd);
  const std::string cmd = std::string("node ") + NINFER_SOURCE_DIR + "/tests/frontend/validate_tool_args.mjs < " + in_path;
  std::FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string ajv_out;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) ajv_out.append(buf, n);
  ASSERT_EQ(pclose(p), 0) << ajv_out;
  std::remove(in_path);
  const auto verdict = nlohmann::json::parse(ajv_out);
  EXPECT_EQ(verdict["failed"], 0) << verdict.dump(1);
  EXPECT_GT(verdict["passed"].get<int>(), 0);
  EXPECT_EQ(violations, 0u);

  nlohmann::ordered_json report;
  size_t walks = 0, finished = 0;
  for (const auto& [k, c] : counts) {
    report[k] = {{"walks", c.walks}, {"finished", c.finished}, {"unfinished", c.unfinished}, {"calls", c.calls}};
    walks += c.walks, finished += c.finished;
  }
  report["total"] = {{"walks", walks},
                     {"finished", finished},
                     {"finished_share", walks ? double(finished) / double(walks) : 0.0},
                     {"calls_validated_by_ajv", verdict["passed"]},
                     {"max_tokens", kMaxTokens},
                     {"seconds", std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()}};
  std::printf("[random walk] %s\n", report.dump().c_str());
}

}  // namespace
}  // namespace ninfer::qwen3
