// Speculative decoding through the Engine over the deterministic fake model: at temperature 0 every
// proposer gives plain decoding's output token for token (MaskBench schemas, regexes, GBNF, choices
// and free text), the grammar proposer's forced tokens are accepted, drafts stay within the budget
// and the context, rows with and without drafts share steps, and cancellation mid-verification
// leaves the engine serving.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/engine_impl.h"
#include "runtime/fake_model.h"
#include "runtime/runtime_test_support.h"

namespace ninfer {
namespace {

std::unique_ptr<EngineImpl> make_engine(SpeculativeMethod method, int k = 4, int rows = 4, int max_context = 512) {
  EngineOptions o;
  o.max_batch_rows = rows;
  o.max_context = max_context;
  o.speculative = method;
  o.max_draft_tokens = k;
  o.draft_cost_check = false;  // these tests check what drafting does, not when it pays
  return std::make_unique<EngineImpl>(std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), rows, max_context), o);
}

std::string maskbench_schema(const std::string& name) {
  std::ifstream in(std::string(NINFER_SHARED_DATA_DIR) + "/maskbench/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str()).at("schema").dump();
}

struct Case {
  std::string name;
  std::optional<OutputConstraint> constraint;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  c.push_back({"free text", std::nullopt});
  for (const char* f : {"BFCL_java_1.json", "BFCL_simple_11.json", "Github_easy---o10008.json"})
    c.push_back({f, OutputConstraint::json_schema(maskbench_schema(f))});
  c.push_back({"regex", OutputConstraint::regex("(id-[0-9]{2}: (alpha|beta|gamma); ){2,4}")});
  c.push_back({"gbnf", OutputConstraint::grammar(R"(root ::= "{\"items\": [" item ("," item)* "]}"
item ::= "\"" [a-z]+ "\"" | [0-9]+)")});
  c.push_back({"choice", OutputConstraint::choice({"the quick brown fox", "the quick red fox", "a lazy dog"})});
  return c;
}

GenerationResult run(EngineImpl& e, const Case& c, int max_tokens, std::optional<int> k = std::nullopt) {
  PromptInput in;
  in.text = "Repeat after me: alpha beta gamma alpha beta gamma. {\"items\": [\"a\", \"b\"]}";
  RequestOptions o;
  o.constraint = c.constraint;
  o.max_tokens = max_tokens;
  o.sampling.temperature = 0;
  o.sampling.seed = 5;
  o.max_draft_tokens = k;
  return e.submit(e.prepare(in), o).wait();
}

TEST(SpeculativeEngine, GreedyOutputIsPlainDecodingsTokenForTokenWithEveryProposer) {
  auto plain = make_engine(SpeculativeMethod::None, 0);
  auto grammar = make_engine(SpeculativeMethod::Grammar);
  auto ngram = make_engine(SpeculativeMethod::NGram);
  uint64_t accepted = 0;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const GenerationResult want = run(*plain, c, 48);
    ASSERT_NE(want.finish_reason, FinishReason::Error) << want.error_message;
    for (EngineImpl* e : {grammar.get(), ngram.get()}) {
      const GenerationResult got = run(*e, c, 48);
      EXPECT_EQ(got.tokens, want.tokens);
      EXPECT_EQ(got.text, want.text);
      EXPECT_EQ(got.finish_reason, want.finish_reason);
      if (want.constraint) {
        ASSERT_TRUE(got.constraint);
        EXPECT_EQ(got.constraint->complete, want.constraint->complete);
        EXPECT_EQ(got.constraint->drafts.drafted, got.drafts.drafted);
      }
      EXPECT_LE(got.drafts.accepted, got.drafts.drafted);
      accepted += got.drafts.accepted;
    }
  }
  // Forced keys of the schemas, the regex's literals and the choice's shared prefix are drafted and
  // accepted; prompt lookup finds the repeated words.
  EXPECT_GT(grammar->stats().draft_tokens_accepted, 10u);
  EXPECT_GT(ngram->stats().draft_tokens, 0u);
  EXPECT_EQ(grammar->stats().draft_tokens_accepted + ngram->stats().draft_tokens_accepted, accepted);
  // Fewer steps than tokens: accepted drafts decode several tokens per step.
  EXPECT_LT(grammar->stats().steps, plain->stats().steps);
}

// A single choice forces every byte. The drafts are the tokenizer's encoding of the rest; where the
// (random) model prefers other tokens for the same bytes, its masked p rejects the draft and the
// output keeps its own tokenisation: the same tokens as plain decoding, in fewer steps.
TEST(SpeculativeEngine, ForcedTextIsDraftedAndTheModelKeepsItsOwnTokenisation) {
  auto plain = make_engine(SpeculativeMethod::None, 0);
  auto e = make_engine(SpeculativeMethod::Grammar, 8);
  const Case c{"choice", OutputConstraint::choice({"the quick brown fox jumps over the lazy dog"})};
  const GenerationResult want = run(*plain, c, 64);
  const GenerationResult r = run(*e, c, 64);
  ASSERT_EQ(r.finish_reason, FinishReason::Stop) << r.error_message;
  EXPECT_EQ(r.text, "the quick brown fox jumps over the lazy dog");
  EXPECT_EQ(r.tokens, want.tokens);
  EXPECT_GT(r.drafts.accepted, 0u);
  EXPECT_EQ(r.drafts.illegal, 0u);  // the encoding of forced bytes is always legal
  EXPECT_LT(r.drafts.steps, r.tokens.size());
}

TEST(SpeculativeEngine, DraftsStopAtTheTokenBudgetAndTheContextEnd) {
  const Case c{"choice", OutputConstraint::choice({"the quick brown fox jumps over the lazy dog again and again"})};
  {
    auto e = make_engine(SpeculativeMethod::Grammar, 8);
    const GenerationResult r = run(*e, c, 5);
    EXPECT_EQ(r.finish_reason, FinishReason::Length);
    EXPECT_EQ(r.tokens.size(), 5u);
  }
  {
    // A context that ends inside the forced text: the drafts shrink to fit, the request ends at the
    // context's end with the same tokens as plain decoding.
    auto plain = make_engine(SpeculativeMethod::None, 0, 1, 30);
    auto e = make_engine(SpeculativeMethod::Grammar, 8, 1, 30);
    const GenerationResult want = run(*plain, c, 64);
    const GenerationResult got = run(*e, c, 64);
    EXPECT_EQ(want.finish_reason, FinishReason::Length);
    EXPECT_EQ(got.finish_reason, FinishReason::Length);
    EXPECT_EQ(got.tokens, want.tokens);
  }
}

TEST(SpeculativeEngine, RowsWithAndWithoutDraftsShareSteps) {
  auto plain = make_engine(SpeculativeMethod::None, 0);
  auto e = make_engine(SpeculativeMethod::NGram);
  const std::vector<Case> cs = cases();
  std::vector<GenerationResult> want;
  for (size_t i = 0; i < 4; ++i) want.push_back(run(*plain, cs[i], 40));
  e->hold_admission(true);
  std::vector<RequestHandle> handles;
  for (size_t i = 0; i < 4; ++i) {
    PromptInput in;
    in.text = "Repeat after me: alpha beta gamma alpha beta gamma. {\"items\": [\"a\", \"b\"]}";
    RequestOptions o;
    o.constraint = cs[i].constraint;
    o.max_tokens = 40;
    o.sampling.temperature = 0;
    o.sampling.seed = 5;
    if (i % 2 == 1) o.max_draft_tokens = 0;  // this row never drafts
    handles.push_back(e->submit(e->prepare(in), o));
  }
  e->hold_admission(false);
  for (size_t i = 0; i < 4; ++i) {
    const GenerationResult r = handles[i].wait();
    EXPECT_EQ(r.tokens, want[i].tokens) << cs[i].name;
    if (i % 2 == 1) {
      EXPECT_EQ(r.drafts.drafted, 0u) << cs[i].name;
    }
  }
}

TEST(SpeculativeEngine, CancellationMidVerificationLeavesTheEngineServing) {
  auto e = make_engine(SpeculativeMethod::NGram, 4, 1);
  PromptInput in;
  in.text = "one two three one two three one two three";
  RequestOptions o;
  o.max_tokens = 100000;
  o.ignore_eos = true;
  RequestHandle h = e->submit(e->prepare(in), o);
  while (e->stats().steps < 5) std::this_thread::yield();
  h.cancel();
  const GenerationResult r = h.wait();
  EXPECT_EQ(r.finish_reason, FinishReason::Cancelled);
  o.max_tokens = 8;
  const GenerationResult next = e->submit(e->prepare(in), o).wait();
  EXPECT_EQ(next.finish_reason, FinishReason::Length);
  EXPECT_EQ(next.tokens.size(), 8u);
}

TEST(SpeculativeEngine, RejectsANegativeDraftLength) {
  auto e = make_engine(SpeculativeMethod::NGram);
  RequestOptions o;
  o.max_draft_tokens = -1;
  PromptInput in;
  in.text = "x";
  try {
    e->submit(e->prepare(in), o);
    FAIL() << "accepted max_draft_tokens = -1";
  } catch (const RequestError& err) {
    EXPECT_EQ(err.kind(), RequestErrorKind::InvalidRequest);
  }
}

}  // namespace
}  // namespace ninfer

namespace ninfer {
namespace {

struct DraftSetup {
  std::shared_ptr<testing::FakeModel> target, draft;
  std::unique_ptr<EngineImpl> engine;
};

DraftSetup draft_engine(DraftDistribution q, int k = 4) {
  DraftSetup s;
  s.target = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 4, 512);
  s.draft = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 4, 512);
  EngineOptions o;
  o.max_batch_rows = 4;
  o.max_context = 512;
  o.speculative = SpeculativeMethod::Draft;
  o.max_draft_tokens = k;
  o.draft_q = q;
  o.draft_cost_check = false;
  s.engine = std::make_unique<EngineImpl>(s.target, o, runtime::ModelChatTemplates{}, s.draft);
  return s;
}

// The target as its own draft: the draft's greedy tokens are the target's, so every unconstrained
// greedy draft is accepted, and the output is plain decoding's.
TEST(SpeculativeDraftModel, TheTargetAsItsOwnDraftHasEveryGreedyDraftAccepted) {
  auto plain = make_engine(SpeculativeMethod::None, 0);
  DraftSetup s = draft_engine(DraftDistribution::OneHot);
  const Case free_text{"free text", std::nullopt};
  const GenerationResult want = run(*plain, free_text, 40);
  const GenerationResult got = run(*s.engine, free_text, 40);
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_GT(got.drafts.drafted, 20u);
  EXPECT_EQ(got.drafts.accepted, got.drafts.drafted);
  // Constrained: the draft drafts under the row's grammar, so no draft is ever illegal, and the
  // output is plain's.
  uint64_t drafted = 0;
  for (const Case& c : cases()) {
    const GenerationResult w = run(*plain, c, 40);
    const GenerationResult g = run(*s.engine, c, 40);
    EXPECT_EQ(g.tokens, w.tokens) << c.name;
    EXPECT_EQ(g.drafts.illegal, 0u) << c.name;
    drafted += g.drafts.drafted;
  }
  EXPECT_GT(drafted, 50u);
}

// Sparse q at temperature 1 with the target's own top-16: q is exactly the target's p, so every draft
// drawn from it is accepted (the ratio p(d)/q(d) is 1).
TEST(SpeculativeDraftModel, SparseQEqualToPHasEveryDraftAccepted) {
  DraftSetup s = draft_engine(DraftDistribution::Sparse16);
  PromptInput in;
  in.text = "Sampled:";
  RequestOptions o;
  o.max_tokens = 30;
  o.ignore_eos = true;
  o.sampling.temperature = 1.0f;
  o.sampling.top_k = 16;
  o.sampling.seed = 9;
  const GenerationResult r = s.engine->submit(s.engine->prepare(in), o).wait();
  ASSERT_EQ(r.finish_reason, FinishReason::Length) << r.error_message;
  EXPECT_GT(r.drafts.drafted, 10u);
  EXPECT_EQ(r.drafts.accepted, r.drafts.drafted);
  // A narrower top-k on the target: p keeps 4 of q's 16 tokens, so drafts get rejected.
  o.sampling.top_k = 4;
  const GenerationResult r2 = s.engine->submit(s.engine->prepare(in), o).wait();
  EXPECT_EQ(r2.finish_reason, FinishReason::Length);
  EXPECT_LT(r2.drafts.accepted, r2.drafts.drafted);
}

// NaN logits in the draft stop its drafting; plain decoding goes on with the same output.
TEST(SpeculativeDraftModel, NonFiniteDraftLogitsStopDraftingNotDecoding) {
  auto plain = make_engine(SpeculativeMethod::None, 0);
  DraftSetup s = draft_engine(DraftDistribution::OneHot);
  s.draft->nan_at_position = 20;  // every draft position whose slot reaches length 20
  const Case free_text{"free text", std::nullopt};
  const GenerationResult want = run(*plain, free_text, 40);
  const GenerationResult got = run(*s.engine, free_text, 40);
  EXPECT_EQ(got.tokens, want.tokens);
  EXPECT_EQ(got.finish_reason, want.finish_reason);
}

TEST(SpeculativeDraftModel, AMissingOrMismatchedDraftIsRefusedAtStart) {
  auto target = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 4, 512);
  EngineOptions o;
  o.max_batch_rows = 4;
  o.speculative = SpeculativeMethod::Draft;
  EXPECT_THROW(EngineImpl(target, o), std::invalid_argument);
  auto few_slots = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), 2, 512);
  EXPECT_THROW(EngineImpl(target, o, runtime::ModelChatTemplates{}, few_slots), std::invalid_argument);
  EngineOptions bad = o;
  bad.model = "/nonexistent/target";
  bad.draft_model = "/nonexistent/draft";
  EXPECT_THROW(Engine{bad}, std::exception);  // the target fails first; its error names it
}

}  // namespace
}  // namespace ninfer

namespace ninfer {
namespace {

// When drafting pays: a forward whose time grows with every position (compute-bound) makes a draft
// position cost as much as the row it would save a step of, so the rows stop drafting; one with a
// fixed cost per pass (memory-bound) makes positions nearly free, so they keep drafting.
uint64_t verification_rows(std::chrono::microseconds per_step, std::chrono::microseconds per_position, int rows,
                           uint64_t& rows_decoded, size_t free_positions = 0, uint64_t* drafts = nullptr) {
  auto model = std::make_shared<testing::FakeModel>(testing::qwen3_tokenizer(), rows, 512);
  model->delay_per_step = per_step;
  model->delay_per_position = per_position;
  model->free_positions = free_positions;
  EngineOptions o;
  o.max_batch_rows = rows;
  o.max_context = 512;
  o.speculative = SpeculativeMethod::Grammar;
  o.max_draft_tokens = 4;
  EngineImpl e(model, o);
  const std::string text = "the quick brown fox jumps over the lazy dog and then runs far away into the woods";
  e.hold_admission(true);
  std::vector<RequestHandle> hs;
  for (int i = 0; i < rows; ++i) {
    PromptInput in;
    in.text = "Say:";
    RequestOptions ro;
    ro.constraint = OutputConstraint::choice({text});
    ro.max_tokens = 64;
    ro.sampling.temperature = 0;
    hs.push_back(e.submit(e.prepare(in), ro));
  }
  e.hold_admission(false);
  for (auto& h : hs) EXPECT_EQ(h.wait().text, text);
  rows_decoded = e.stats().rows_decoded;
  if (drafts) *drafts = e.stats().draft_tokens;
  return e.stats().draft_rows;
}

TEST(SpeculativeEngine, RowsStopDraftingWhereADraftPositionCostsAsMuchAsARow) {
  uint64_t decoded = 0;
  const uint64_t verifying = verification_rows(std::chrono::microseconds(0), std::chrono::microseconds(3000), 4, decoded);
  // The first decode step is plain and the next ones measure a draft position: after that, none.
  EXPECT_LT(verifying, decoded / 3) << verifying << " of " << decoded;
}

TEST(SpeculativeEngine, RowsKeepDraftingWhereDraftPositionsAreNearlyFree) {
  uint64_t decoded = 0;
  const uint64_t verifying = verification_rows(std::chrono::microseconds(20000), std::chrono::microseconds(50), 1, decoded);
  EXPECT_GT(verifying, decoded / 2) << verifying << " of " << decoded;
}

TEST(SpeculativeEngine, ARowDraftsWhatTheForwardGetsForFreeAndNoMore) {
  // One row; a forward of 1 or 2 positions costs the same, every further position as much again
  // (this CPU's shape, docs/speculative.md): one draft a step pays whatever its acceptance, two
  // never do (unless every draft is accepted, and then only as a tie).
  uint64_t decoded = 0, drafts = 0;
  const uint64_t verifying = verification_rows(std::chrono::microseconds(15000), std::chrono::microseconds(15000), 1,
                                               decoded, 2, &drafts);
  EXPECT_GT(verifying, decoded / 2) << verifying << " of " << decoded;
  EXPECT_LT(static_cast<double>(drafts), 1.25 * static_cast<double>(verifying)) << drafts << " drafts in " << verifying;
}

}  // namespace
}  // namespace ninfer
