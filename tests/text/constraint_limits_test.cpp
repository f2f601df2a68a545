// Pathological constraints end as typed LimitExceeded errors naming their limit, quickly and in
// bounded memory: each compile runs in a forked child under an address-space limit (2 GiB) and
// a CPU-time limit, so a stack overflow, an allocation storm or a hang shows up as a crash of
// the child instead of taking the test binary down. Deep-but-legal inputs still compile.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "json_schema_test_support.h"
#include "ninfer/constraint_error.h"
#include "text/constraint_compiler.h"
#include "text/json_schema_compiler.h"

namespace ninfer::text {
namespace {

using testing::byte_domain;

// AddressSanitizer reserves terabytes of shadow address space up front, so an address-space limit
// only makes its own mappings fail: under ASan the children run with the CPU limit alone (the
// Release build checks memory).
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kLimitAddressSpace = false;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kLimitAddressSpace = false;
#else
constexpr bool kLimitAddressSpace = true;
#endif
#else
constexpr bool kLimitAddressSpace = true;
#endif
constexpr rlim_t kAddressSpace = rlim_t(2) << 30;
constexpr rlim_t kCpuSeconds = 20;

struct Outcome {
  std::string result;  // "ok " (no limit), "<kind> <limit>", or "crash: ..." when the child died
  double seconds = 0;
};

// Compiles `constraint` in a forked child under the limits; reports what the child saw.
Outcome compile_limited(const std::function<OutputConstraint()>& make) {
  int fds[2];
  if (pipe(fds) != 0) return {"crash: pipe", 0};
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    rlimit as{kAddressSpace, kAddressSpace}, cpu{kCpuSeconds, kCpuSeconds};
    if (kLimitAddressSpace) setrlimit(RLIMIT_AS, &as);
    setrlimit(RLIMIT_CPU, &cpu);
    std::string out;
    try {
      compile_constraint(make(), byte_domain());
      out = "ok ";
    } catch (const ConstraintError& e) {
      out = std::string(constraint_error_kind_name(e.kind())) + " " + e.limit();
    } catch (const std::bad_alloc&) {
      out = "crash: bad_alloc";
    } catch (const std::exception& e) {
      out = std::string("crash: ") + e.what();
    }
    (void)!write(fds[1], out.data(), out.size());
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[256];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFSIGNALED(status)) return {"crash: signal " + std::to_string(WTERMSIG(status)), s};
  return {got, s};
}

std::string repeat(const std::string& s, size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (size_t i = 0; i < n; ++i) out += s;
  return out;
}

OutputConstraint schema(std::string text) { return OutputConstraint::json_schema(std::move(text)); }

std::string nested_properties(size_t n) {
  return repeat(R"({"type":"object","properties":{"a":)", n) + R"({"type":"string"})" + repeat("}}", n);
}
std::string nested_items(size_t n) { return repeat(R"({"type":"array","items":)", n) + R"({"type":"string"})" + repeat("}", n); }
std::string nested_any_of(size_t n) { return repeat(R"({"anyOf":[{"type":"null"},)", n) + R"({"type":"string"})" + repeat("]}", n); }
std::string nested_all_of(size_t n) { return repeat(R"({"allOf":[)", n) + R"({"type":"string"})" + repeat("]}", n); }
// A chain of definitions, each one level below the previous: flat text, deep sub-schemas.
std::string ref_chain(size_t n, const std::string& link) {
  std::string defs;
  for (size_t i = 0; i < n; ++i) {
    std::string body = link;
    body.replace(body.find("NEXT"), 4, "#/$defs/d" + std::to_string(i + 1));
    defs += "\"d" + std::to_string(i) + "\":" + body + ",";
  }
  defs += "\"d" + std::to_string(n) + "\":{\"type\":\"string\"}";
  return R"({"$ref":"#/$defs/d0","$defs":{)" + defs + "}}";
}
std::string string_enum(size_t n) {
  std::string s = R"({"enum":[)";
  for (size_t i = 0; i < n; ++i) s += (i ? ",\"v" : "\"v") + std::to_string(i * 7919 % 1000003) + "\"";
  return s + "]}";
}

// Unrelated identifiers share no suffixes: about ten automaton states per value.
std::string id_enum(size_t n) {
  std::string s = R"({"enum":[)";
  char buf[32];
  for (size_t i = 0; i < n; ++i) {
    snprintf(buf, sizeof buf, "%s\"id-%zx-%zx\"", i ? "," : "", i * 2654435761u % 4294967291u, i * 40503u % 65521u);
    s += buf;
  }
  return s + "]}";
}

struct Case {
  const char* name;
  std::function<OutputConstraint()> make;
  const char* expected;  // "<kind> <limit>"
};

TEST(ConstraintLimits, PathologicalInputsEndAsTypedLimitErrorsUnderMemoryAndTimeLimits) {
  const std::vector<Case> cases = {
      {"5000 nested properties", [] { return schema(nested_properties(5000)); }, "LimitExceeded schema.max_document_depth"},
      {"5000 nested items", [] { return schema(nested_items(5000)); }, "LimitExceeded schema.max_document_depth"},
      {"5000 nested anyOf", [] { return schema(nested_any_of(5000)); }, "LimitExceeded schema.max_document_depth"},
      {"5000 nested allOf", [] { return schema(nested_all_of(5000)); }, "LimitExceeded schema.max_document_depth"},
      {"5000 $ref levels of properties",
       [] { return schema(ref_chain(5000, R"({"type":"object","properties":{"a":{"$ref":"NEXT"}}})")); },
       "LimitExceeded schema.max_nesting"},
      {"5000 $ref levels of items", [] { return schema(ref_chain(5000, R"({"type":"array","items":{"$ref":"NEXT"}})")); },
       "LimitExceeded schema.max_nesting"},
      {"5000 $ref levels of anyOf",
       [] { return schema(ref_chain(5000, R"({"anyOf":[{"type":"null"},{"$ref":"NEXT"}]})")); },
       "LimitExceeded schema.max_depth"},
      {"schema text above 8 MiB",
       [] { return schema(R"({"type":"object","properties":{)" + repeat(R"("p":{"type":"integer"},)", 400000) + R"("q":{}}})"); },
       "LimitExceeded schema.max_bytes"},
      {"enum of 1,000,000 strings", [] { return schema(string_enum(1000000)); }, "LimitExceeded schema.max_bytes"},
      {"enum of 100,000 unrelated identifiers", [] { return schema(id_enum(100000)); },
       "LimitExceeded automaton.max_dfa_states"},
      {"GBNF nested 100,000 parentheses",
       [] { return OutputConstraint::grammar("root ::= " + repeat("(", 100000) + "\"a\"" + repeat(")", 100000)); },
       "LimitExceeded gbnf.max_nesting"},
      {"GBNF source above 16 MiB",
       [] { return OutputConstraint::grammar("root ::= " + repeat("\"a\" ", 4200000)); }, "LimitExceeded gbnf.max_source_bytes"},
      {"GBNF of 1.5 million expressions",
       [] { return OutputConstraint::grammar("root ::= " + repeat("\"a\" ", 1500000)); }, "LimitExceeded gbnf.max_expressions"},
      // Nested counted repetition is outlined into a rule called 1000 times: it compiles small.
      {"GBNF nested counted repetition", [] { return OutputConstraint::grammar(R"(root ::= ("ab"{1000}){1000})"); }, "ok "},
      // "the 21st symbol from the end is an a": 2^21 deterministic states.
      {"GBNF exponential determinisation", [] { return OutputConstraint::grammar(R"(root ::= [ab]* "a" [ab]{20})"); },
       "LimitExceeded automaton.max_dfa_states"},
      {"regex exponential determinisation", [] { return OutputConstraint::regex("[ab]*a[ab]{20}"); },
       "LimitExceeded text.max_states"},
      {"regex repetition blow-up", [] { return OutputConstraint::regex("(a{1000}){1000}"); }, "LimitExceeded text.max_states"},
      {"2,000,000 choices", [] {
         std::vector<std::string> options;
         for (int i = 0; i < 2000000; ++i) options.push_back(std::to_string(i));
         return OutputConstraint::choice(options);
       },
       "LimitExceeded choice.max_options"},
  };
  double total = 0;
  for (const auto& c : cases) {
    const Outcome o = compile_limited(c.make);
    total += o.seconds;
    EXPECT_EQ(o.result, c.expected) << c.name << " (" << o.seconds << " s)";
    std::fprintf(stderr, "[limits] %-40s %7.3f s  %s\n", c.name, o.seconds, o.result.c_str());
  }
  RecordProperty("total_seconds", std::to_string(total));
}

// Deep regex groups are parsed iteratively: they compile (to the language of their one atom)
// instead of nesting native calls.
TEST(ConstraintLimits, DeepRegexGroupsCompileWithoutRecursion) {
  const Outcome o = compile_limited([] { return OutputConstraint::regex(repeat("(", 100000) + "a" + repeat(")", 100000)); });
  EXPECT_EQ(o.result, "ok ") << o.seconds << " s";
}

TEST(ConstraintLimits, DeepButLegalInputsStillCompile) {
  const std::vector<std::pair<const char*, std::function<OutputConstraint()>>> cases = {
      {"50 nested properties", [] { return schema(nested_properties(50)); }},
      {"50 nested items", [] { return schema(nested_items(50)); }},
      {"50 nested anyOf", [] { return schema(nested_any_of(50)); }},
      {"50 nested allOf", [] { return schema(nested_all_of(50)); }},
      {"100 $ref levels of properties",
       [] { return schema(ref_chain(100, R"({"type":"object","properties":{"a":{"$ref":"NEXT"}}})")); }},
      {"enum of 100,000 strings", [] { return schema(string_enum(100000)); }},
      {"GBNF nested 100 parentheses",
       [] { return OutputConstraint::grammar("root ::= " + repeat("(", 100) + "\"a\"" + repeat(")", 100)); }},
      {"regex nested 50 groups", [] { return OutputConstraint::regex(repeat("(", 50) + "a|b" + repeat(")", 50)); }},
      {"100,000 choices", [] {
         std::vector<std::string> options;
         for (int i = 0; i < 100000; ++i) options.push_back("option " + std::to_string(i));
         return OutputConstraint::choice(options);
       }},
  };
  for (const auto& [name, make] : cases) {
    const Outcome o = compile_limited(make);
    EXPECT_EQ(o.result, "ok ") << name << " (" << o.seconds << " s)";
  }
}

TEST(ConstraintLimits, ALimitErrorNamesItsLimitAndValue) {
  try {
    compile_constraint(schema(nested_properties(300)), byte_domain());
    FAIL() << "300 nested properties compiled";
  } catch (const ConstraintError& e) {
    EXPECT_EQ(e.kind(), ConstraintErrorKind::LimitExceeded);
    EXPECT_EQ(e.limit(), "schema.max_document_depth");
    EXPECT_EQ(e.limit_value(), SchemaLimits{}.max_document_depth);
    EXPECT_STREQ(constraint_error_kind_name(e.kind()), "LimitExceeded");
    EXPECT_NE(std::string(e.what()).find("schema.max_document_depth"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ninfer::text
