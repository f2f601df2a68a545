// Property: parse(render(tool_calls)) == tool_calls, rendering with the real templates through
// Python's Jinja2, for random calls in both formats (strings with "<", newlines, look-alikes of
// "</parameter>", unicode); and every rendered assistant turn is in the strict output language.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>

#include "frontend_test_support.h"
#include "jinja2_oracle.h"

namespace ninfer::qwen3 {
namespace {

using namespace testing;
using OJson = nlohmann::ordered_json;

const char* kToolSet = R"([
 {"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","minimum":1,"maximum":14},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["city","days"],"additionalProperties":false}},
 {"name":"create_order","parameters":{"type":"object","properties":{"customer":{"type":"object","properties":{"name":{"type":"string"},"vip":{"type":"boolean"}},"required":["name","vip"],"additionalProperties":false},"items":{"type":"array","items":{"type":"object","properties":{"sku":{"type":"string"},"qty":{"type":"integer"},"price":{"type":"number"}},"required":["sku","qty","price"],"additionalProperties":false}},"note":{"type":["string","null"]}},"required":["customer","items"],"additionalProperties":false}},
 {"name":"set_flags","parameters":{"type":"object","properties":{"enabled":{"type":"boolean"},"level":{"type":["integer","null"]},"ratio":{"type":"number"},"labels":{"type":"array","items":{"type":"string"}}},"required":["enabled"],"additionalProperties":false}},
 {"name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"append":{"type":"boolean"}},"required":["path","content"],"additionalProperties":false}},
 {"name":"ping","parameters":{"type":"object","properties":{},"additionalProperties":false}}
])";

// Pieces random strings are made of: markup look-alikes, newlines, quotes, escapes, unicode.
const std::vector<std::string> kPieces = {
    "a", "hello world", "<", ">", "\n", "</parameter", "</parameter>", "\n</paramete", "x</parameter>\n", "<parameter=x>",
    "</function>", "</tool_call>", "<tool_call>", "\u00e9", "\u65e5\u672c\u8a9e", "\U0001F642", "\"", "\\", "{", "}", "  ",
    "\t", "null", "True", "0", "\r\n", "\u2028", "'", "%s", "&amp;"};

class Gen {
 public:
  explicit Gen(uint64_t seed) : rng_(seed) {}
  uint32_t below(uint32_t n) { return static_cast<uint32_t>(rng_() % n); }
  bool coin() { return below(2) == 0; }

  std::string text(bool xml) {
    while (true) {
      std::string s;
      const uint32_t n = below(6);
      for (uint32_t i = 0; i < n; ++i) s += kPieces[below(static_cast<uint32_t>(kPieces.size()))];
      if (xml && s.find("\n</parameter>") != std::string::npos) continue;  // the one string XML cannot hold
      return s;
    }
  }

  OJson value(const OJson& schema, bool xml_top) {
    std::vector<std::string> types;
    const auto& t = schema["type"];
    if (t.is_string()) types.push_back(t.get<std::string>());
    else
      for (const auto& x : t) types.push_back(x.get<std::string>());
    const std::string type = types[below(static_cast<uint32_t>(types.size()))];
    if (schema.contains("enum")) return schema["enum"][below(static_cast<uint32_t>(schema["enum"].size()))];
    if (type == "null") return nullptr;
    if (type == "string") return text(xml_top);
    if (type == "boolean") return coin();
    if (type == "integer") {
      const int64_t lo = schema.value("minimum", int64_t{-100000}), hi = schema.value("maximum", int64_t{100000});
      return lo + static_cast<int64_t>(below(static_cast<uint32_t>(hi - lo + 1)));
    }
    if (type == "number") {
      static const double kNumbers[] = {0.5, -2.25, 3.0, 1.5e-05, 12345.678, 1e+20, -0.125, 100.0};
      return kNumbers[below(8)];
    }
    if (type == "array") {
      OJson a = OJson::array();
      const uint32_t n = below(4);
      for (uint32_t i = 0; i < n; ++i) a.push_back(value(schema["items"], false));
      return a;
    }
    OJson o = OJson::object();
    const auto required = schema.value("required", OJson::array());
    for (auto it = schema["properties"].begin(); it != schema["properties"].end(); ++it) {
      const bool req = std::find(required.begin(), required.end(), it.key()) != required.end();
      if (req || coin()) o[it.key()] = value(*it, xml_top && false);
    }
    return o;
  }

  // Content without whitespace at its ends (the XML templates trim it), no markup the turn cannot hold.
  std::string content() {
    if (below(3) == 0) return "";
    static const std::vector<std::string> words = {"Let", "me", "check", "<b>", "x<y", "\u00e9t\u00e9", "\U0001F642", "a\nb", "{\"k\": 1}"};
    std::string s;
    const uint32_t n = 1 + below(5);
    for (uint32_t i = 0; i < n; ++i) s += (i ? " " : "") + words[below(static_cast<uint32_t>(words.size()))];
    return s;
  }

 private:
  std::mt19937_64 rng_;
};

struct Case {
  std::string content;
  std::vector<std::pair<std::string, OJson>> calls;  // name, arguments
};

uint64_t seed() {
  const char* s = std::getenv("NINFER_PROPERTY_SEED");
  return s ? std::strtoull(s, nullptr, 10) : 20261201;
}

std::vector<ToolDefinition> strict_tools(const OJson& set) {
  std::vector<ToolDefinition> tools;
  for (const auto& t : set) tools.push_back(tool(t["name"].get<std::string>(), t["parameters"].dump(), true));
  return tools;
}

void check_round_trip(ToolCallFormat format, const std::vector<std::string>& templates, size_t num_cases) {
  const OJson set = OJson::parse(kToolSet);
  const std::vector<ToolDefinition> tools = strict_tools(set);
  OJson openai_tools = OJson::array();
  for (const auto& t : set) openai_tools.push_back({{"type", "function"}, {"function", {{"name", t["name"]}, {"description", "d"}, {"parameters", t["parameters"]}}}});
  Gen gen(seed() + static_cast<uint64_t>(format));
  const bool xml = format == ToolCallFormat::Xml;
  std::vector<Case> cases;
  std::vector<RenderCase> renders;
  for (size_t i = 0; i < num_cases; ++i) {
    Case c;
    c.content = gen.content();
    const uint32_t n = 1 + gen.below(3);
    OJson tool_calls = OJson::array();
    for (uint32_t k = 0; k < n; ++k) {
      const auto& t = set[gen.below(static_cast<uint32_t>(set.size()))];
      OJson args = gen.value(t["parameters"], xml);
      if (xml) {  // a top-level string parameter is raw text: the property is about those strings
        for (auto it = args.begin(); it != args.end(); ++it)
          if (it->is_string() && !t["parameters"]["properties"][it.key()].contains("enum")) *it = gen.text(true);
      }
      c.calls.emplace_back(t["name"].get<std::string>(), args);
      // Qwen3 renders arguments given as a JSON string verbatim: sometimes pass them that way.
      const OJson rendered_args = !xml && gen.below(4) == 0 ? OJson(args.dump()) : args;
      tool_calls.push_back({{"type", "function"}, {"function", {{"name", t["name"]}, {"arguments", rendered_args}}}});
    }
    OJson assistant = {{"role", "assistant"}, {"content", c.content}, {"reasoning_content", ""}, {"tool_calls", tool_calls}};
    OJson context = {{"messages", OJson::array({OJson{{"role", "user"}, {"content", "Do it."}}, assistant})},
                     {"tools", openai_tools},
                     {"add_generation_prompt", false}};
    for (const auto& name : templates) renders.push_back({name, context});
    cases.push_back(std::move(c));
  }
  const std::vector<Rendered> rendered = render_with_jinja2(renders);

  std::map<std::string, std::shared_ptr<const grammar::CompiledGrammar>> grammars;
  for (const auto& name : templates) {
    OutputLanguage lang;
    lang.start = template_output_start(name);
    lang.tools = &tools;
    lang.format = format;
    grammars[name] = compile_language(lang);
  }
  size_t checked = 0;
  for (size_t r = 0; r < renders.size(); ++r) {
    const Case& c = cases[r / templates.size()];
    const std::string& name = renders[r].template_name;
    ASSERT_TRUE(rendered[r].error.empty()) << name << ": " << rendered[r].error;
    const std::string out = assistant_output(rendered[r].text, name);
    SCOPED_TRACE(name + " case " + std::to_string(r) + ": " + grammar::quote_bytes(out));
    const ChatOutput parsed = parse_chat_output(out, template_output_start(name), tools, format, 1);
    EXPECT_EQ(parsed.reasoning, "");
    EXPECT_EQ(parsed.content, c.content);
    ASSERT_EQ(parsed.tool_calls.size(), c.calls.size());
    for (size_t k = 0; k < c.calls.size(); ++k) {
      EXPECT_EQ(parsed.tool_calls[k].name, c.calls[k].first);
      EXPECT_EQ(nlohmann::json::parse(parsed.tool_calls[k].arguments), nlohmann::json::parse(c.calls[k].second.dump()));
    }
    EXPECT_TRUE(accepts(grammars[name], out)) << "the strict output language rejects what the template renders, after "
                                               << grammar::quote_bytes(out.substr(0, accepted_prefix(grammars[name], out)));
    ++checked;
  }
  std::printf("[round trip] %s: %zu rendered turns checked (seed %llu)\n", xml ? "xml" : "json", checked,
              static_cast<unsigned long long>(seed()));
}

TEST(ToolCallRoundTrip, ParseOfWhatTheQwen3TemplateRendersGivesBackTheCalls) {
  check_round_trip(ToolCallFormat::Json, {"qwen3"}, 200);
}

TEST(ToolCallRoundTrip, ParseOfWhatTheXmlTemplatesRenderGivesBackTheCalls) {
  check_round_trip(ToolCallFormat::Xml, {"qwen3_5", "qwen3_coder"}, 200);
}

}  // namespace
}  // namespace ninfer::qwen3
