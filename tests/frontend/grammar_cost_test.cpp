// Measures (prints, asserts nothing about time) what the output grammar of 1, 5 and 20 strict
// tools costs: building the grammar IR (output_language_grammar) and compiling it for the qwen3
// vocabulary (cold: argument cache emptied; warm: tools already lowered). The numbers go in
// docs/chat-frontend.md; the lead's CLI bench owns targets.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "frontend_test_support.h"

namespace ninfer::qwen3 {
namespace {

using namespace testing;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

TEST(OutputGrammarCost, PrintsBuildAndCompileTimesForOneFiveAndTwentyStrictTools) {
  const auto sets = nlohmann::json::parse(read_text_file(std::string(NINFER_SOURCE_DIR) + "/tests/frontend/tool_sets.json"));
  // Distinct tools in catalogue order (the first sets hold one tool each).
  std::vector<ToolDefinition> all;
  for (const auto& s : sets)
    for (const auto& t : parse_tools(s["tools"]))
      if (std::none_of(all.begin(), all.end(), [&](const ToolDefinition& x) { return x.name == t.name; })) all.push_back(t);
  ASSERT_GE(all.size(), 20u);
  qwen3_domain();  // loaded outside the timings
  nlohmann::ordered_json report = nlohmann::ordered_json::array();
  for (ToolCallFormat format : {ToolCallFormat::Json, ToolCallFormat::Xml}) {
    for (size_t n : {1, 5, 20}) {
      const std::vector<ToolDefinition> tools(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(n));
      OutputLanguage lang;
      lang.tools = &tools;
      lang.format = format;
      std::vector<double> build, compile;
      size_t exprs = 0;
      clear_argument_grammar_cache();
      for (int rep = 0; rep < 4; ++rep) {
        auto t = Clock::now();
        const grammar::Grammar g = output_language_grammar(lang);
        build.push_back(ms_since(t));
        exprs = g.exprs.size();
        t = Clock::now();
        const auto compiled = grammar::compile(g, qwen3_domain());
        compile.push_back(ms_since(t));
        grammar::Matcher m(compiled);
        std::vector<uint32_t> mask(static_cast<size_t>(m.mask_words()));
        m.fill_mask(mask.data());
        EXPECT_TRUE(m.accept_bytes("<tool_call>\n"));
      }
      // Cold: the first build after clearing the argument cache; warm: the median of the others.
      const double cold = build[0];
      std::sort(build.begin() + 1, build.end());
      std::sort(compile.begin(), compile.end());
      report.push_back({{"format", format == ToolCallFormat::Xml ? "xml" : "json"},
                        {"strict_tools", n},
                        {"grammar_exprs", exprs},
                        {"build_ms_cold", cold},
                        {"build_ms_warm", build[2]},
                        {"compile_ms_median", compile[2]},
                        {"key_chars", output_language_key(lang).size()}});
    }
  }
  std::printf("[grammar cost] %s\n", report.dump().c_str());
}

}  // namespace
}  // namespace ninfer::qwen3
