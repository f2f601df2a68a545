// The rendering corpus against the Python Jinja2 oracle: every (template, context) pair must render byte for byte
// as tests/jinja/oracle_render.py renders it, errors included (same kind; raised errors with the same message).
// The corpus comes from tests/jinja/make_corpus.py (fixed seed); the oracle runs once over all of it.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jinja/chat_template.h"
#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

using ojson = nlohmann::ordered_json;

std::string run_command(const std::string& command, int& status) {
  std::string out;
  FILE* p = popen(command.c_str(), "r");
  if (!p) {
    status = -1;
    return out;
  }
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = pclose(p);
  return out;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) lines.push_back(line);
  return lines;
}

ojson render_ours(const ojson& c) {
  std::string source;
  if (c.contains("bundled")) {
    source = std::string(*bundled_template(c["bundled"].get<std::string>()));
  } else {
    source = c["template"].get<std::string>();
  }
  try {
    return ojson{{"ok", parse_cached(source)->render(c["context"])}};
  } catch (const TemplateError& e) {
    return ojson{{"error", template_error_kind_name(e.kind())}, {"message", e.what()}};
  }
}

// Where two texts first differ, with some context around it.
std::string first_difference(const std::string& a, const std::string& b) {
  size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  const size_t from = i > 80 ? i - 80 : 0;
  return "at byte " + std::to_string(i) + "\n  ours:   " + ojson(a.substr(from, 160)).dump() + "\n  oracle: " + ojson(b.substr(from, 160)).dump();
}

TEST(OracleCorpus, EveryPairRendersExactlyAsPythonJinja2) {
  const std::string src = NINFER_SOURCE_DIR;
  const auto dir = std::filesystem::temp_directory_path() / ("ninfer_jinja_corpus_" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string corpus_path = (dir / "corpus.jsonl").string();
  int status = 0;
  run_command("python3 '" + src + "/tests/jinja/make_corpus.py' '" + src + "/node_modules' > '" + corpus_path + "'", status);
  ASSERT_EQ(status, 0) << "make_corpus.py failed (python3 missing?)";
  const std::string oracle = run_command("python3 '" + src + "/tests/jinja/oracle_render.py' '" + src +
                                             "/src/jinja/templates' < '" + corpus_path + "'",
                                         status);
  ASSERT_EQ(status, 0) << "the oracle failed: python3 with jinja2 (Debian python3-jinja2) is required";
  std::ifstream in(corpus_path);
  std::stringstream ss;
  ss << in.rdbuf();
  const auto cases = lines_of(ss.str());
  const auto results = lines_of(oracle);
  std::filesystem::remove_all(dir);
  ASSERT_GE(cases.size(), 300u);
  ASSERT_EQ(cases.size(), results.size());

  size_t identical = 0, errors = 0, shown = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const ojson c = ojson::parse(cases[i]);
    const ojson expected = ojson::parse(results[i]);
    const ojson got = render_ours(c);
    bool same;
    if (expected.contains("ok")) {
      same = got.contains("ok") && got["ok"] == expected["ok"];
    } else {
      ++errors;
      same = got.contains("error") && got["error"] == expected["error"] &&
             (expected["error"] != "raised" || got["message"] == expected["message"]);
    }
    if (same) {
      ++identical;
      continue;
    }
    if (++shown <= 8) {
      std::string detail;
      if (got.contains("ok") && expected.contains("ok")) {
        detail = first_difference(got["ok"].get<std::string>(), expected["ok"].get<std::string>());
      } else {
        detail = "\n  ours:   " + got.dump().substr(0, 300) + "\n  oracle: " + expected.dump().substr(0, 300);
      }
      ADD_FAILURE() << c["name"].get<std::string>() << " differs " << detail;
    }
  }
  std::printf("[ corpus ] %zu / %zu pairs identical to the oracle (%zu of them errors)\n", identical, cases.size(), errors);
  EXPECT_EQ(identical, cases.size());
}

}  // namespace
}  // namespace ninfer::jinja
