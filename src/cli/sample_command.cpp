#include "cli/sample_command.h"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>

#include <nlohmann/json.hpp>

#include "cli/constraint_flags.h"
#include "cli/mask_bits.h"
#include "cli/option_checks.h"
#include "grammar/matcher.h"
#include "ninfer/constraint_error.h"
#include "text/constraint_compiler.h"
#include "tokenizer/token_domain_source.h"
#include "tokenizer/tokenizer.h"

namespace ninfer::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct SampleArgs {
  std::string schema_file;
  std::string maskbench_dir;
  size_t sample = 0;  // 0 = every schema of the folder
  uint64_t seed = 1;
  std::string tokenizer;
  std::string whitespace = "compact";
  std::string property_order = "declared";
  std::string schema_strictness = "standard";
  size_t count = 4;
  size_t max_tokens = 256;
  double eos_probability = 0.5;  // < 0: no bias, EOS is one allowed token among the others
  double timeout_s = 60;
  size_t memory_gib = 8;
  bool in_process = false;
};

struct Schema {
  std::string name;    // "file" of every output line
  std::string path;    // where it is read from
  bool maskbench = false;  // the schema is the "schema" member of a MaskBench file
};

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// FNV-1a: a hash of the file name that is the same on every platform and run.
uint64_t name_hash(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

uint64_t walk_seed(uint64_t seed, const std::string& name, size_t index) {
  return splitmix64(splitmix64(seed) ^ splitmix64(name_hash(name) + index));
}

// Strict UTF-8 (no overlong forms, no surrogates, nothing above U+10FFFF).
bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    size_t n = 0;
    uint32_t cp = 0, min = 0;
    if (c < 0x80) {
      ++i;
      continue;
    } else if ((c & 0xe0) == 0xc0) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return false;
    }
    if (i + n >= s.size()) return false;  // truncated sequence
    for (size_t k = 1; k <= n; ++k) {
      const unsigned char d = static_cast<unsigned char>(s[i + k]);
      if ((d & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    i += n + 1;
  }
  return true;
}

std::string hex_bytes(const std::string& s) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : s) out += digits[c >> 4], out += digits[c & 15];
  return out;
}

// One random walk. Each step: fill the mask, set the allowed EOS ids aside, then
//   - EOS allowed: pick EOS with probability eos_probability (or, when it is negative, treat each
//     allowed EOS id as one more candidate of the uniform pick); EOS is also taken when it is the
//     only allowed token;
//   - otherwise pick uniformly among the allowed non-EOS tokens.
// An empty mask (no token and no EOS) is a dead end: the language cannot continue.
nlohmann::ordered_json walk(const std::shared_ptr<const grammar::CompiledGrammar>& compiled,
                            const grammar::TokenDomain& domain, const std::string& name, size_t index,
                            const SampleArgs& args) {
  grammar::Matcher m(compiled);
  std::mt19937_64 rng(walk_seed(args.seed, name, index));
  auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  std::vector<uint32_t> mask(static_cast<size_t>(domain.mask_words()));
  std::string text;
  size_t tokens = 0;
  bool ended = false, dead_end = false, mismatch = false;
  while (tokens < args.max_tokens) {
    m.fill_mask(mask.data());
    int32_t eos = -1;
    uint64_t eos_allowed = 0;
    for (int32_t id : domain.eos_ids()) {
      uint32_t& word = mask[static_cast<size_t>(id >> 5)];
      const uint32_t bit = 1u << (id & 31);
      if (word & bit) {
        if (eos < 0) eos = id;
        ++eos_allowed;
        word &= ~bit;
      }
    }
    if ((eos >= 0) != m.can_end()) {
      mismatch = true;  // EOS in the mask must mean exactly "the language may end here"
      break;
    }
    const uint64_t others = count_set_bits(mask);
    bool pick_eos = false;
    if (eos >= 0) {
      if (others == 0) pick_eos = true;
      else if (args.eos_probability >= 0) pick_eos = unit() < args.eos_probability;
      else pick_eos = rng() % (others + eos_allowed) >= others;
    }
    if (pick_eos) {
      mismatch = !m.accept_token(eos);
      ended = !mismatch;
      break;
    }
    if (others == 0) {
      dead_end = ended = true;
      break;
    }
    const int32_t id = kth_set_bit(mask, rng() % others);
    if (!m.accept_token(id)) {
      mismatch = true;  // the mask allowed a token that accept_token refuses: an engine bug
      break;
    }
    text += domain.bytes(id);
    ++tokens;
  }
  nlohmann::ordered_json out;
  out["file"] = name;
  out["index"] = index;
  out["text"] = text;
  out["ended"] = ended;
  out["tokens"] = tokens;
  if (dead_end) out["dead_end"] = true;
  if (mismatch) out["mask_mismatch"] = true;
  if (!valid_utf8(text)) {
    out["invalid_utf8"] = true;
    out["text_hex"] = hex_bytes(text);
  }
  return out;
}

std::string dump_line(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

// Compiles one schema and runs its walks; `emit` receives each output line as it is produced.
template <class Emit>
void run_schema(const Schema& schema, const std::shared_ptr<const grammar::TokenDomain>& domain,
                const SampleArgs& args, Emit&& emit) {
  std::string source;
  try {
    source = read_file(schema.path);
    if (schema.maskbench) source = nlohmann::ordered_json::parse(source).at("schema").dump();
  } catch (const std::exception& e) {
    emit(dump_line({{"file", schema.name}, {"error", "bad_file"}, {"message", e.what()}}));
    return;
  }
  std::shared_ptr<const grammar::CompiledGrammar> compiled;
  try {
    const JsonFormatOptions fmt = json_format(args.whitespace, args.property_order, args.schema_strictness);
    compiled = text::compile_constraint(OutputConstraint::json_schema(source, fmt), domain).grammar;
  } catch (const ConstraintError& e) {
    nlohmann::ordered_json err;
    err["kind"] = constraint_error_kind_name(e.kind());
    if (!e.keyword().empty()) err["keyword"] = e.keyword();
    err["pointer"] = e.pointer();
    err["message"] = e.what();
    emit(dump_line({{"file", schema.name}, {"compile_error", err}}));
    return;
  } catch (const std::exception& e) {
    emit(dump_line({{"file", schema.name}, {"compile_error", {{"kind", "internal"}, {"message", e.what()}}}}));
    return;
  }
  for (size_t i = 0; i < args.count; ++i) emit(dump_line(walk(compiled, *domain, schema.name, i, args)));
}

// A persistent child process that runs schemas one at a time (warm allocator, no fork per
// schema): it reads a schema index per line and answers with that schema's output lines followed
// by an empty line. One that crashes, runs out of memory or overruns the time limit is replaced
// and only its current schema is charged.
class Worker {
 public:
  Worker(const std::vector<Schema>& schemas, const std::shared_ptr<const grammar::TokenDomain>& domain,
         const SampleArgs& args)
      : schemas_(schemas), domain_(domain), args_(args) {}
  ~Worker() { stop(); }

  // Copies the schema's lines to stdout as they arrive. Returns "ok", "timeout", "oom" or "crash".
  std::string run(size_t index, int& signal_out) {
    signal_out = 0;
    if (pid_ < 0) spawn();
    const std::string msg = std::to_string(index) + "\n";
    if (write(to_, msg.data(), msg.size()) != static_cast<ssize_t>(msg.size())) return finish_dead(signal_out);
    const auto start = Clock::now();
    while (true) {
      // Complete lines: forward them; an empty line ends the schema.
      size_t nl;
      while ((nl = buf_.find('\n')) != std::string::npos) {
        if (nl == 0) {
          buf_.erase(0, 1);
          return "ok";
        }
        std::cout.write(buf_.data(), static_cast<std::streamsize>(nl + 1));
        buf_.erase(0, nl + 1);
      }
      const double left = args_.timeout_s - std::chrono::duration<double>(Clock::now() - start).count();
      if (left <= 0) {
        stop();
        return "timeout";
      }
      pollfd p{from_, POLLIN, 0};
      poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 1000.0)));
      if (!(p.revents & (POLLIN | POLLHUP | POLLERR))) continue;
      char chunk[65536];
      const ssize_t n = read(from_, chunk, sizeof chunk);
      if (n <= 0) return finish_dead(signal_out);
      buf_.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  const std::vector<Schema>& schemas_;
  std::shared_ptr<const grammar::TokenDomain> domain_;
  const SampleArgs& args_;
  pid_t pid_ = -1;
  int to_ = -1, from_ = -1;
  std::string buf_;

  void spawn() {
    int req[2], resp[2];
    if (pipe(req) != 0 || pipe(resp) != 0) throw std::runtime_error("pipe failed");
    std::cout.flush();
    const pid_t pid = fork();
    if (pid < 0) throw std::runtime_error("fork failed");
    if (pid == 0) {
      close(req[1]);
      close(resp[0]);
      rlimit lim{args_.memory_gib << 30, args_.memory_gib << 30};
      setrlimit(RLIMIT_AS, &lim);
      auto emit = [fd = resp[1]](const std::string& line) {
        size_t off = 0;
        while (off < line.size()) {
          const ssize_t n = write(fd, line.data() + off, line.size() - off);
          if (n <= 0) _exit(1);
          off += static_cast<size_t>(n);
        }
      };
      FILE* in = fdopen(req[0], "r");
      char line[64];
      while (fgets(line, sizeof line, in)) {
        try {
          run_schema(schemas_[std::stoul(line)], domain_, args_, emit);
        } catch (const std::bad_alloc&) {
          _exit(3);
        } catch (...) {
          _exit(4);
        }
        emit("\n");
      }
      _exit(0);
    }
    close(req[0]);
    close(resp[1]);
    pid_ = pid, to_ = req[1], from_ = resp[0];
    buf_.clear();
  }

  int stop() {
    if (pid_ < 0) return 0;
    kill(pid_, SIGKILL);
    close(to_);
    close(from_);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    return st;
  }

  // The child died (or closed its pipe) in the middle of a schema: forward what it wrote.
  std::string finish_dead(int& signal_out) {
    if (!buf_.empty() && buf_.back() == '\n') std::cout << buf_;
    buf_.clear();
    close(to_);
    close(from_);
    int st = 0;
    waitpid(pid_, &st, 0);
    pid_ = -1;
    signal_out = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 3 ? "oom" : "crash";
  }
};

std::vector<Schema> list_schemas(const SampleArgs& args) {
  std::vector<Schema> out;
  if (!args.schema_file.empty()) {
    out.push_back({args.schema_file, args.schema_file, false});
    return out;
  }
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(args.maskbench_dir))
    if (e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (args.sample && args.sample < files.size()) {  // the same sample as `grammar maskbench --sample N --seed S`
    std::mt19937_64 rng(args.seed);
    std::shuffle(files.begin(), files.end(), rng);
    files.resize(args.sample);
    std::sort(files.begin(), files.end());
  }
  for (const auto& f : files) out.push_back({fs::path(f).filename().string(), f, true});
  return out;
}

int run_sample(const SampleArgs& args) {
  if (args.schema_file.empty() == args.maskbench_dir.empty()) {
    std::cerr << "give exactly one of --json-schema-file and --maskbench\n";
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  const std::vector<Schema> schemas = list_schemas(args);
  auto tok = tokenizer::Tokenizer::load(args.tokenizer);
  auto domain = tokenizer::build_token_domain(*tok);
  if (domain->eos_ids().empty()) {
    std::cerr << "the tokenizer has no EOS id\n";
    return 2;
  }
  size_t failures = 0;
  Worker worker(schemas, domain, args);
  for (size_t i = 0; i < schemas.size(); ++i) {
    const Schema& schema = schemas[i];
    if (args.in_process) {
      run_schema(schema, domain, args, [](const std::string& line) { std::cout << line; });
    } else {
      int sig = 0;
      const std::string result = worker.run(i, sig);
      if (result != "ok") {
        ++failures;
        nlohmann::ordered_json line{{"file", schema.name}, {"error", result}};
        if (sig) line["signal"] = sig;
        std::cout << dump_line(line);
      }
    }
    std::cout.flush();
  }
  if (failures) std::cerr << failures << " schema(s) timed out, ran out of memory or crashed\n";
  return 0;
}

}  // namespace

void register_sample_command(CLI::App& grammar, int& status) {
  auto args = std::make_shared<SampleArgs>();
  auto* cmd = grammar.add_subcommand(
      "sample", "Random walks through the masks of JSON Schemas; one JSON line per generated instance");
  auto* file = cmd->add_option("--json-schema-file", args->schema_file, "JSON Schema file");
  auto* dir = cmd->add_option("--maskbench", args->maskbench_dir, "folder of MaskBench *.json files");
  file->excludes(dir);
  cmd->add_option("--sample", args->sample, "MaskBench: a seeded random sample of N schemas (default: all)")
      ->check(integer_option<size_t>(0))
      ->needs(dir);
  cmd->add_option("--seed", args->seed, "seed of the sample and of the walks (default 1)")
      ->check(integer_option<uint64_t>(0));
  cmd->add_option("--tokenizer", args->tokenizer, "qwen3 | llama3_1 | tokenizer.json | model folder")->required();
  cmd->add_option("--whitespace", args->whitespace, "compact (default) or flexible")
      ->check(CLI::IsMember({"compact", "flexible"}));
  add_property_order_flag(*cmd, args->property_order);
  add_schema_strictness_flag(*cmd, args->schema_strictness);
  cmd->add_option("--count", args->count, "instances per schema (default 4)")->check(integer_option<size_t>(1));
  cmd->add_option("--max-tokens", args->max_tokens, "token cap per instance, EOS not counted (default 256)")
      ->check(integer_option<size_t>(1));
  cmd->add_option("--eos-probability", args->eos_probability,
                  "chance of picking EOS when it is allowed (default 0.5; negative: EOS is one more uniform candidate)")
      ->check(number_option(at_most(1)));
  cmd->add_option("--timeout-s", args->timeout_s, "time limit per schema: compile and walks (default 60)")
      ->check(number_option(above(0)));
  cmd->add_option("--memory-gib", args->memory_gib, "address-space limit per schema process (default 8)")
      ->check(integer_option<size_t>(1));
  cmd->add_flag("--in-process", args->in_process, "no child process per schema (debugging)");
  cmd->callback([args, &status] { status = run_sample(*args); });
}

}  // namespace ninfer::cli
