// Hostile templates end in a typed error, quickly: no stack overflow, no unbounded output, no hang.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "jinja/chat_template.h"

#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

using ojson = nlohmann::ordered_json;

TemplateErrorKind kind_of(const std::string& source, const RenderLimits& limits = {}, const ojson& context = ojson::object()) {
  try {
    Template::parse(source, limits)->render(context);
  } catch (const TemplateError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error";
  return TemplateErrorKind::Syntax;
}

class Timed : public ::testing::Test {
 protected:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  void TearDown() override {
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start_).count();
    EXPECT_LT(ms, 5000) << "a limit should stop this long before";
  }
};

TEST_F(Timed, AHugeRangeIsALimitErrorAsInTheSandbox) {
  EXPECT_EQ(kind_of("{% for i in range(1000000000) %}x{% endfor %}"), TemplateErrorKind::Limit);
}

TEST_F(Timed, NestedLoopsStopAtTheStepLimit) {
  RenderLimits limits;
  limits.max_steps = 100000;
  EXPECT_EQ(kind_of("{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}", limits),
            TemplateErrorKind::Limit);
}

TEST_F(Timed, OutputStopsAtTheOutputLimit) {
  RenderLimits limits;
  limits.max_output_bytes = 1000;
  EXPECT_EQ(kind_of("{% for i in range(100000) %}xxxxxxxxxx{% endfor %}", limits), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{{ 'x' * 100000 }}", limits), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{{ [1] * 100000000 }}", limits), TemplateErrorKind::Limit);
}

TEST_F(Timed, InfiniteMacroRecursionIsALimitError) {
  EXPECT_EQ(kind_of("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}{{ f(0) }}"), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{% macro f(n) %}{% for i in [1] %}{% if true %}{{ [f(n + 1)]|join }}{% endif %}{% endfor %}{% endmacro %}{{ f(0) }}"),
            TemplateErrorKind::Limit);
}

TEST_F(Timed, AHundredThousandParenthesesAreALimitErrorNotAStackOverflow) {
  EXPECT_EQ(kind_of("{{ " + std::string(100000, '(') + "1" + std::string(100000, ')') + " }}"), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{{ " + std::string(100000, '[') + "1" + std::string(100000, ']') + " }}"), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{{ " + std::string(100000, '[') + " }}"), TemplateErrorKind::Syntax);  // unbalanced
  EXPECT_EQ(kind_of("{{ " + std::string(100000, '-') + "1 }}"), TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{{ 1" + std::string(100000, '|') + " }}"), TemplateErrorKind::Syntax);
}

TEST_F(Timed, DeeplyNestedBlocksAreALimitError) {
  std::string s;
  for (int i = 0; i < 100000; ++i) s += "{% if true %}";
  EXPECT_EQ(kind_of(s), TemplateErrorKind::Limit);
}

TEST_F(Timed, ValuesNestedDeeperThanTheLimitAreALimitError) {
  EXPECT_EQ(kind_of("{% set ns = namespace(x=[]) %}{% for i in range(100000) %}{% set ns.x = [ns.x] %}{% endfor %}{{ ns.x }}"),
            TemplateErrorKind::Limit);
  EXPECT_EQ(kind_of("{% set ns = namespace() %}{% set ns.me = ns %}{{ ns }}"), TemplateErrorKind::Limit);
  const ojson deep = ojson::parse(std::string(5000, '[') + std::string(5000, ']'));
  EXPECT_EQ(kind_of("{{ x }}", {}, ojson{{"x", deep}}), TemplateErrorKind::Limit);
}

TEST_F(Timed, ASourceOverTheSizeLimitIsRefusedBeforeParsing) {
  RenderLimits limits;
  limits.max_source_bytes = 10;
  EXPECT_EQ(kind_of("hello world, this is long", limits), TemplateErrorKind::Limit);
}

TEST(TemplateErrors, SyntaxErrorsCarryLineAndColumn) {
  try {
    Template::parse("line one\n{{ a + }}");
    FAIL() << "parsed";
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.kind(), TemplateErrorKind::Syntax);
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 8);
  }
}

TEST(TemplateErrors, RuntimeErrorsCarryTheLocationOfTheFailingExpression) {
  try {
    Template::parse("ok\n  {{ 'a' + 1 }}")->render(ojson::object());
    FAIL() << "rendered";
  } catch (const TemplateError& e) {
    EXPECT_EQ(e.kind(), TemplateErrorKind::Runtime);
    EXPECT_EQ(e.line(), 2);
    EXPECT_EQ(e.column(), 10);
  }
}

TEST(TemplateCache, ParsesEachDistinctSourceOnce) {
  const auto a = parse_cached("{{ x }}-cache-test");
  const auto b = parse_cached(std::string("{{ x }}-cache-test"));
  EXPECT_EQ(a.get(), b.get());
  EXPECT_NE(a.get(), parse_cached("{{ y }}-cache-test").get());
}

TEST(TemplateCache, OneTemplateRendersConcurrentlyWithIdenticalResults) {
  const auto t = parse_cached(std::string(*bundled_template("qwen3_5")));
  const ojson context = ojson::parse(R"({"messages": [{"role": "user", "content": "hi"},
      {"role": "assistant", "content": "", "tool_calls": [{"function": {"name": "f", "arguments": {"a": [1, 2]}}}]},
      {"role": "tool", "content": "ok"}], "tools": [{"type": "function", "function": {"name": "f"}}],
      "add_generation_prompt": true})");
  const std::string expected = t->render(context);
  std::vector<std::thread> threads;
  std::vector<int> mismatches(4, 0);
  for (int k = 0; k < 4; ++k) {
    threads.emplace_back([&, k] {
      for (int i = 0; i < 200; ++i) mismatches[k] += t->render(context) != expected;
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(mismatches, std::vector<int>(4, 0));
}

}  // namespace
}  // namespace ninfer::jinja
