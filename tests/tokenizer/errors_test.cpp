// Bad tokenizer files raise TokenizerError with the right kind and location, never crash.
#include <unistd.h>

#include <random>

#include "tokenizer/tokenizer_test_support.h"

namespace ninfer::tokenizer::testing {
namespace {

TokenizerError load_error(const std::string& path) {
  try {
    Tokenizer::load(path);
  } catch (const TokenizerError& e) {
    return e;
  }
  ADD_FAILURE() << "loading " << path << " did not fail";
  return TokenizerError(TokenizerErrorKind::NotFound, "no error");
}

TEST(TokenizerErrors, NotFound) {
  auto e = load_error("/nonexistent/dir/tokenizer.json");
  EXPECT_EQ(e.kind(), TokenizerErrorKind::NotFound);
  EXPECT_NE(e.location().find("/nonexistent/dir/tokenizer.json"), std::string::npos);
  EXPECT_EQ(load_error("no-such-tokenizer-name").kind(), TokenizerErrorKind::NotFound);
  EXPECT_EQ(load_error("").kind(), TokenizerErrorKind::NotFound);
  // A folder without tokenizer.json.
  EXPECT_EQ(load_error(fixture_path("bad")).kind(), TokenizerErrorKind::NotFound);
}

TEST(TokenizerErrors, BadJsonHasByteOffset) {
  const std::string path = fixture_path("bad/not_json.json");
  const auto e = load_error(path);
  EXPECT_EQ(e.kind(), TokenizerErrorKind::BadJson);
  // {"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0,, ...: the second comma.
  const std::string text = R"({"version": "1.0", "model": {"type": "BPE", "vocab": {"a": 0,, "b": 1}}})";
  const size_t comma = text.find(",,") + 1;
  ASSERT_EQ(e.location().rfind(path + ":", 0), 0u) << e.location();
  const size_t offset = std::stoul(e.location().substr(path.size() + 1));
  EXPECT_GE(offset, comma);
  EXPECT_LE(offset, comma + 1);

  const auto t = load_error(fixture_path("bad/truncated.json"));
  EXPECT_EQ(t.kind(), TokenizerErrorKind::BadJson);
  EXPECT_NE(t.location().find("truncated.json:"), std::string::npos);
}

struct Case {
  const char* file;
  TokenizerErrorKind kind;
  const char* pointer;  // expected in location()
  const char* word;     // expected in what()
};

TEST(TokenizerErrors, UnsupportedAndInconsistent) {
  const Case cases[] = {
      {"unknown_model.json", TokenizerErrorKind::Unsupported, "#/model/type", "Unigram"},
      {"unknown_normalizer.json", TokenizerErrorKind::Unsupported, "#/normalizer/normalizers/1/type", "BertNormalizer"},
      {"unknown_pre_tokenizer.json", TokenizerErrorKind::Unsupported, "#/pre_tokenizer/pretokenizers/0/type", "Whitespace"},
      {"bad_regex.json", TokenizerErrorKind::Unsupported, "#/pre_tokenizer/pattern", "regex"},
      {"merge_unknown_token.json", TokenizerErrorKind::Inconsistent, "#/model/merges/1", "\"c\""},
      {"duplicate_id.json", TokenizerErrorKind::Inconsistent, "#/model/vocab/b", "duplicate"},
      {"vocab_not_integer.json", TokenizerErrorKind::Inconsistent, "#/model/vocab/b", "integer"},
      {"vocab_boolean.json", TokenizerErrorKind::Inconsistent, "#/model/vocab/b", "integer"},
      {"merge_pair_null.json", TokenizerErrorKind::Inconsistent, "#/model/merges/0", "merges"},
      {"negative_added_id.json", TokenizerErrorKind::Inconsistent, "#/added_tokens/0/id", "-5"},
  };
  for (const Case& c : cases) {
    const auto e = load_error(fixture_path(std::string("bad/") + c.file));
    EXPECT_EQ(e.kind(), c.kind) << c.file << ": " << e.what();
    EXPECT_NE(e.location().find(c.pointer), std::string::npos) << c.file << ": " << e.location();
    EXPECT_NE(std::string(e.what()).find(c.word), std::string::npos) << c.file << ": " << e.what();
  }
}

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every prefix and a few hundred byte-level corruptions of a valid file either load or throw
// TokenizerError; nothing else escapes and nothing crashes.
TEST(TokenizerErrors, CorruptedFilesNeverCrash) {
  const std::string good = read_all(fixture_path("sentencepiece_bpe/tokenizer.json"));
  ASSERT_FALSE(good.empty());
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("ninfer_tokenizer_test_" + std::to_string(::getpid()))).string();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/tokenizer.json";
  const auto try_load = [&](const std::string& contents) {
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << contents;
    }
    try {
      const auto tok = Tokenizer::load(path);
      (void)tok->encode("Hello world \xE2\x82\xAC <mask> <s>");
      return 0;
    } catch (const TokenizerError&) {
      return 1;
    }
  };
  const size_t last_brace = good.rfind('}');
  size_t failures = 0;
  for (size_t n = 0; n < good.size(); n += 7) {
    const int failed = try_load(good.substr(0, n));
    if (n <= last_brace) {
      EXPECT_EQ(failed, 1) << "prefix of " << n << " bytes loaded";
    }
    failures += failed;
  }
  std::mt19937 rng(12345);
  const char replacements[] = {'"', '{', '}', '[', ']', ',', ':', '0', '9', '-', 'x', ' ', '\\', '\xFF', '\x00'};
  size_t loaded = 0;
  for (int i = 0; i < 400; ++i) {
    std::string bad = good;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < edits; ++k)
      bad[rng() % bad.size()] = replacements[rng() % sizeof(replacements)];
    loaded += try_load(bad) == 0;
  }
  EXPECT_GT(failures, 0u);
  std::printf("[ tokenizer ] corrupted files: %zu of 400 still loaded\n", loaded);

  // Structural mutations: any value anywhere replaced by a value of another type.
  const nlohmann::json doc = nlohmann::json::parse(good);
  std::vector<nlohmann::json::json_pointer> pointers;
  const auto collect = [&](const auto& self, const nlohmann::json& v, const nlohmann::json::json_pointer& p) -> void {
    pointers.push_back(p);
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it) self(self, it.value(), p / it.key());
    else if (v.is_array())
      for (size_t i = 0; i < v.size(); ++i) self(self, v[i], p / i);
  };
  collect(collect, doc, nlohmann::json::json_pointer());
  const nlohmann::json values[] = {nullptr, true, 1.5, -1, 0, 99999999, "x", "", nlohmann::json::array(),
                                   nlohmann::json::object(), nlohmann::json::array({nlohmann::json::array()}),
                                   nlohmann::json::object({{"type", "Nope"}})};
  size_t structural_loaded = 0;
  for (int i = 0; i < 600; ++i) {
    nlohmann::json bad = doc;
    bad[pointers[rng() % pointers.size()]] = values[rng() % std::size(values)];
    structural_loaded += try_load(bad.dump()) == 0;
  }
  std::printf("[ tokenizer ] structurally mutated files: %zu of 600 still loaded\n", structural_loaded);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace ninfer::tokenizer::testing
