// Shared fixtures for the Qwen frontend tests: the qwen3 tokenizer's token domain, output grammars
// compiled against it, byte acceptance, and tool definitions written inline.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "grammar/compiled_grammar.h"
#include "grammar/matcher.h"
#include "grammar/token_domain.h"
#include "models/qwen3/frontend/qwen3_frontend.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::qwen3::testing {

inline const std::shared_ptr<const tokenizer::Tokenizer>& qwen3_tokenizer() {
  static const std::shared_ptr<const tokenizer::Tokenizer> tok = tokenizer::Tokenizer::load("qwen3");
  return tok;
}

inline const std::shared_ptr<const grammar::TokenDomain>& qwen3_domain() {
  static const std::shared_ptr<const grammar::TokenDomain> d = tokenizer::build_token_domain(*qwen3_tokenizer());
  return d;
}

inline std::shared_ptr<const grammar::CompiledGrammar> compile_language(const OutputLanguage& lang) {
  return grammar::compile(output_language_grammar(lang), qwen3_domain());
}

// The matcher accepts `text` byte by byte and may end there (EOS allowed).
inline bool accepts(const std::shared_ptr<const grammar::CompiledGrammar>& g, std::string_view text) {
  grammar::Matcher m(g);
  for (char c : text)
    if (!m.accept_bytes(std::string_view(&c, 1))) return false;
  return m.can_end();
}

// The matcher accepts `text` as a prefix (it may or may not end there).
inline bool accepts_prefix(const std::shared_ptr<const grammar::CompiledGrammar>& g, std::string_view text) {
  grammar::Matcher m(g);
  for (char c : text)
    if (!m.accept_bytes(std::string_view(&c, 1))) return false;
  return true;
}

// How many bytes of `text` the matcher accepts.
inline size_t accepted_prefix(const std::shared_ptr<const grammar::CompiledGrammar>& g, std::string_view text) {
  grammar::Matcher m(g);
  for (size_t i = 0; i < text.size(); ++i)
    if (!m.accept_bytes(text.substr(i, 1))) return i;
  return text.size();
}

inline ToolDefinition tool(std::string name, std::string parameters, bool strict = true) {
  ToolDefinition t;
  t.name = std::move(name);
  t.parameters = std::move(parameters);
  t.strict = strict;
  return t;
}

inline ToolChoice choice(ToolChoiceMode mode, std::vector<std::string> names = {}, bool parallel = true,
                         ToolEnforcement enforcement = ToolEnforcement::Basic) {
  ToolChoice c;
  c.mode = mode;
  c.allowed_names = std::move(names);
  c.parallel = parallel;
  c.enforcement = enforcement;
  return c;
}

inline std::string read_text_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string s;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  std::fclose(f);
  return s;
}

inline std::string template_path(const std::string& name) {
  return std::string(NINFER_SHARED_DATA_DIR) + "/templates/" + name + ".jinja";
}

}  // namespace ninfer::qwen3::testing
