#include "cli/grammar_commands.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include <nlohmann/json.hpp>

#include "api/result_json.h"
#include "cli/bench_documents.h"
#include "cli/constraint_flags.h"
#include "cli/latency_stats.h"
#include "cli/maskbench_command.h"
#include "cli/option_checks.h"
#include "cli/sample_command.h"
#include "grammar/compiled_grammar.h"
#include "grammar/explain.h"
#include "grammar/matcher.h"
#include "text/constraint_compiler.h"
#include "text/json_text.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;
double us_since(Clock::time_point t0) { return std::chrono::duration<double, std::micro>(Clock::now() - t0).count(); }

// A byte-only domain (every byte one token) for checks without a tokenizer.
std::shared_ptr<const grammar::TokenDomain> byte_domain() {
  std::vector<std::string> bytes{"<eos>"};
  std::vector<grammar::TokenClass> cls{grammar::TokenClass::Control};
  for (int b = 0; b < 256; ++b) {
    bytes.emplace_back(1, static_cast<char>(b));
    cls.push_back(grammar::TokenClass::Normal);
  }
  return std::make_shared<grammar::TokenDomain>(std::move(bytes), std::move(cls), std::vector<int32_t>{0});
}

struct CheckArgs {
  ConstraintArgs constraint;
  std::string tokenizer;
  std::string input_file;
  bool explain = false;
};

int run_check(const CheckArgs& args) {
  std::shared_ptr<const tokenizer::Tokenizer> tok;
  std::shared_ptr<const grammar::TokenDomain> domain;
  if (!args.tokenizer.empty()) {
    tok = tokenizer::Tokenizer::load(args.tokenizer);
    domain = tokenizer::build_token_domain(*tok);
  } else {
    domain = byte_domain();
  }
  std::shared_ptr<const grammar::CompiledGrammar> compiled;
  try {
    const OutputConstraint constraint = build_constraint(args.constraint);
    text::CompiledConstraint cc = text::compile_constraint(constraint, domain);
    compiled = cc.grammar;
    // A JSON Schema first gets one line with the keywords its grammar does not enforce (and,
    // under lenient strictness, the ones among them that look like typos).
    if (constraint.kind() == OutputConstraint::Kind::JsonSchema) {
      nlohmann::json first{{"ignored_keywords", cc.ignored_keywords}};
      if (!cc.suspected_typos.empty()) first["suspected_typos"] = api::suspected_typos_json(cc.suspected_typos);
      std::cout << first.dump() << "\n";
    }
  } catch (const std::exception& e) {
    return report_constraint_error(e);
  }
  std::ifstream in(args.input_file);
  if (!in) {
    std::cerr << "cannot read " << args.input_file << "\n";
    return 1;
  }
  std::string line;
  int64_t index = 0;
  std::vector<uint32_t> mask(domain->mask_words());
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    nlohmann::ordered_json out;
    out["index"] = index++;
    std::string text;
    try {
      text = nlohmann::json::parse(line).at("text").get<std::string>();
    } catch (const std::exception& e) {
      out["error"] = std::string("bad input line: ") + e.what();
      std::cout << out.dump() << "\n";
      continue;
    }
    grammar::Matcher m(compiled);
    size_t rejected_at = text.size();
    for (size_t i = 0; i < text.size(); ++i)
      if (!m.accept_bytes(std::string_view(text).substr(i, 1))) {
        rejected_at = i;
        break;
      }
    out["status"] = rejected_at < text.size() ? "rejected" : m.can_end() ? "complete" : "prefix";
    if (rejected_at < text.size()) {
      out["byte"] = rejected_at;
      // What the constraint allowed there (docs/grammar-engine.md, "Explanations"): `m` stands
      // just before the refused byte.
      const grammar::Explanation why = grammar::explain_next(m);
      out["expected"] = why.expected;
      out["expected_bytes"] = grammar::byte_class_text(why.expected_bytes);
      out["can_end"] = why.can_end;
      if (args.explain) out["path"] = why.path;
    }
    if (tok) {
      grammar::Matcher tm(compiled);
      std::vector<int32_t> ids = tok->encode(text);
      size_t bad = ids.size();
      bool mismatch = false;
      for (size_t i = 0; i < ids.size(); ++i) {
        tm.fill_mask(mask.data());
        bool in_mask = (mask[ids[i] >> 5] >> (ids[i] & 31)) & 1u;
        bool accepted = tm.accept_token(ids[i]);
        mismatch |= in_mask != accepted;
        if (!accepted) {
          bad = i;
          break;
        }
      }
      out["token_status"] = bad < ids.size() ? "rejected" : tm.can_end() ? "complete" : "prefix";
      if (bad < ids.size()) out["token"] = bad;
      out["tokens"] = ids.size();
      if (mismatch) out["mask_mismatch"] = true;  // mask and accept disagree: an engine bug
    }
    std::cout << out.dump() << "\n";
  }
  return 0;
}

struct BenchArgs {
  ConstraintArgs constraint;
  std::string tokenizer;
  std::string inputs;
  size_t max_docs = 100;
  int compile_runs = 5;
  bool compact = false;
  std::string classify = "eager";
};

int run_bench(const BenchArgs& args) {
  std::vector<std::string> docs;
  try {
    docs = load_bench_documents(args.inputs, args.max_docs, args.compact);
  } catch (const BenchInputsError& e) {
    return report_bench_inputs_error(e);
  }
  auto t0 = Clock::now();
  auto tok = tokenizer::Tokenizer::load(args.tokenizer);
  double load_ms = us_since(t0) / 1000;
  auto t1 = Clock::now();
  auto domain = tokenizer::build_token_domain(*tok);
  double domain_ms = us_since(t1) / 1000;
  std::shared_ptr<const grammar::CompiledGrammar> compiled;
  std::vector<double> compile_ms;
  try {
    const OutputConstraint constraint = build_constraint(args.constraint);
    for (int i = 0; i < std::max(1, args.compile_runs); ++i) {
      auto tc = Clock::now();
      grammar::CompileOptions opts;
      opts.eager = args.classify == "eager";
      compiled = text::compile_constraint(constraint, domain, nullptr, opts).grammar;  // lowering included: a cold compile
      compile_ms.push_back(us_since(tc) / 1000);
    }
  } catch (const std::exception& e) {
    return report_constraint_error(e);
  }
  std::vector<double> mask_us, accept_us;
  std::vector<uint32_t> mask(domain->mask_words());
  size_t rejected_docs = 0, incomplete_docs = 0, tokens = 0;
  for (const auto& doc : docs) {
    std::vector<int32_t> ids = tok->encode(doc);
    grammar::Matcher m(compiled);
    bool ok = true;
    for (int32_t id : ids) {
      auto ta = Clock::now();
      m.fill_mask(mask.data());
      mask_us.push_back(us_since(ta));
      ++tokens;
      if (!((mask[id >> 5] >> (id & 31)) & 1u)) {
        ok = false;
        break;
      }
      auto tb = Clock::now();
      bool accepted = m.accept_token(id);
      accept_us.push_back(us_since(tb));
      if (!accepted) {
        ok = false;
        break;
      }
    }
    if (!ok) {
      ++rejected_docs;
      continue;
    }
    // The final mask (EOS position) counts too.
    auto ta = Clock::now();
    m.fill_mask(mask.data());
    mask_us.push_back(us_since(ta));
    if (!m.can_end()) ++incomplete_docs;
  }
  std::vector<double> sorted_compile = compile_ms;
  std::sort(sorted_compile.begin(), sorted_compile.end());
  nlohmann::ordered_json out;
  out["tokenizer"] = args.tokenizer;
  out["vocab_size"] = domain->size();
  out["tokenizer_load_ms"] = load_ms;
  out["token_domain_build_ms"] = domain_ms;
  out["compile_ms"] = {{"cold_first", compile_ms.front()}, {"median", percentile(sorted_compile, 50)},
                       {"runs", compile_ms.size()}};
  const auto st = compiled->stats();
  out["classify"] = args.classify;
  out["grammar"] = {{"dfa_states", st.dfa_states}, {"kernel_states", st.kernel_states},
                    {"classified_states", st.classified_states}, {"rules", st.rules},
                    {"distinct_bitsets", st.distinct_bitsets}, {"uncertain_nodes", st.uncertain_nodes},
                    {"classify_ms", st.classify_seconds * 1000}, {"memory_bytes", compiled->memory_bytes()}};
  out["documents"] = docs.size();
  out["tokens"] = tokens;
  out["rejected_documents"] = rejected_docs;
  out["incomplete_documents"] = incomplete_docs;
  out["masks"] = mask_us.size();
  out["mask_us"] = summarize(mask_us);
  out["accept_us"] = summarize(accept_us);
  std::cout << out.dump(2) << std::endl;
  return rejected_docs || incomplete_docs ? 1 : 0;
}

}  // namespace

void register_grammar_commands(CLI::App& app, int& status) {
  auto* grammar = app.add_subcommand("grammar", "Grammar tooling: check inputs, benchmark masks");
  grammar->require_subcommand(1);

  auto check_args = std::make_shared<CheckArgs>();
  auto* check = grammar->add_subcommand("check", "Classify each input as complete / prefix / rejected");
  add_constraint_flags(*check, check_args->constraint);
  check->add_option("--tokenizer", check_args->tokenizer, "qwen3 | llama3_1 | tokenizer.json | model folder");
  check->add_option("--input-file", check_args->input_file, "JSONL file of {\"text\": ...}")->required();
  check->add_flag("--explain", check_args->explain, "For rejected inputs, also print the rules open at the failing byte");
  check->callback([check_args, &status] { status = run_check(*check_args); });

  auto bench_args = std::make_shared<BenchArgs>();
  auto* bench = grammar->add_subcommand("bench", "Walk valid documents token by token and time every mask");
  add_constraint_flags(*bench, bench_args->constraint);
  bench->add_option("--tokenizer", bench_args->tokenizer, "qwen3 | llama3_1 | tokenizer.json | model folder")->required();
  bench->add_option("--inputs", bench_args->inputs, "MaskBench file, JSONL of {\"text\": ...}, a .json document, or a folder of them")->required();
  bench->add_option("--max-docs", bench_args->max_docs, "documents to walk (default 100)")
      ->check(integer_option<size_t>(1));
  bench->add_option("--compile-runs", bench_args->compile_runs, "cold compiles to time (default 5)")
      ->check(integer_option<int>(1));
  bench->add_flag("--compact", bench_args->compact, "serialise .json documents (MaskBench tests, plain documents) compactly instead of like json.dumps");
  bench->add_option("--classify", bench_args->classify, "eager (default: every state in compile) or lazy (on first use)")
      ->check(CLI::IsMember({"eager", "lazy"}));
  bench->callback([bench_args, &status] { status = run_bench(*bench_args); });

  register_maskbench_command(*grammar, status);
  register_sample_command(*grammar, status);
}

}  // namespace ninfer::cli
