#include "cli/maskbench_command.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "api/result_json.h"
#include "cli/constraint_flags.h"
#include "cli/latency_stats.h"
#include "cli/option_checks.h"
#include "grammar/matcher.h"
#include "ninfer/constraint_error.h"
#include "text/constraint_compiler.h"
#include "text/json_schema_compiler.h"
#include "text/json_text.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::cli {
namespace {

using Clock = std::chrono::steady_clock;
namespace fs = std::filesystem;

struct MaskbenchArgs {
  std::string dir;
  std::string tokenizer = "llama3_1";
  std::string whitespace = "compact";
  // MaskBench feeds each instance in its own key order: the schema's language (any order), not
  // the declared-order generation default, is what its valid instances must pass.
  std::string property_order = "flexible";
  // MaskBench judges instances with a specification validator, for which every unknown keyword,
  // a misspelt assertion included, is an annotation: lenient strictness compiles the language it
  // judges by (and still reports the suspected typos).
  std::string schema_strictness = "lenient";
  double timeout_s = 60;
  int jobs = 1;
  size_t limit = 0;    // 0 = every schema
  size_t sample = 0;   // 0 = no sampling; else a seeded random sample of this many schemas
  uint64_t seed = 1;
  std::string details;  // optional JSONL file with one line per schema
  size_t memory_gib = 8;
  std::string classify = "lazy";
};

// Runs one schema file in the current (child) process; returns the result object.
nlohmann::json run_schema(const std::string& path, const tokenizer::Tokenizer& tok,
                          const std::shared_ptr<const grammar::TokenDomain>& domain, const JsonFormatOptions& fmt,
                          const grammar::CompileOptions& opts) {
  nlohmann::json r;
  r["file"] = fs::path(path).filename().string();
  nlohmann::ordered_json doc;
  try {
    doc = nlohmann::ordered_json::parse(read_file(path));
  } catch (const std::exception& e) {
    r["status"] = "bad_file";
    r["message"] = e.what();
    return r;
  }
  const std::string schema = doc.at("schema").dump();
  std::shared_ptr<const grammar::CompiledGrammar> compiled;
  auto t0 = Clock::now();
  try {
    text::CompiledConstraint cc = text::compile_constraint(OutputConstraint::json_schema(schema, fmt), domain, nullptr, opts);
    compiled = std::move(cc.grammar);
    if (!cc.suspected_typos.empty()) r["suspected_typos"] = api::suspected_typos_json(cc.suspected_typos);
  } catch (const ConstraintError& e) {
    r["status"] = "compile_error";
    r["error_kind"] = constraint_error_kind_name(e.kind());
    r["keyword"] = e.keyword();
    r["pointer"] = e.pointer();
    r["message"] = e.what();
    // The schema's suspected typos whatever the error (a typo error under standard strictness, or
    // another keyword): a lenient audit lists them all.
    try {
      JsonFormatOptions lenient = fmt;
      lenient.schema_strictness = SchemaStrictness::Lenient;
      const auto audit = text::json_schema_keyword_audit(schema, lenient);
      if (!audit.suspected_typos.empty()) r["suspected_typos"] = api::suspected_typos_json(audit.suspected_typos);
    } catch (const ConstraintError&) {
      // Not a readable schema: its error says so.
    }
    return r;
  }
  r["ttfm_us"] = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
  const text::JsonStyle style{fmt.whitespace == JsonWhitespace::Flexible, false};
  std::vector<double> tbm;
  std::vector<uint32_t> mask(domain->mask_words());
  std::string status = "pass";
  for (size_t ti = 0; ti < doc["tests"].size(); ++ti) {
    const auto& test = doc["tests"][ti];
    const bool valid = test.value("valid", false);
    const std::string text = text::dump_json(test["data"], style);
    std::vector<int32_t> ids = tok.encode(text);
    grammar::Matcher m(compiled);
    bool refused = false;
    for (int32_t id : ids) {
      auto ta = Clock::now();
      m.fill_mask(mask.data());
      const bool allowed = (mask[id >> 5] >> (id & 31)) & 1u;
      const bool accepted = allowed && m.accept_token(id);
      tbm.push_back(std::chrono::duration<double, std::micro>(Clock::now() - ta).count());
      if (!accepted) {
        refused = true;
        break;
      }
    }
    const bool complete = !refused && m.can_end();
    if (valid && !complete) {
      status = "validation_error";
      r["failed_test"] = ti;
      r["failed_text"] = text.substr(0, 300);
    } else if (!valid && complete) {
      status = "invalidation_error";
      r["failed_test"] = ti;
      r["failed_text"] = text.substr(0, 300);
    }
  }
  r["status"] = status;
  r["tbm_max_us"] = tbm.empty() ? 0.0 : *std::max_element(tbm.begin(), tbm.end());
  r["tbm_us"] = tbm;
  return r;
}

int run_maskbench(const MaskbenchArgs& args) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(args.dir))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (args.sample && args.sample < files.size()) {
    std::mt19937_64 rng(args.seed);
    std::shuffle(files.begin(), files.end(), rng);
    files.resize(args.sample);
    std::sort(files.begin(), files.end());
  }
  if (args.limit && args.limit < files.size()) files.resize(args.limit);

  auto tok = tokenizer::Tokenizer::load(args.tokenizer);
  signal(SIGPIPE, SIG_IGN);
  auto domain = tokenizer::build_token_domain(*tok);
  // Forked workers inherit `fmt` (strictness included) with the rest of this frame.
  const JsonFormatOptions fmt = json_format(args.whitespace, args.property_order, args.schema_strictness);

  // Persistent worker processes (warm allocators, like a serving process); a worker that crashes,
  // runs out of memory or overruns the time limit is replaced and only its schema is charged.
  grammar::CompileOptions opts;
  opts.eager = args.classify == "eager";
  struct Worker {
    pid_t pid = -1;
    int to = -1, from = -1;
    std::string buf;
    long job = -1;  // index into files, -1 when idle
    Clock::time_point start;
  };
  std::vector<Worker> workers(static_cast<size_t>(std::max(1, args.jobs)));
  auto spawn = [&](Worker& w) {
    int req[2], resp[2];
    if (pipe(req) != 0 || pipe(resp) != 0) throw std::runtime_error("pipe failed");
    std::cout.flush();
    pid_t pid = fork();
    if (pid == 0) {
      close(req[1]);
      close(resp[0]);
      // Other workers' pipe ends must not stay open here, or they would never see EOF.
      for (const auto& other : workers)
        if (other.pid > 0) close(other.to), close(other.from);
      rlimit lim{args.memory_gib << 30, args.memory_gib << 30};
      setrlimit(RLIMIT_AS, &lim);
      FILE* in = fdopen(req[0], "r");
      char line[64];
      while (fgets(line, sizeof line, in)) {
        const size_t idx = std::stoul(line);
        std::string out;
        try {
          out = run_schema(files[idx], *tok, domain, fmt, opts).dump();
        } catch (const std::bad_alloc&) {
          out = nlohmann::json{{"file", fs::path(files[idx]).filename().string()}, {"status", "oom"}}.dump();
        } catch (const std::exception& e) {
          out = nlohmann::json{{"file", fs::path(files[idx]).filename().string()}, {"status", "crash"}, {"message", e.what()}}.dump();
        }
        out.push_back('\n');
        size_t off = 0;
        while (off < out.size()) {
          ssize_t n = write(resp[1], out.data() + off, out.size() - off);
          if (n <= 0) _exit(1);
          off += static_cast<size_t>(n);
        }
      }
      _exit(0);
    }
    close(req[0]);
    close(resp[1]);
    w = Worker{pid, req[1], resp[0], {}, -1, {}};
  };
  auto retire = [&](Worker& w) {
    kill(w.pid, SIGKILL);
    close(w.to);
    close(w.from);
    int st = 0;
    waitpid(w.pid, &st, 0);
    return st;
  };
  for (auto& w : workers) spawn(w);
  std::vector<nlohmann::json> results;
  size_t next = 0, done = 0;
  auto filename = [&](long job) { return fs::path(files[static_cast<size_t>(job)]).filename().string(); };
  while (done < files.size()) {
    for (auto& w : workers) {
      if (w.job >= 0 || next >= files.size()) continue;
      w.job = static_cast<long>(next);
      w.start = Clock::now();
      const std::string msg = std::to_string(next++) + "\n";
      if (write(w.to, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) throw std::runtime_error("worker pipe");
    }
    std::vector<pollfd> fds;
    for (auto& w : workers) fds.push_back({w.from, POLLIN, 0});
    poll(fds.data(), fds.size(), 100);
    for (size_t i = 0; i < workers.size(); ++i) {
      Worker& w = workers[i];
      if (w.job < 0) continue;
      bool dead = false;
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        char buf[65536];
        ssize_t n = read(w.from, buf, sizeof buf);
        if (n > 0) w.buf.append(buf, static_cast<size_t>(n));
        else dead = true;
      }
      const size_t nl = w.buf.find('\n');
      if (nl != std::string::npos) {
        nlohmann::json res = nlohmann::json::parse(w.buf.substr(0, nl), nullptr, false);
        if (res.is_discarded()) res = {{"file", filename(w.job)}, {"status", "crash"}};
        w.buf.erase(0, nl + 1);
        const double took = std::chrono::duration<double>(Clock::now() - w.start).count();
        if (took > 5) std::cerr << "maskbench: slow schema " << filename(w.job) << " took " << took << " s\n";
        results.push_back(std::move(res));
        w.job = -1;
        if (++done % 500 == 0) std::cerr << "maskbench: " << done << "/" << files.size() << " schemas\n";
        continue;
      }
      const bool late = std::chrono::duration<double>(Clock::now() - w.start).count() > args.timeout_s;
      if (dead || late) {
        const int st = retire(w);
        nlohmann::json res = {{"file", filename(w.job)}, {"status", late && !dead ? "timeout" : "crash"}};
        if (WIFSIGNALED(st) && dead) res["signal"] = WTERMSIG(st);
        results.push_back(std::move(res));
        ++done;
        spawn(w);
      }
    }
  }
  for (auto& w : workers) retire(w);

  std::map<std::string, size_t> counts;
  std::map<std::string, size_t> unsupported;
  std::vector<double> tbm, ttfm;
  size_t suspected_typo_schemas = 0;
  std::unique_ptr<std::ofstream> details;
  if (!args.details.empty()) details = std::make_unique<std::ofstream>(args.details);
  for (auto& r : results) {
    const std::string st = r.value("status", "crash");
    ++counts[st];
    if (st == "compile_error") {
      std::string key = r.value("error_kind", "") + (r.value("keyword", "").empty() ? "" : ":" + r.value("keyword", ""));
      ++unsupported[key];
    }
    if (r.contains("suspected_typos")) ++suspected_typo_schemas;
    if (r.contains("ttfm_us")) ttfm.push_back(r["ttfm_us"].get<double>());
    if (r.contains("tbm_us"))
      for (const auto& x : r["tbm_us"]) tbm.push_back(x.get<double>());
    if (details) {
      r.erase("tbm_us");
      *details << r.dump() << "\n";
    }
  }
  nlohmann::ordered_json out;
  out["tokenizer"] = args.tokenizer;
  out["whitespace"] = args.whitespace;
  out["property_order"] = args.property_order;
  out["schema_strictness"] = args.schema_strictness;
  out["classify"] = args.classify;
  out["schemas"] = results.size();
  out["passing"] = counts["pass"];
  out["passing_ratio"] = results.empty() ? 0.0 : double(counts["pass"]) / results.size();
  out["compile_error"] = counts["compile_error"];
  out["compile_error_kinds"] = unsupported;
  out["validation_error"] = counts["validation_error"];
  out["invalidation_error"] = counts["invalidation_error"];
  out["crash"] = counts["crash"] + counts["bad_file"];
  out["oom"] = counts["oom"];
  out["timeout"] = counts["timeout"];
  // Schemas with a keyword that looks like a misspelt assertion (ignored under lenient strictness).
  out["suspected_typo_schemas"] = suspected_typo_schemas;
  out["masks"] = tbm.size();
  auto pick = [](nlohmann::ordered_json s) {
    s.erase("count");
    return s;
  };
  out["tbm_us"] = pick(summarize(tbm));
  out["ttfm_us"] = pick(summarize(ttfm));
  std::cout << out.dump(2) << std::endl;
  return counts["crash"] + counts["invalidation_error"] ? 1 : 0;
}

}  // namespace

void register_maskbench_command(CLI::App& grammar, int& status) {
  auto args = std::make_shared<MaskbenchArgs>();
  auto* cmd = grammar.add_subcommand("maskbench", "Run the MaskBench protocol over a folder of schema files");
  cmd->add_option("dir", args->dir, "folder of MaskBench *.json files")->required();
  cmd->add_option("--tokenizer", args->tokenizer, "qwen3 | llama3_1 | tokenizer.json | model folder");
  cmd->add_option("--whitespace", args->whitespace, "compact (default) or flexible")->check(CLI::IsMember({"compact", "flexible"}));
  add_property_order_flag(*cmd, args->property_order, "flexible");
  add_schema_strictness_flag(*cmd, args->schema_strictness, "lenient");
  cmd->footer(
      "--schema-strictness defaults to lenient here (standard elsewhere): MaskBench judges instances with a "
      "specification validator, for which an unknown keyword, a misspelt assertion included, asserts nothing; "
      "suspected_typo_schemas counts the schemas whose typos were ignored. --property-order defaults to flexible "
      "because MaskBench feeds each instance in its own key order.");
  cmd->add_option("--timeout-s", args->timeout_s, "per-schema time limit (default 60)")->check(number_option(above(0)));
  cmd->add_option("--jobs", args->jobs, "schemas run at once, each single-threaded (default 1)")
      ->check(integer_option<int>(1));
  cmd->add_option("--limit", args->limit, "only the first N schemas (sorted by name)")->check(integer_option<size_t>(0));
  cmd->add_option("--sample", args->sample, "a seeded random sample of N schemas")->check(integer_option<size_t>(0));
  cmd->add_option("--seed", args->seed, "sample seed (default 1)")->check(integer_option<uint64_t>(0));
  cmd->add_option("--details", args->details, "write one JSON line per schema to this file");
  cmd->add_option("--memory-gib", args->memory_gib, "address-space limit per schema process (default 8)")
      ->check(integer_option<size_t>(1));
  cmd->add_option("--classify", args->classify, "lazy (default: states classified on first use) or eager")
      ->check(CLI::IsMember({"eager", "lazy"}));
  cmd->callback([args, &status] { status = run_maskbench(*args); });
}

}  // namespace ninfer::cli
