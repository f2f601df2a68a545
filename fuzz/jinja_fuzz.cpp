// libFuzzer target: template text -> Template::parse -> render with a small chat context and tight limits.
// TemplateError (any kind) is the only acceptable failure; any other exception, output past max_output_bytes or a
// sanitizer report is a bug and crashes the run. Seeds: src/jinja/templates/*.jinja.
//
// Build: CXX=clang++ cmake -S . -B build-fuzz -G Ninja -DNINFER_FUZZ=ON -DNINFER_BUILD_TESTS=OFF
//        && ninja -C build-fuzz jinja_fuzz && build-fuzz/jinja_fuzz -max_len=16384 src/jinja/templates
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "jinja/template.h"

namespace {

const nlohmann::ordered_json& context() {
  static const nlohmann::ordered_json c = nlohmann::ordered_json::parse(R"({
    "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "hi"},
                 {"role": "assistant", "content": "<think>r</think>ok", "tool_calls": [{"type": "function",
                   "function": {"name": "f", "arguments": {"a": [1, {"b": null}]}}}]},
                 {"role": "tool", "content": "{}"}, {"role": "user", "content": [{"type": "text", "text": "x"}]}],
    "tools": [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}],
    "add_generation_prompt": true, "enable_thinking": false
  })");
  return c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ninfer::jinja::RenderLimits limits;
  limits.max_output_bytes = 64 * 1024;
  limits.max_steps = 50000;
  limits.max_depth = 64;
  const std::string_view source(reinterpret_cast<const char*>(data), size);
  try {
    const std::string out = ninfer::jinja::Template::parse(source, limits)->render(context());
    if (out.size() > limits.max_output_bytes) {
      std::fprintf(stderr, "jinja_fuzz: output of %zu bytes passed the limit\n", out.size());
      std::abort();
    }
  } catch (const ninfer::jinja::TemplateError&) {
  }
  return 0;
}
