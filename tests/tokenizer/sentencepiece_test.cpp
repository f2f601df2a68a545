// Hand-written SentencePiece-style BPE tokenizers (tests/fixtures/tokenizer/sentencepiece_bpe/,
// metaspace_bpe.json): "▁" decoding, <0xNN> byte fallback, unk fusing, holes in the id space,
// lstrip on added tokens, tokenizer_config.json tokens given as objects.
#include "tokenizer/tokenizer_test_support.h"

namespace ninfer::tokenizer::testing {
namespace {

using Ids = std::vector<int32_t>;

std::shared_ptr<const Tokenizer> sentencepiece() {
  static const auto tok = Tokenizer::load(fixture_path("sentencepiece_bpe"));
  return tok;
}

TEST(TokenizerSentencePiece, TokenBytes) {
  const auto tok = sentencepiece();
  EXPECT_EQ(tok->vocab_size(), 34);
  EXPECT_EQ(tok->token_bytes(3), "A");  // <0x41>
  EXPECT_EQ(tok->token_bytes(4), "\xE2");
  EXPECT_EQ(tok->token_bytes(7), "\n");  // <0x0A>
  EXPECT_EQ(tok->token_bytes(8), " ");   // ▁
  EXPECT_EQ(tok->token_bytes(20), " Hello");
  EXPECT_EQ(tok->token_bytes(31), "  ");
  EXPECT_EQ(tok->token_bytes(30), "\xC3\xA9");
  EXPECT_EQ(tok->token_bytes(0), "<unk>");
  EXPECT_EQ(tok->token_kind(0), TokenKind::Special);
  EXPECT_EQ(tok->token_kind(20), TokenKind::Normal);
  EXPECT_EQ(tok->token_kind(32), TokenKind::Normal);  // added, "special": false
  for (int32_t hole = 26; hole <= 29; ++hole) {
    EXPECT_EQ(tok->token_kind(hole), TokenKind::Unused) << hole;
    EXPECT_EQ(tok->token_bytes(hole), "") << hole;
  }
  EXPECT_EQ(tok->token_id("\xE2\x96\x81Hello"), 20);
  EXPECT_EQ(tok->token_id("<mask>"), 33);
  EXPECT_FALSE(tok->token_id("nope").has_value());
}

TEST(TokenizerSentencePiece, EncodeWithNormalizerPrependAndReplace) {
  const auto tok = sentencepiece();
  EXPECT_EQ(tok->encode("Hello world"), (Ids{20, 25}));
  EXPECT_EQ(tok->encode("Hello"), (Ids{20}));
  // € is not in the vocabulary: byte fallback to <0xE2><0x82><0xAC>.
  EXPECT_EQ(tok->encode("Hello \xE2\x82\xAC"), (Ids{20, 8, 4, 5, 6}));
  EXPECT_EQ(tok->encode("A"), (Ids{8, 3}));
  // Z has no byte token: unknown, and consecutive unknowns fuse into one <unk>.
  EXPECT_EQ(tok->encode("ZZ"), (Ids{8, 0}));
  EXPECT_EQ(tok->encode("  "), (Ids{31, 8}));
  // lstrip on <mask> swallows the space before it; the normalizer runs per segment.
  EXPECT_EQ(tok->encode("Hello <mask> world"), (Ids{20, 33, 8, 25}));
  EXPECT_EQ(tok->encode("<s>Hello</s>"), (Ids{1, 20, 2}));
  EXPECT_EQ(tok->encode("<|user|>"), (Ids{32}));
}

TEST(TokenizerSentencePiece, Decode) {
  const auto tok = sentencepiece();
  EXPECT_EQ(tok->decode(Ids{20, 25}), " Hello world");
  EXPECT_EQ(tok->decode(Ids{20, 8, 4, 5, 6}), " Hello \xE2\x82\xAC");
  EXPECT_EQ(tok->decode(Ids{1, 20, 2}), "<s> Hello</s>");
  EXPECT_EQ(tok->decode(Ids{1, 20, 2}, /*skip_special=*/true), " Hello");
  EXPECT_EQ(tok->decode(Ids{20, 27, 25}), " Hello world");  // holes decode to nothing
}

TEST(TokenizerSentencePiece, ConfigTokensAsObjects) {
  const auto tok = sentencepiece();
  EXPECT_EQ(tok->eos_ids(), (Ids{2}));
  EXPECT_EQ(tok->bos_id(), 1);
}

TEST(TokenizerSentencePiece, MetaspacePreTokenizer) {
  const auto tok = Tokenizer::load(fixture_path("metaspace_bpe.json"));
  EXPECT_EQ(tok->encode("Hello world"), (Ids{20, 25}));
  EXPECT_EQ(tok->encode("Hello  world"), (Ids{20, 8, 25}));
  // prepend_scheme "first": only the text at the very start gets the "▁".
  EXPECT_EQ(tok->encode("Hello"), (Ids{20}));
  EXPECT_EQ(tok->encode("<s>Hello"), (Ids{1, 9, 10, 17, 12}));
  EXPECT_EQ(tok->token_bytes(25), " world");
  // No tokenizer_config.json next to it: the usual names are used.
  EXPECT_EQ(tok->eos_ids(), (Ids{2}));
  EXPECT_EQ(tok->bos_id(), 1);
}

}  // namespace
}  // namespace ninfer::tokenizer::testing
