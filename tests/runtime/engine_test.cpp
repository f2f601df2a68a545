// Engine request lifecycle over a deterministic fake model: constrained outputs follow their own
// grammar in shared batches, a dead end fails alone, submit-time rejections are typed, and the
// outstanding reservation, cancellation and pending deadline behave as the contract says.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <optional>
#include <regex>
#include <thread>

#include "ninfer/constraint_error.h"
#include "runtime/engine_impl.h"
#include "runtime/fake_model.h"
#include "runtime/runtime_test_support.h"

namespace ninfer {
namespace {

std::unique_ptr<EngineImpl> make_engine(int rows = 4, int max_context = 256, int max_outstanding = 64) {
  EngineOptions o;
  o.max_batch_rows = rows;
  o.max_context = max_context;
  o.max_outstanding = max_outstanding;
  return std::make_unique<EngineImpl>(
      std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), rows, max_context), o);
}

RequestOptions constrained(OutputConstraint c, int max_tokens = 64, uint64_t seed = 1) {
  RequestOptions r;
  r.constraint = std::move(c);
  r.max_tokens = max_tokens;
  r.sampling.seed = seed;
  return r;
}

PreparedPrompt prompt(EngineImpl& e, const std::string& text = "Answer:") {
  PromptInput in;
  in.text = text;
  return e.prepare(in);
}

TEST(Engine, ChoiceRegexAndSchemaOutputsFollowTheirConstraints) {
  auto e = make_engine();
  const std::vector<std::string> colours = {"red", "green", "blue"};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    GenerationResult r = e->submit(prompt(*e), constrained(OutputConstraint::choice(colours), 16, seed)).wait();
    ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.error_message;
    EXPECT_NE(std::find(colours.begin(), colours.end(), r.text), colours.end()) << r.text;
    ASSERT_TRUE(r.constraint);
    EXPECT_TRUE(r.constraint->complete);
    EXPECT_TRUE(r.constraint->terminated);
    EXPECT_EQ(r.constraint->branch, "content");
  }
  GenerationResult r = e->submit(prompt(*e), constrained(OutputConstraint::regex("[0-9]{3}-[a-z]{2}"), 32)).wait();
  ASSERT_EQ(r.finish_reason, FinishReason::Stop);
  EXPECT_TRUE(std::regex_match(r.text, std::regex("[0-9]{3}-[a-z]{2}"))) << r.text;

  const std::string schema =
      R"({"type":"object","properties":{"ok":{"type":"boolean"},"n":{"enum":[1,2,3]}},"required":["ok","n"],"additionalProperties":false})";
  r = e->submit(prompt(*e), constrained(OutputConstraint::json_schema(schema), 64)).wait();
  ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.text;
  const auto doc = nlohmann::json::parse(r.text);
  EXPECT_TRUE(doc.at("ok").is_boolean());
  EXPECT_TRUE(doc.at("n") == 1 || doc.at("n") == 2 || doc.at("n") == 3);
  EXPECT_EQ(e->stats().cache_builds, 3u);
}

TEST(Engine, ConcurrentRequestsInOneBatchEachFollowTheirOwnGrammar) {
  auto e = make_engine(4);
  e->hold_admission(true);
  RequestHandle a = e->submit(prompt(*e), constrained(OutputConstraint::regex("[a-c]{12}"), 40, 3));
  RequestHandle b = e->submit(prompt(*e), constrained(OutputConstraint::regex("[x-z0-9]{12}"), 40, 3));
  RequestOptions free_opts;
  free_opts.max_tokens = 12;
  free_opts.sampling.seed = 3;
  RequestHandle c = e->submit(prompt(*e), free_opts);
  e->hold_admission(false);
  const GenerationResult ra = a.wait(), rb = b.wait(), rc = c.wait();
  EXPECT_TRUE(std::regex_match(ra.text, std::regex("[a-c]{12}"))) << ra.text;
  EXPECT_TRUE(std::regex_match(rb.text, std::regex("[x-z0-9]{12}"))) << rb.text;
  EXPECT_FALSE(rc.constraint.has_value());
  const EngineStats st = e->stats();
  EXPECT_GT(st.rows_decoded, st.steps);  // rows shared batches
  EXPECT_GE(st.provider_calls, std::max(ra.tokens.size(), rb.tokens.size()));
  EXPECT_EQ(st.constrained_rows, ra.tokens.size() + rb.tokens.size());
}

TEST(Engine, UnconstrainedBatchesNeverCallTheMaskProvider) {
  auto e = make_engine(2);
  RequestOptions o;
  o.max_tokens = 8;
  o.ignore_eos = true;
  o.sampling.seed = 5;
  GenerationResult r = e->submit(prompt(*e), o).wait();
  EXPECT_EQ(r.finish_reason, FinishReason::Length);
  EXPECT_EQ(r.usage.completion_tokens, 8);
  EXPECT_EQ(e->stats().provider_calls, 0u);
  EXPECT_EQ(e->stats().constrained_rows, 0u);
}

TEST(Engine, SameSeedSameOutputAndStreamEqualsResult) {
  auto e = make_engine(2);
  RequestOptions o;
  o.max_tokens = 20;
  o.ignore_eos = true;
  o.sampling.seed = 99;
  o.sampling.temperature = 0.8f;
  o.sampling.top_p = 0.9f;
  const GenerationResult first = e->submit(prompt(*e), o).wait();
  RequestHandle h = e->submit(prompt(*e), o);
  std::string streamed;
  std::vector<int32_t> tokens;
  while (auto ev = h.next()) {
    streamed += ev->text;
    tokens.insert(tokens.end(), ev->tokens.begin(), ev->tokens.end());
    if (ev->done) break;
  }
  const GenerationResult second = h.wait();
  EXPECT_EQ(first.tokens, second.tokens);
  EXPECT_EQ(streamed, second.text);
  EXPECT_EQ(tokens, second.tokens);
  EXPECT_EQ(second.seed, 99u);
}

TEST(Engine, ADeadEndFailsAloneWhileTheBatchGoesOn) {
  auto e = make_engine(4);
  // After "a" the grammar needs an EOS token as a grammar token: no legal token exists there.
  const int32_t eos = testing::qwen3_domain()->eos_ids().front();
  const std::string dead = "root ::= \"a\" Token(" + std::to_string(eos) + ") \"b\"\n";
  e->hold_admission(true);
  RequestHandle bad = e->submit(prompt(*e), constrained(OutputConstraint::grammar(dead), 16));
  RequestHandle good = e->submit(prompt(*e), constrained(OutputConstraint::regex("[0-9]{6}"), 16));
  e->hold_admission(false);
  const GenerationResult rb = bad.wait(), rg = good.wait();
  EXPECT_EQ(rb.finish_reason, FinishReason::Error);
  ASSERT_TRUE(rb.error);
  EXPECT_EQ(*rb.error, RequestErrorKind::ConstraintDeadEnd) << rb.error_message;
  // The message says what the constraint expected there and which rule was open.
  EXPECT_NE(rb.error_message.find("expected a special token at root"), std::string::npos) << rb.error_message;
  EXPECT_EQ(rb.text, "a");
  ASSERT_EQ(rg.finish_reason, FinishReason::Stop);
  EXPECT_TRUE(std::regex_match(rg.text, std::regex("[0-9]{6}")));
}

TEST(Engine, MaxTokensReportsCompletenessHonestly) {
  auto e = make_engine(2);
  GenerationResult r = e->submit(prompt(*e), constrained(OutputConstraint::regex("[a-z]{40}"), 5)).wait();
  EXPECT_EQ(r.finish_reason, FinishReason::Length);
  ASSERT_TRUE(r.constraint);
  EXPECT_FALSE(r.constraint->complete);
  EXPECT_FALSE(r.constraint->terminated);
  // A language complete at the budget: length, complete, not terminated.
  r = e->submit(prompt(*e), constrained(OutputConstraint::regex("[a-z]{1,3}[0-9]*"), 3)).wait();
  if (r.finish_reason == FinishReason::Length && std::regex_match(r.text, std::regex("[a-z]{1,3}[0-9]*"))) {
    EXPECT_TRUE(r.constraint->complete);
    EXPECT_FALSE(r.constraint->terminated);
  }
}

TEST(Engine, SubmitRejectionsAreTypedAndReleaseTheReservation) {
  auto e = make_engine(2, 64, /*max_outstanding=*/2);
  EXPECT_THROW(e->submit(prompt(*e), constrained(OutputConstraint::json_schema("{\"type\":\"string\",\"format\":\"byte\"}"))),
               ConstraintError);
  EXPECT_THROW(e->submit(prompt(*e), constrained(OutputConstraint::regex("(a"))), ConstraintError);
  EXPECT_THROW(e->submit(prompt(*e), constrained(OutputConstraint::choice({}))), ConstraintError);
  const auto kind_of = [&](PreparedPrompt p, RequestOptions o) {
    try {
      e->submit(std::move(p), std::move(o));
    } catch (const RequestError& err) {
      return err.kind();
    }
    return RequestErrorKind::Internal;
  };
  RequestOptions o;
  o.max_tokens = 0;
  EXPECT_EQ(kind_of(prompt(*e), o), RequestErrorKind::InvalidRequest);
  o.max_tokens = 4;
  o.sampling.temperature = std::nanf("");
  EXPECT_EQ(kind_of(prompt(*e), o), RequestErrorKind::InvalidRequest);
  o.sampling.temperature = 1;
  o.ignore_eos = true;
  o.constraint = OutputConstraint::json_object();
  EXPECT_EQ(kind_of(prompt(*e), o), RequestErrorKind::ConflictingOptions);
  o = RequestOptions{};
  PreparedPrompt longp;
  longp.tokens.assign(64, 11);
  EXPECT_EQ(kind_of(longp, o), RequestErrorKind::PromptTooLong);
  PreparedPrompt badtok;
  badtok.tokens = {-1};
  EXPECT_EQ(kind_of(badtok, o), RequestErrorKind::InvalidRequest);
  // Two outstanding allowed: hold admission, fill them, the third is Overloaded; all failures above
  // released their reservations.
  e->hold_admission(true);
  o.max_tokens = 2;
  RequestHandle h1 = e->submit(prompt(*e), o);
  RequestHandle h2 = e->submit(prompt(*e), o);
  EXPECT_EQ(kind_of(prompt(*e), o), RequestErrorKind::Overloaded);
  e->hold_admission(false);
  h1.wait();
  h2.wait();
  EXPECT_NO_THROW(e->submit(prompt(*e), o).wait());
}

TEST(Engine, RequestsSubmittedTogetherStartInOneStepOrNoneIsQueued) {
  auto e = make_engine(4, 256, /*max_outstanding=*/4);
  std::vector<PreparedPrompt> prompts;
  std::vector<RequestOptions> options;
  for (int i = 0; i < 4; ++i) {
    prompts.push_back(prompt(*e, "Answer " + std::to_string(i) + ":"));
    RequestOptions o;
    o.max_tokens = 6;
    o.ignore_eos = true;
    o.sampling.seed = static_cast<uint64_t>(i) + 1;
    options.push_back(o);
  }
  const uint64_t steps0 = e->stats().steps;
  std::vector<RequestHandle> handles = e->submit_together(prompts, options);
  ASSERT_EQ(handles.size(), 4u);
  for (RequestHandle& h : handles) EXPECT_EQ(h.wait().usage.completion_tokens, 6);
  // One step prefills the four prompts and samples their first tokens; five more decode all four.
  EXPECT_EQ(e->stats().steps - steps0, 6u);

  // A rejection anywhere queues none of them, names its request and releases every reservation
  // (max_outstanding is 4: the four fit again afterwards).
  const auto rejection = [&](std::vector<PreparedPrompt> p, std::vector<RequestOptions> o) {
    try {
      e->submit_together(std::move(p), std::move(o));
    } catch (const RequestError& err) {
      return std::pair(err.kind(), err.param());
    }
    return std::pair(RequestErrorKind::Internal, std::string("none"));
  };
  std::vector<PreparedPrompt> empty_third = prompts;
  empty_third[2].tokens.clear();
  EXPECT_EQ(rejection(empty_third, options), std::pair(RequestErrorKind::InvalidRequest, std::string("requests[2]")));
  std::vector<PreparedPrompt> five = prompts;
  std::vector<RequestOptions> five_options = options;
  five.push_back(prompts[0]);
  five_options.push_back(options[0]);
  EXPECT_EQ(rejection(five, five_options), std::pair(RequestErrorKind::Overloaded, std::string("requests[4]")));
  EXPECT_EQ(rejection(prompts, five_options).first, RequestErrorKind::InvalidRequest);  // 4 prompts, 5 option sets
  EXPECT_EQ(e->stats().steps - steps0, 6u);
  handles = e->submit_together(prompts, options);
  for (RequestHandle& h : handles) EXPECT_EQ(h.wait().usage.completion_tokens, 6);
  EXPECT_EQ(e->stats().steps - steps0, 12u);
}

TEST(Engine, CancellationAndPendingDeadline) {
  // Room for a long run: with 256 positions the running request could reach the end of its context
  // (finishing with Length) before the cancel below, at ~0.3 ms a step.
  auto e = make_engine(1, 16384);
  RequestOptions longo;
  longo.max_tokens = 100000;
  longo.ignore_eos = true;
  PreparedPrompt p = prompt(*e);
  RequestHandle running = e->submit(p, longo);
  RequestOptions waiting_opts;
  waiting_opts.max_tokens = 4;
  waiting_opts.pending_deadline = std::chrono::milliseconds(30);
  RequestHandle waiting = e->submit(p, waiting_opts);  // the only row is busy
  std::this_thread::sleep_for(std::chrono::milliseconds(80));
  const GenerationResult rw = waiting.wait();
  EXPECT_EQ(rw.finish_reason, FinishReason::Error);
  EXPECT_EQ(rw.error, RequestErrorKind::DeadlineExceeded);
  running.cancel();
  const GenerationResult rr = running.wait();
  EXPECT_EQ(rr.finish_reason, FinishReason::Cancelled);
  EXPECT_GT(rr.usage.completion_tokens, 0);
  EXPECT_EQ(e->stats().cancelled, 1u);
  // The row is free again.
  EXPECT_EQ(e->submit(p, waiting_opts).wait().finish_reason, FinishReason::Length);
}

TEST(Engine, NonFiniteLogitsFailTheRequest) {
  EngineOptions o;
  o.max_batch_rows = 1;
  auto model = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 1, 256);
  model->nan_at_position = 6;
  EngineImpl e(model, o);
  RequestOptions ro;
  ro.max_tokens = 20;
  ro.ignore_eos = true;
  PromptInput in;
  in.tokens = {1, 2, 3};
  const GenerationResult r = e.submit(e.prepare(in), ro).wait();
  EXPECT_EQ(r.finish_reason, FinishReason::Error);
  EXPECT_EQ(r.error, RequestErrorKind::NonFiniteLogits);
  EXPECT_EQ(r.usage.completion_tokens, 3);
}

TEST(Engine, PhaseTimingsAreReportedWhenAsked) {
  auto e = make_engine(1);
  RequestOptions o = constrained(OutputConstraint::json_object(), 24);
  o.phase_timings = true;
  const GenerationResult r = e->submit(prompt(*e), o).wait();
  ASSERT_TRUE(r.constraint);
  EXPECT_TRUE(r.constraint->timed);
  EXPECT_GT(r.constraint->prepare_cpu_s, 0.0);
  EXPECT_GT(r.constraint->mask_cpu_s, 0.0);
  EXPECT_GT(r.constraint->masked_positions, 0u);
  EXPECT_EQ(r.constraint->masked_positions, static_cast<uint64_t>(r.usage.completion_tokens));
}

TEST(Engine, ChatPromptIsPlainChatMl) {
  auto e = make_engine(1);
  PromptInput in;
  in.chat = true;
  in.system = "Be brief.";
  in.text = "Hi";
  const PreparedPrompt p = e->prepare(in);
  EXPECT_EQ(p.rendered, "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(p.tokens.front(), *testing::qwen3_tokenizer()->token_id("<|im_start|>"));
}

// The keywords a schema's grammar does not enforce reach the request's report, on a cache hit
// too; a typo and, under strict strictness, a vendor keyword are rejected at submit; under lenient
// strictness a typo is ignored, listed and reported as a suspected typo.
TEST(Engine, TheReportListsIgnoredSchemaKeywordsOnBuildAndHit) {
  auto e = make_engine();
  const std::string schema =
      R"({"type":"object","properties":{"ok":{"type":"boolean","x-label":"OK"}},"required":["ok"],"additionalProperties":false,"javaType":"Flag"})";
  for (CacheOutcome expected : {CacheOutcome::Built, CacheOutcome::Hit}) {
    GenerationResult r = e->submit(prompt(*e), constrained(OutputConstraint::json_schema(schema), 32)).wait();
    ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.error_message;
    ASSERT_TRUE(r.constraint);
    EXPECT_EQ(r.constraint->cache, expected);
    EXPECT_EQ(r.constraint->ignored_keywords, (std::vector<std::string>{"/properties/ok/x-label", "/javaType"}));
  }
  GenerationResult r = e->submit(prompt(*e), constrained(OutputConstraint::regex("[a-z]{2}"), 8)).wait();
  ASSERT_TRUE(r.constraint);
  EXPECT_TRUE(r.constraint->ignored_keywords.empty());

  const auto error_of = [&](const std::string& s, SchemaStrictness strictness) -> std::optional<ConstraintError> {
    JsonFormatOptions f;
    f.schema_strictness = strictness;
    try {
      e->submit(prompt(*e), constrained(OutputConstraint::json_schema(s, f), 8));
    } catch (const ConstraintError& err) {
      return err;
    }
    return std::nullopt;
  };
  const auto typo = error_of(R"({"type":"string","maxLenght":3})", SchemaStrictness::Standard);
  ASSERT_TRUE(typo);
  EXPECT_EQ(typo->kind(), ConstraintErrorKind::InvalidJsonSchema);
  EXPECT_EQ(typo->pointer(), "/maxLenght");
  const auto strict = error_of(schema, SchemaStrictness::Strict);
  ASSERT_TRUE(strict);
  EXPECT_EQ(strict->kind(), ConstraintErrorKind::UnsupportedSchema);
  EXPECT_EQ(strict->pointer(), "/properties/ok/x-label");
  // Lenient strictness ignores the typo, lists it, and reports the keyword it resembles.
  JsonFormatOptions lenient;
  lenient.schema_strictness = SchemaStrictness::Lenient;
  const std::string typo_schema = R"({"type":"boolean","enume":[true]})";
  r = e->submit(prompt(*e), constrained(OutputConstraint::json_schema(typo_schema, lenient), 32)).wait();
  ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.error_message;
  ASSERT_TRUE(r.constraint);
  EXPECT_EQ(r.constraint->ignored_keywords, std::vector<std::string>{"/enume"});
  EXPECT_EQ(r.constraint->suspected_typos, (std::vector<SuspectedTypo>{{"/enume", "enum"}}));
  EXPECT_EQ(typo->keyword(), "maxLenght");
}

}  // namespace
}  // namespace ninfer
