// End-to-end generation driver for CTest `e2e_generate`: runs constrained generation on a model (the
// default generated tiny Qwen3 model unless --model is given) through the public Engine, several
// requests at once in shared batches, and writes one JSONL record per request for the independent
// checkers in check_e2e.mjs (Ajv for JSON, JavaScript RegExp for regex/GBNF languages).
//
// Usage: ninfer_e2e_driver --maskbench DIR --count N --out FILE [--model PATH] [--max-tokens M] [--seed S]
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

struct Case {
  std::string kind;  // maskbench | json_object | regex | choice | gbnf | dead_end
  std::string file;  // maskbench file name
  std::string source;
  std::vector<std::string> choices;
  ninfer::OutputConstraint constraint = ninfer::OutputConstraint::json_object();
};

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

int main(int argc, char** argv) {
  std::string maskbench, out_path, model;
  int count = 50, max_tokens = 384;
  uint64_t seed = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto next = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--maskbench") maskbench = next();
    else if (a == "--count") count = std::stoi(next());
    else if (a == "--out") out_path = next();
    else if (a == "--model") model = next();
    else if (a == "--max-tokens") max_tokens = std::stoi(next());
    else if (a == "--seed") seed = std::stoull(next());
    else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  if (out_path.empty()) {
    std::cerr << "--out is required\n";
    return 2;
  }
  ninfer::EngineOptions eo;
  eo.model = model;
  eo.max_batch_rows = 4;
  eo.max_context = 1024;
  ninfer::Engine engine(eo);
  std::ofstream out(out_path);

  std::vector<Case> cases;
  {
    Case c;
    c.kind = "json_object";
    c.constraint = ninfer::OutputConstraint::json_object();
    cases.push_back(c);
    c.kind = "regex";
    c.source = "(19|20)[0-9]{2}-(0[1-9]|1[0-2])-[0-2][0-9] [A-Z][a-z]{2,8}( [a-z]{1,8}){0,3}\\.";
    c.constraint = ninfer::OutputConstraint::regex(c.source);
    cases.push_back(c);
    c.kind = "choice";
    c.choices = {"positive", "negative", "neutral", "it depends", ""};
    c.constraint = ninfer::OutputConstraint::choice(c.choices);
    cases.push_back(c);
    c.kind = "gbnf";
    c.source = "root ::= pair (\",\" pair){0,4}\npair ::= [a-z]{1,8} \"=\" [0-9]{1,4}\n";
    c.constraint = ninfer::OutputConstraint::grammar(c.source);
    cases.push_back(c);
    c.kind = "gbnf_balanced";  // recursive: balanced brackets, checked by a counter
    c.source = "root ::= group+\ngroup ::= \"(\" group* \")\" | \"[\" group* \"]\"\n";
    c.constraint = ninfer::OutputConstraint::grammar(c.source);
    cases.push_back(c);
    // After "a" only Qwen3's <|endoftext|> (151643) as a grammar token would do; an EOS id is
    // completion, never text, so no legal token exists there.
    c.kind = "dead_end";
    c.source = "root ::= \"a\" Token(151643) \"b\"\n";
    c.constraint = ninfer::OutputConstraint::grammar(c.source);
    cases.push_back(c);
  }
  // MaskBench schemas: a deterministic spread over the sorted file list, the first `count` that compile.
  std::vector<fs::path> files;
  if (!maskbench.empty())
    for (const auto& e : fs::directory_iterator(maskbench))
      if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  const size_t stride = files.empty() ? 1 : std::max<size_t>(1, files.size() / (size_t(count) * 2));

  struct Pending {
    Case c;
    ninfer::RequestHandle h;
  };
  std::vector<Pending> pending;
  const auto drain = [&](size_t keep) {
    while (pending.size() > keep) {
      Pending& p = pending.front();
      const ninfer::GenerationResult r = p.h.wait();
      json rec{{"kind", p.c.kind},
               {"file", p.c.file},
               {"index", 0},
               {"text", r.text},
               {"finish_reason", ninfer::finish_reason_name(r.finish_reason)},
               {"tokens", r.usage.completion_tokens},
               {"complete", r.constraint && r.constraint->complete},
               {"terminated", r.constraint && r.constraint->terminated},
               {"ended", r.constraint && r.constraint->complete}};  // complete at the budget is judged too
      if (!p.c.source.empty()) rec["source"] = p.c.source;
      if (!p.c.choices.empty()) rec["choices"] = p.c.choices;
      if (r.error) rec["request_error"] = ninfer::request_error_kind_name(*r.error);
      out << rec.dump() << "\n";
      pending.erase(pending.begin());
    }
  };
  ninfer::PromptInput in;
  in.text = "Output:";
  const ninfer::PreparedPrompt prompt = engine.prepare(in);
  uint64_t n = 0;
  const auto submit = [&](const Case& c) -> bool {
    ninfer::RequestOptions ro;
    ro.constraint = c.constraint;
    ro.max_tokens = max_tokens;
    ro.sampling.seed = seed * 1000003ull + n++;
    try {
      pending.push_back({c, engine.submit(prompt, ro)});
    } catch (const ninfer::ConstraintError& e) {
      out << json{{"kind", c.kind}, {"file", c.file}, {"index", 0},
                  {"compile_error", {{"kind", ninfer::constraint_error_kind_name(e.kind())}, {"keyword", e.keyword()}}}}
                 .dump()
          << "\n";
      return false;
    }
    drain(8);  // keep requests in flight so rows share batches
    return true;
  };
  for (const Case& c : cases) submit(c);
  int compiled = 0;
  for (size_t i = 0; i < files.size() && compiled < count; i += stride) {
    Case c;
    c.kind = "maskbench";
    c.file = files[i].filename().string();
    try {
      const json doc = json::parse(read(files[i]));
      c.constraint = ninfer::OutputConstraint::json_schema(doc.at("schema").dump());
    } catch (const std::exception&) {
      continue;
    }
    if (submit(c)) ++compiled;
  }
  drain(0);
  std::cerr << "e2e driver: " << compiled << " MaskBench schemas generated\n";
  return compiled < count && !files.empty() ? 1 : 0;
}
