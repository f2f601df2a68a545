// Tokenizer::load: tokenizer.json (+ optional tokenizer_config.json) -> HfTokenizer.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "tokenizer/assets.h"
#include "tokenizer/byte_level.h"
#include "tokenizer/hf_tokenizer.h"
#include "tokenizer/tokenizer_json.h"

namespace ninfer::tokenizer {
namespace {

using json = nlohmann::json;

// Ids beyond this are treated as corrupt data rather than allocated for.
constexpr int64_t kMaxTokenId = (int64_t{1} << 24) - 1;

// The whole file, memory-mapped (pre-faulted in one go; far cheaper than copying 10 MB through
// read() into fresh pages) or, where mapping fails, read into memory.
class FileContents {
 public:
  explicit FileContents(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw TokenizerError(TokenizerErrorKind::NotFound, "cannot open " + path, path);
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = p;
        map_size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
    if (!map_) data_ = read_file(path);
  }
  ~FileContents() {
    if (map_) ::munmap(map_, map_size_);
  }
  FileContents(const FileContents&) = delete;
  FileContents& operator=(const FileContents&) = delete;
  std::string_view view() const {
    return map_ ? std::string_view(static_cast<const char*>(map_), map_size_) : std::string_view(data_);
  }

  static std::string read_file(const std::string& path);

 private:
  void* map_ = nullptr;
  size_t map_size_ = 0;
  std::string data_;
};

std::string FileContents::read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TokenizerError(TokenizerErrorKind::NotFound, "cannot open " + path, path);
  std::string data;
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size > 0) {
    data.resize(static_cast<size_t>(size));
    in.seekg(0, std::ios::beg);
    in.read(data.data(), size);
    if (!in) throw TokenizerError(TokenizerErrorKind::NotFound, "cannot read " + path, path);
  }
  return data;
}

// What the decoder section says about turning token strings into bytes.
struct DecoderInfo {
  bool byte_level = false;
  bool byte_fallback = false;
  std::vector<std::pair<std::string, std::string>> replacements;  // literal from -> to
};

void read_decoder(const JsonSite& site, DecoderInfo& info) {
  if (site.value.is_null()) return;
  const std::string& type = site.type();
  if (type == "Sequence") {
    const JsonSite list = site.child("decoders");
    list.require_array();
    for (size_t i = 0; i < list.value.size(); ++i) read_decoder(list.at(i), info);
  } else if (type == "ByteLevel") {
    info.byte_level = true;
  } else if (type == "ByteFallback") {
    info.byte_fallback = true;
  } else if (type == "Metaspace") {
    info.replacements.emplace_back(site.string_or("replacement", "\xE2\x96\x81"), " ");
  } else if (type == "Replace") {
    if (site.has("pattern") && site.child("pattern").has("String") && site.has("content"))
      info.replacements.emplace_back(site.child("pattern").child("String").require_string(),
                                     site.child("content").require_string());
    else
      site.fail(TokenizerErrorKind::Unsupported, "Replace decoder without a literal String pattern");
  } else if (type == "Fuse" || type == "Strip") {
    // Display-only transformations; token_bytes are raw bytes.
  } else {
    site.child("type").fail(TokenizerErrorKind::Unsupported, "unsupported decoder type \"" + type + "\"");
  }
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// SentencePiece-style vocabulary string -> bytes.
std::string sentencepiece_bytes(std::string_view s, const DecoderInfo& info, bool byte_fallback) {
  if (byte_fallback && s.size() == 6 && s[0] == '<' && s[1] == '0' && s[2] == 'x' && s[5] == '>') {
    const int hi = hex_value(s[3]), lo = hex_value(s[4]);
    if (hi >= 0 && lo >= 0) return std::string(1, static_cast<char>(hi * 16 + lo));
  }
  std::string out(s);
  for (const auto& [from, to] : info.replacements) {
    if (from.empty()) continue;
    std::string next;
    size_t prev = 0, pos;
    while ((pos = out.find(from, prev)) != std::string::npos) {
      next.append(out, prev, pos - prev);
      next += to;
      prev = pos + from.size();
    }
    next.append(out, prev, std::string::npos);
    out = std::move(next);
  }
  return out;
}

int64_t require_id(const JsonSite& site) {
  if (!site.value.is_number_integer())
    site.fail(TokenizerErrorKind::Inconsistent, "expected an integer token id");
  const int64_t id = site.value.get<int64_t>();
  if (id < 0 || id > kMaxTokenId) site.fail(TokenizerErrorKind::Inconsistent, "token id out of range: " + std::to_string(id));
  return id;
}


void build(TokenizerJson& doc, const std::string& path, HfTokenizer& tok) {
  const JsonSite root{path, "", doc.root};
  root.require_object();
  if (!root.has("model")) root.fail(TokenizerErrorKind::Inconsistent, "missing \"model\"");
  const JsonSite model = root.child("model");
  model.require_object();
  if (model.has("type")) {
    const std::string& type = model.child("type").require_string();
    if (type != "BPE") model.child("type").fail(TokenizerErrorKind::Unsupported, "unsupported model type \"" + type + "\"");
  } else if (!doc.merges_streamed) {
    model.fail(TokenizerErrorKind::Unsupported, "model without \"type\" that is not a BPE model");
  }
  if (!doc.vocab_streamed) {
    if (model.has("vocab")) model.child("vocab").require_object();  // not an object: Inconsistent
    model.fail(TokenizerErrorKind::Inconsistent, "missing \"vocab\"");
  }
  if (!doc.merges_streamed && model.has("merges")) model.child("merges").require_array();
  for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"}) {
    const std::string v = model.string_or(key, "");
    if (!v.empty()) model.child(key).fail(TokenizerErrorKind::Unsupported, std::string("unsupported BPE option ") + key);
  }

  // Normalizer, pre-tokenizer, decoder.
  if (root.has("normalizer")) tok.normalizer_ = make_normalizer(root.child("normalizer"));
  bool byte_level = false;
  if (root.has("pre_tokenizer")) tok.pre_tokenizer_ = make_pre_tokenizer(root.child("pre_tokenizer"), &byte_level);
  DecoderInfo decoder;
  if (root.has("decoder")) read_decoder(root.child("decoder"), decoder);
  const bool byte_level_bytes = byte_level || decoder.byte_level;
  if (!byte_level_bytes && decoder.replacements.empty()) decoder.replacements.emplace_back("\xE2\x96\x81", " ");
  const bool model_byte_fallback = model.bool_or("byte_fallback", false);
  const bool byte_fallback_bytes = model_byte_fallback || decoder.byte_fallback;

  // Added tokens (validated first: they extend the id space).
  std::vector<AddedToken> added;
  if (root.has("added_tokens")) {
    const JsonSite list = root.child("added_tokens");
    list.require_array();
    added.reserve(list.value.size());
    for (size_t i = 0; i < list.value.size(); ++i) {
      const JsonSite t = list.at(i);
      t.require_object();
      if (!t.has("id") || !t.has("content")) t.fail(TokenizerErrorKind::Inconsistent, "added token needs \"id\" and \"content\"");
      AddedToken a;
      a.id = static_cast<int32_t>(require_id(t.child("id")));
      a.content = t.child("content").require_string();
      if (a.content.empty()) t.child("content").fail(TokenizerErrorKind::Inconsistent, "empty added token");
      a.special = t.bool_or("special", false);
      a.lstrip = t.bool_or("lstrip", false);
      a.rstrip = t.bool_or("rstrip", false);
      added.push_back(std::move(a));
    }
  }

  // Id space.
  int64_t max_id = -1;
  for (const auto& e : doc.vocab) {
    if (e.id < 0 || e.id > kMaxTokenId)
      fail(TokenizerErrorKind::Inconsistent, path, "/model/vocab/" + escape_pointer_token(doc.vocab_key(e)),
           "token id out of range: " + std::to_string(e.id));
    max_id = std::max(max_id, e.id);
  }
  for (const AddedToken& a : added) max_id = std::max<int64_t>(max_id, a.id);
  // Real vocabularies are dense; a huge id in a small file is corruption, not a reason to allocate.
  if (max_id >= 2 * static_cast<int64_t>(doc.vocab.size() + added.size()) + 1024)
    fail(TokenizerErrorKind::Inconsistent, path, "/model/vocab",
         "token ids are too sparse: max id " + std::to_string(max_id) + " for " +
             std::to_string(doc.vocab.size() + added.size()) + " tokens");
  const auto size = static_cast<size_t>(max_id + 1);
  tok.token_bytes_.assign(size, std::string());
  tok.kinds_.assign(size, TokenKind::Unused);

  BpeOptions options;
  options.byte_level = byte_level;
  options.byte_fallback = model_byte_fallback;
  options.ignore_merges = model.bool_or("ignore_merges", false);
  options.fuse_unk = model.bool_or("fuse_unk", false);
  auto bpe = std::make_unique<BpeModel>(options);
  bpe->reserve(doc.vocab.size(), doc.vocab_arena.size(), doc.merges.size());

  for (const auto& e : doc.vocab) {
    const std::string_view key = doc.vocab_key(e);
    const auto id = static_cast<int32_t>(e.id);
    if (tok.kinds_[id] != TokenKind::Unused)
      fail(TokenizerErrorKind::Inconsistent, path, "/model/vocab/" + escape_pointer_token(key), "duplicate token id " + std::to_string(id));
    if (!bpe->add_token(key, id))
      fail(TokenizerErrorKind::Inconsistent, path, "/model/vocab/" + escape_pointer_token(key), "duplicate vocabulary entry");
    tok.kinds_[id] = TokenKind::Normal;
    std::string& bytes = tok.token_bytes_[id];
    if (byte_level_bytes) {
      // Not a byte-level string: keep its UTF-8 (the model can never produce it anyway).
      if (!byte_level::decode_into(key, bytes)) bytes = key;
    } else {
      bytes = sentencepiece_bytes(key, decoder, byte_fallback_bytes);
    }
  }

  // Merges: vocabulary strings -> ids ("ab" is stored right after "a" and "b" share an arena).
  const auto lookup = [&](std::string_view s) -> int32_t { return bpe->find(s).value_or(-1); };
  const std::string_view marena = doc.merges_arena;
  for (size_t r = 0; r < doc.merges.size(); ++r) {
    const auto& m = doc.merges[r];
    const std::string_view a = marena.substr(m.offset, m.left_length);
    const std::string_view b = marena.substr(m.offset + m.left_length, m.right_length);
    const std::string_view joined = marena.substr(m.offset, m.left_length + m.right_length);
    const int32_t ia = lookup(a), ib = lookup(b), ij = lookup(joined);
    if (ia < 0 || ib < 0 || ij < 0) {
      const std::string_view missing = ia < 0 ? a : ib < 0 ? b : joined;
      fail(TokenizerErrorKind::Inconsistent, path, "/model/merges/" + std::to_string(r),
           "merge names a token that is not in the vocabulary: \"" + std::string(missing) + "\"");
    }
    bpe->add_merge(ia, ib, static_cast<int32_t>(r), ij);
  }

  // Unknown token.
  if (model.has("unk_token")) {
    const std::string& unk = model.child("unk_token").require_string();
    int32_t id = lookup(unk);
    for (const AddedToken& a : added)
      if (id < 0 && a.content == unk) id = a.id;
    if (id < 0) model.child("unk_token").fail(TokenizerErrorKind::Inconsistent, "unk_token \"" + unk + "\" is not a token");
    bpe->set_unk_id(id);
  }
  bpe->finish();
  tok.model_ = std::move(bpe);

  for (const AddedToken& a : added) {
    tok.token_bytes_[a.id] = a.content;
    tok.kinds_[a.id] = a.special ? TokenKind::Special : TokenKind::Normal;
    tok.added_ids_.assign(a.content, a.id);
  }
  tok.added_.build(std::move(added));
}

// tokenizer.json text -> HfTokenizer (without the end/begin ids, see apply_config).
std::shared_ptr<HfTokenizer> build_tokenizer(std::string_view text, const std::string& path) {
  auto tok = std::make_shared<HfTokenizer>();
  tok->source_path_ = path;
  {
    TokenizerJson doc = parse_tokenizer_json(text, path);
    try {
      build(doc, path, *tok);
    } catch (const TokenizerError&) {
      throw;
    } catch (const std::exception& e) {
      // Anything else (a DOM access we did not guard, an allocation limit) is still a bad file.
      throw TokenizerError(TokenizerErrorKind::Inconsistent, std::string("cannot use tokenizer: ") + e.what(), path);
    }
  }
  return tok;
}

// tokenizer_config.json (optional, null when absent): eos_token / bos_token.
void apply_config(HfTokenizer* tok, const json* config) {
  const bool have_config = config && config->is_object();
  const auto add_eos = [&](int32_t id) {
    if (std::find(tok->eos_ids_.begin(), tok->eos_ids_.end(), id) == tok->eos_ids_.end()) tok->eos_ids_.push_back(id);
  };
  if (have_config)
    if (auto eos = config_token(*config, "eos_token"))
      if (auto id = tok->token_id(*eos)) add_eos(*id);
  for (const char* name : {"<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|eom_id|>", "<|end_of_text|>", "</s>"})
    if (auto id = tok->token_id(name); id && tok->token_kind(*id) == TokenKind::Special) add_eos(*id);
  if (have_config && config->contains("bos_token")) {
    if (auto bos = config_token(*config, "bos_token")) tok->bos_id_ = tok->token_id(*bos);
  } else {
    for (const char* name : {"<|begin_of_text|>", "<s>", "<bos>"})
      if (auto id = tok->token_id(name); id && tok->token_kind(*id) == TokenKind::Special) {
        tok->bos_id_ = id;
        break;
      }
  }
}

json parse_config(std::string_view text, const std::string& location) {
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    // parse_error carries the offset; out_of_range (a number beyond binary64, "1E400") does not.
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    throw TokenizerError(TokenizerErrorKind::BadJson, std::string("invalid JSON: ") + e.what(),
                         location + ":" + std::to_string(pe ? pe->byte : 0));
  }
}

}  // namespace

std::shared_ptr<const Tokenizer> Tokenizer::load(const std::string& name_or_path) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string path = resolve_tokenizer_path(name_or_path);
  std::shared_ptr<HfTokenizer> tok;
  {
    const FileContents file(path);
    tok = build_tokenizer(file.view(), path);
  }
  const std::filesystem::path config_path = std::filesystem::path(path).parent_path() / "tokenizer_config.json";
  std::error_code ec;
  json config;
  bool have_config = false;
  if (std::filesystem::is_regular_file(config_path, ec)) {
    const std::string cpath = config_path.string();
    config = parse_config(FileContents::read_file(cpath), cpath);
    have_config = true;
  }
  apply_config(tok.get(), have_config ? &config : nullptr);
  tok->load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return tok;
}

std::shared_ptr<const Tokenizer> Tokenizer::from_json_text(std::string_view tokenizer_json,
                                                           std::string_view tokenizer_config_json,
                                                           std::string source_label) {
  const auto t0 = std::chrono::steady_clock::now();
  std::shared_ptr<HfTokenizer> tok = build_tokenizer(tokenizer_json, source_label);
  json config;
  const bool have_config = !tokenizer_config_json.empty();
  if (have_config) config = parse_config(tokenizer_config_json, source_label + "#tokenizer_config");
  apply_config(tok.get(), have_config ? &config : nullptr);
  tok->load_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return tok;
}

}  // namespace ninfer::tokenizer
