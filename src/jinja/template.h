// Chat templates: Jinja2 as Hugging Face transformers configures it (ImmutableSandboxedEnvironment, trim_blocks,
// lstrip_blocks, loopcontrols, HF's tojson, raise_exception, strftime_now), implemented here with no third-party
// template code. Parse once (parse_cached), render many times; a Template is immutable and thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "jinja/template_error.h"

namespace ninfer::jinja {

struct RenderLimits {
  size_t max_source_bytes = size_t{1} << 20;   // parse refuses larger sources (Limit)
  size_t max_output_bytes = size_t{16} << 20;  // rendered text and any intermediate string or list
  int max_depth = 200;                         // syntax nesting and macro call nesting
  uint64_t max_steps = 100'000'000;            // statements, loop iterations, calls and filter items
};

struct ParsedTemplate;

class Template {
 public:
  // Throws TemplateError(Syntax) or TemplateError(Limit).
  static std::shared_ptr<const Template> parse(std::string_view source, const RenderLimits& limits = {});
  // The members of `context` are the template's variables. nlohmann::json keeps object keys sorted, so dicts
  // (tools, arguments) print and serialize in sorted key order; pass an ordered_json to keep the caller's order
  // (as Python does). Throws TemplateError.
  std::string render(const nlohmann::json& context) const;
  std::string render(const nlohmann::ordered_json& context) const;

  const RenderLimits& limits() const { return limits_; }
  ~Template();

 private:
  Template() = default;
  std::unique_ptr<ParsedTemplate> parsed_;
  RenderLimits limits_;
};

// Parses once per distinct source: a process-wide, thread-safe, bounded (LRU) cache keyed by the source text.
std::shared_ptr<const Template> parse_cached(std::string_view source);

}  // namespace ninfer::jinja
