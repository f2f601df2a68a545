// Renders chat contexts with the real templates through Python's Jinja2 (render_with_jinja2.py),
// one Python process per batch.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include <nlohmann/json.hpp>

#include "frontend_test_support.h"

namespace ninfer::qwen3::testing {

struct RenderCase {
  std::string template_name;  // qwen3 | qwen3_5 | qwen3_coder
  nlohmann::ordered_json context;
};

// One result per case: the rendered text, or the error the template raised ("error" set).
struct Rendered {
  std::string text;
  std::string error;
};

inline std::vector<Rendered> render_with_jinja2(const std::vector<RenderCase>& cases) {
  nlohmann::ordered_json request;
  for (const char* name : {"qwen3", "qwen3_5", "qwen3_coder"}) request["templates"][name] = read_text_file(template_path(name));
  request["cases"] = nlohmann::ordered_json::array();
  for (const auto& c : cases) request["cases"].push_back({{"template", c.template_name}, {"context", c.context}});
  char in_path[] = "/tmp/ninfer_jinja_in_XXXXXX";
  char out_path[] = "/tmp/ninfer_jinja_out_XXXXXX";
  const int in_fd = mkstemp(in_path), out_fd = mkstemp(out_path);
  if (in_fd < 0 || out_fd < 0) throw std::runtime_error("mkstemp failed");
  close(out_fd);
  const std::string body = request.dump();
  if (write(in_fd, body.data(), body.size()) != static_cast<ssize_t>(body.size())) throw std::runtime_error("write failed");
  close(in_fd);
  const std::string cmd = std::string("python3 ") + NINFER_SOURCE_DIR + "/tests/frontend/render_with_jinja2.py < " + in_path +
                          " > " + out_path;
  const int rc = std::system(cmd.c_str());
  const std::string out = read_text_file(out_path);
  std::remove(in_path);
  std::remove(out_path);
  if (rc != 0) throw std::runtime_error("render_with_jinja2.py failed: " + cmd);
  const auto results = nlohmann::json::parse(out);
  std::vector<Rendered> rendered;
  for (const auto& r : results) {
    Rendered x;
    if (r.contains("text")) x.text = r["text"].get<std::string>();
    if (r.contains("error")) x.error = r["error"].get<std::string>();
    rendered.push_back(std::move(x));
  }
  if (rendered.size() != cases.size()) throw std::runtime_error("render_with_jinja2.py returned a different number of results");
  return rendered;
}

// The assistant output of a rendered conversation whose last message is the assistant turn: the
// text after the last "<|im_start|>assistant" up to its "<|im_end|>", less what the generation
// prompt of that template would already hold ("\n", and for qwen3_5 "\n<think>\n").
inline std::string assistant_output(const std::string& rendered, const std::string& template_name) {
  const size_t at = rendered.rfind("<|im_start|>assistant");
  const size_t end = rendered.rfind("<|im_end|>");
  if (at == std::string::npos || end == std::string::npos || end < at) throw std::runtime_error("no assistant turn");
  std::string tail = rendered.substr(at + std::string("<|im_start|>assistant").size(), end - at - 21);
  const std::string prompt_part = template_name == "qwen3_5" ? "\n<think>\n" : "\n";
  if (tail.rfind(prompt_part, 0) != 0) throw std::runtime_error("unexpected assistant header: " + tail.substr(0, 20));
  return tail.substr(prompt_part.size());
}

inline OutputStart template_output_start(const std::string& template_name) {
  if (template_name == "qwen3") return OutputStart::OptionalThinking;
  if (template_name == "qwen3_5") return OutputStart::Thinking;
  return OutputStart::Body;
}

}  // namespace ninfer::qwen3::testing
