// Encodes every string of the npm reference fixtures (scripts/make_tokenizer_fixture.mjs) and
// compares with the reference ids: zero mismatches allowed.
#include <chrono>

#include "tokenizer/tokenizer_test_support.h"

namespace ninfer::tokenizer::testing {
namespace {

void expect_fixture_matches(const std::string& name) {
  NINFER_REQUIRE_TOKENIZER(tok, name);
  const auto cases = read_fixture(name);
  ASSERT_GE(cases.size(), 2000u) << "fixture " << name << ".jsonl is missing or too small";
  size_t mismatches = 0;
  std::string report;
  for (const auto& c : cases) {
    const auto ids = tok->encode(c.text);
    if (ids == c.ids) continue;
    if (++mismatches <= 5) {
      report += "  text ";
      report += quote(c.text);
      report += "\n    got ";
      report += ids_to_string(ids);
      report += "\n    ref ";
      report += ids_to_string(c.ids);
      report += '\n';
    }
  }
  EXPECT_EQ(mismatches, 0u) << name << ": " << mismatches << " of " << cases.size()
                            << " fixture strings differ from the reference; first ones:\n"
                            << report;
  std::printf("[ tokenizer ] %s: %zu fixture strings, %zu mismatches\n", name.c_str(), cases.size(), mismatches);
}

TEST(TokenizerReference, Qwen3MatchesReferenceIds) { expect_fixture_matches("qwen3"); }
TEST(TokenizerReference, Llama31MatchesReferenceIds) { expect_fixture_matches("llama3_1"); }

void expect_round_trip(const std::string& name, bool only_nfc) {
  NINFER_REQUIRE_TOKENIZER(tok, name);
  const auto cases = read_fixture(name);
  ASSERT_FALSE(cases.empty());
  size_t checked = 0, failures = 0;
  for (const auto& c : cases) {
    if (only_nfc && !c.nfc) continue;
    ++checked;
    const auto ids = tok->encode(c.text);
    const std::string back = tok->decode(ids);
    if (back != c.text && ++failures <= 5)
      ADD_FAILURE() << "round trip differs for " << quote(c.text) << ": got " << quote(back);
  }
  EXPECT_EQ(failures, 0u);
  EXPECT_GT(checked, 1000u);
}

// Qwen3 normalizes to NFC, so only NFC strings come back byte for byte.
TEST(TokenizerReference, Qwen3DecodeEncodeRoundTrip) { expect_round_trip("qwen3", true); }
TEST(TokenizerReference, Llama31DecodeEncodeRoundTrip) { expect_round_trip("llama3_1", false); }

TEST(TokenizerReference, NonNfcInputIsNormalizedByQwen3) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  EXPECT_EQ(tok->encode("cafe\xCC\x81"), tok->encode("caf\xC3\xA9"));  // e + U+0301 == é
  EXPECT_EQ(tok->decode(tok->encode("cafe\xCC\x81")), "caf\xC3\xA9");
}

// A few MB must encode in seconds (the corpus is repeated to ~4 MB; cached and uncached pieces).
void expect_fast_encode(const std::string& name) {
  NINFER_REQUIRE_TOKENIZER(tok, name);
  const auto cases = read_fixture(name);
  std::string corpus;
  for (const auto& c : cases) corpus += c.text;
  ASSERT_FALSE(corpus.empty());
  std::string big;
  while (big.size() < 4'000'000) big += corpus;
  const auto t0 = std::chrono::steady_clock::now();
  const auto ids = tok->encode(big);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[ tokenizer ] %s: %.1f MB -> %zu ids in %.2f s\n", name.c_str(), big.size() / 1e6, ids.size(), s);
  EXPECT_LT(s, 10.0);
  EXPECT_GT(ids.size(), big.size() / 10);
  if (name == "llama3_1") {
    EXPECT_TRUE(tok->decode(ids) == big);  // no normalizer: lossless
  }
}

TEST(TokenizerReference, Qwen3EncodesMegabytesQuickly) { expect_fast_encode("qwen3"); }
TEST(TokenizerReference, Llama31EncodesMegabytesQuickly) { expect_fast_encode("llama3_1"); }

}  // namespace
}  // namespace ninfer::tokenizer::testing
