#include "grammar/compile_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "test_support.h"

namespace ninfer::grammar {
namespace {

using testing::make_domain;

std::function<Grammar()> gbnf(std::string src, std::atomic<int>* calls = nullptr,
                              std::chrono::milliseconds delay = std::chrono::milliseconds(0)) {
  return [src, calls, delay] {
    if (calls) ++*calls;
    if (delay.count()) std::this_thread::sleep_for(delay);
    return parse_gbnf(src);
  };
}

TEST(CompileCache, HitAfterBuild) {
  CompileCache cache(make_domain({"a", "b", "ab"}));
  std::atomic<int> calls{0};
  auto r1 = cache.get("k", gbnf("root ::= \"a\"+", &calls));
  auto r2 = cache.get("k", gbnf("root ::= \"a\"+", &calls));
  EXPECT_EQ(r1.source, CompileCache::Source::Built);
  EXPECT_EQ(r2.source, CompileCache::Source::Hit);
  EXPECT_EQ(r1.grammar.get(), r2.grammar.get());
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(cache.stats().hits, 1u);
}

TEST(CompileCache, ConcurrentColdBuildsOfOneKeyShareOneResult) {
  CompileCache cache(make_domain({"a", "b"}));
  std::atomic<int> calls{0};
  std::vector<std::thread> threads;
  std::vector<CompileCache::Result> results(8);
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] { results[i] = cache.get("same", gbnf("root ::= [ab]*", &calls, std::chrono::milliseconds(50))); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(calls.load(), 1);
  int built = 0;
  for (const auto& r : results) {
    EXPECT_EQ(r.grammar.get(), results[0].grammar.get());
    built += r.source == CompileCache::Source::Built;
  }
  EXPECT_EQ(built, 1);
  EXPECT_EQ(cache.stats().builds, 1u);
  EXPECT_EQ(cache.stats().waits + cache.stats().hits, 7u);
}

TEST(CompileCache, AtMostTwoColdCompilesAtOnce) {
  CompileCache cache(make_domain({"a", "b"}), CompileCache::kDefaultBudgetBytes, 2);
  std::atomic<int> running{0}, peak{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&, i] {
      cache.get("key" + std::to_string(i), [&] {
        int now = ++running;
        int p = peak.load();
        while (now > p && !peak.compare_exchange_weak(p, now)) {
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(40));
        --running;
        return parse_gbnf("root ::= \"a\"");
      });
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_LE(peak.load(), 2);
  EXPECT_EQ(cache.stats().builds, 6u);
  EXPECT_LE(cache.stats().max_concurrent_builds, 2);
}

TEST(CompileCache, ErrorsReachEveryCallerAndAreNotCached) {
  CompileCache cache(make_domain({"a"}));
  EXPECT_THROW(cache.get("bad", gbnf("root ::= (")), GrammarError);
  EXPECT_THROW(cache.get("bad", gbnf("root ::= (")), GrammarError);
  EXPECT_EQ(cache.stats().failures, 2u);
  EXPECT_EQ(cache.stats().entries, 0u);
  // The key can later succeed.
  EXPECT_NO_THROW(cache.get("bad", gbnf("root ::= \"a\"")));
}

TEST(CompileCache, EvictionRespectsBudgetAndInUseGrammarsSurvive) {
  auto domain = make_domain({"a", "b", "c"});
  // A tiny budget: every new entry evicts the previous one.
  CompileCache cache(domain, 1, 2);
  auto first = cache.get("one", gbnf("root ::= \"a\"+"));
  cache.get("two", gbnf("root ::= \"b\"+"));
  cache.get("three", gbnf("root ::= \"c\"+"));
  EXPECT_GE(cache.stats().evictions, 2u);
  EXPECT_EQ(cache.stats().entries, 1u);
  // The evicted grammar still works for its holder.
  Matcher m(first.grammar);
  EXPECT_TRUE(m.accept_token(1));
  EXPECT_FALSE(m.accept_token(2));
  // And a new request for the evicted key compiles again.
  EXPECT_EQ(cache.get("one", gbnf("root ::= \"a\"+")).source, CompileCache::Source::Built);
}

}  // namespace
}  // namespace ninfer::grammar
