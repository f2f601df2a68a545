// Fuzzing the template language in the unit tests: mutated real templates and random token soup, parsed and
// rendered with a small context and tight limits. Every input must end in success or a typed TemplateError, with
// output within max_output_bytes, and quickly (max_steps). fuzz/jinja_fuzz.cpp runs the same check under libFuzzer.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "jinja/chat_template.h"
#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

using ojson = nlohmann::ordered_json;

const char* const kTokens[] = {
    "{{", "}}", "{%", "%}", "{#", "#}", "{%-", "-%}", "{{-", "-}}", "{%+", " ", "\n", "  ", "(", ")", "[", "]", "{",
    "}", ",", ":", ".", "|", "~", "+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", ">=", "=", "'", "\"", "\\",
    "'a'", "\"b\"", "1", "0", "-1", "2.5", "1e308", "x", "messages", "message", "loop", "ns", "tools", "if", "elif",
    "else", "endif", "for", "in", "endfor", "set", "endset", "macro", "endmacro", "call", "endcall", "caller()",
    "filter", "endfilter", "raw", "endraw", "with", "endwith", "break", "continue", "not", "and", "or", "is",
    "defined", "none", "true", "tojson", "trim", "items", "map", "select", "join", "length", "default", "namespace(",
    "range(", "raise_exception(", "loop.index", "loop.previtem", "message.content", "[::-1]", "[0]", "recursive",
    "attribute=", "indent=2", "*", "**", "🎉", "é",
};

ojson small_context() {
  return ojson::parse(R"({
    "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi é"},
                 {"role": "assistant", "content": "", "tool_calls": [{"type": "function",
                   "function": {"name": "f", "arguments": {"a": [1, {"b": null}]}}}]},
                 {"role": "tool", "content": "{\"ok\": true}"}, {"role": "user", "content": [{"type": "text", "text": "x"}]}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {"a": {"type": "array"}}}}}],
    "add_generation_prompt": true, "enable_thinking": false, "x": 3, "bos_token": "<s>"
  })");
}

std::vector<std::string> seeds() {
  std::vector<std::string> s;
  for (const auto& name : bundled_template_names()) s.emplace_back(*bundled_template(name));
  s.push_back("{% for m in messages %}{{ loop.index }}{{ m.role|upper }}{% if not loop.last %}, {% endif %}{% endfor %}");
  s.push_back("{% macro f(n) %}{% if n > 0 %}{{ f(n - 1) }}{{ n }}{% endif %}{% endmacro %}{{ f(x) }}{% set ns = namespace(a=1) %}{% set ns.a = ns.a ~ 'z' %}{{ ns.a }}");
  s.push_back("{{ tools|map(attribute='function')|map(attribute='name')|join(', ') }}{{ messages[::-1]|tojson(indent=2) }}{% raw %}{{x}}{% endraw %}");
  return s;
}

std::string mutate(std::mt19937_64& rng, std::string s) {
  const int edits = 1 + static_cast<int>(rng() % 8);
  for (int e = 0; e < edits; ++e) {
    const size_t pos = s.empty() ? 0 : rng() % (s.size() + 1);
    switch (rng() % 5) {
      case 0:  // insert a token
        s.insert(pos, kTokens[rng() % std::size(kTokens)]);
        break;
      case 1:  // delete a range
        if (!s.empty()) s.erase(pos, 1 + rng() % 40);
        break;
      case 2:  // flip a byte
        if (pos < s.size()) s[pos] = static_cast<char>(rng() % 256);
        break;
      case 3: {  // duplicate a range elsewhere
        if (s.empty()) break;
        const size_t from = rng() % s.size();
        const std::string piece = s.substr(from, 1 + rng() % 200);
        s.insert(pos, piece);
        break;
      }
      default:  // truncate
        s.resize(pos);
    }
  }
  return s;
}

std::string soup(std::mt19937_64& rng) {
  std::string s;
  const int n = 1 + static_cast<int>(rng() % 60);
  for (int i = 0; i < n; ++i) s += kTokens[rng() % std::size(kTokens)];
  return s;
}

TEST(JinjaFuzz, MutatedTemplatesAndTokenSoupEndInSuccessOrATypedErrorWithinLimits) {
  RenderLimits limits;
  limits.max_output_bytes = 64 * 1024;
  limits.max_steps = 20000;
  limits.max_depth = 64;
  const ojson context = small_context();
  const auto corpus = seeds();
  std::mt19937_64 rng(0x6a696e6a61);
  const auto start = std::chrono::steady_clock::now();
  size_t runs = 0, rendered = 0, failed[4] = {0, 0, 0, 0};
  for (; runs < 30000; ++runs) {
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(3)) break;
    const std::string source = rng() % 4 == 0 ? soup(rng) : mutate(rng, corpus[rng() % corpus.size()]);
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const std::string out = Template::parse(source, limits)->render(context);
      ASSERT_LE(out.size(), limits.max_output_bytes);
      ++rendered;
    } catch (const TemplateError& e) {
      ++failed[static_cast<int>(e.kind())];
    } catch (const std::exception& e) {
      FAIL() << "untyped exception " << e.what() << " for template:\n" << source;
    }
    ASSERT_LT(std::chrono::steady_clock::now() - t0, std::chrono::milliseconds(500)) << "slow input:\n" << source;
  }
  std::printf("[ fuzz ] %zu inputs: %zu rendered, errors syntax %zu raised %zu runtime %zu limit %zu\n", runs, rendered,
              failed[0], failed[1], failed[2], failed[3]);
  EXPECT_GT(runs, 1000u);
  EXPECT_GT(rendered, 0u);
}

}  // namespace
}  // namespace ninfer::jinja
