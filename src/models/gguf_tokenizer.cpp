#include "models/gguf_tokenizer.h"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "models/model_error.h"
#include "tokenizer/tokenizer_json.h"

namespace ninfer::models {
namespace {

using json = nlohmann::json;

// The Qwen2 / Qwen3 pre-tokenizer split, as in their tokenizer.json (llama.cpp: pre = "qwen2").
constexpr const char* kQwen2Regex =
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

[[noreturn]] void fail(ModelErrorKind kind, const std::string& message, const std::string& location) {
  throw ModelError(kind, message, location);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ModelErrorKind::NotFound, "cannot open " + path, path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json read_json(const std::string& path) {
  const std::string text = read_text(path);
  try {
    return json::parse(text);
  } catch (const json::exception& e) {
    const auto* pe = dynamic_cast<const json::parse_error*>(&e);
    fail(ModelErrorKind::BadConfig, std::string("invalid JSON: ") + e.what(), path + ":" + std::to_string(pe ? pe->byte : 0));
  }
}

// The split regex of a Sequence[Split, ByteLevel] pre-tokenizer, or "".
std::string split_regex(const json& pre) {
  if (!pre.is_object() || pre.value("type", "") != "Sequence") return "";
  const auto it = pre.find("pretokenizers");
  if (it == pre.end() || !it->is_array() || it->size() != 2) return "";
  const json& list = *it;
  const json& split = list[0];
  if (!split.is_object() || split.value("type", "") != "Split" || !split.contains("pattern")) return "";
  const json& pattern = split["pattern"];
  if (!pattern.is_object() || !pattern.contains("Regex") || !pattern["Regex"].is_string()) return "";
  if (!list[1].is_object() || list[1].value("type", "") != "ByteLevel") return "";
  return pattern["Regex"].get<std::string>();
}

void append_json_string(std::string& out, std::string_view s) {
  out.push_back('"');
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          static const char* hex = "0123456789abcdef";
          out += "\\u00";
          out.push_back(hex[c >> 4]);
          out.push_back(hex[c & 15]);
        } else {
          out.push_back(static_cast<char>(c));  // UTF-8 passes through; invalid UTF-8 fails in the JSON reader
        }
    }
  }
  out.push_back('"');
}

}  // namespace

namespace {

void add_tokenizer_keys(gguf::Writer& writer, const std::string& folder, int64_t vocab_size) {
  const std::string tj_path = folder + "/tokenizer.json";
  const std::string tc_path = folder + "/tokenizer_config.json";
  json tc = json::object();
  if (std::ifstream(tc_path).good()) tc = read_json(tc_path);
  // The tokenizer module's reader streams the two big tables instead of building a DOM for them.
  tokenizer::TokenizerJson doc;
  try {
    doc = tokenizer::parse_tokenizer_json(read_text(tj_path), tj_path);
  } catch (const tokenizer::TokenizerError& e) {
    fail(ModelErrorKind::BadConfig, std::string("tokenizer.json: ") + e.what(), e.location());
  }
  const json& root = doc.root;
  const json* model = root.is_object() && root.contains("model") ? &root["model"] : nullptr;
  if (!model || !model->is_object() || model->value("type", "") != "BPE" || !doc.vocab_streamed)
    fail(ModelErrorKind::Unsupported, "only byte-level BPE tokenizers are written to GGUF", tj_path + "#/model");
  if (!root.contains("pre_tokenizer") || split_regex(root["pre_tokenizer"]) != kQwen2Regex)
    fail(ModelErrorKind::Unsupported, "only the Qwen2 pre-tokenizer is written to GGUF", tj_path + "#/pre_tokenizer");

  std::vector<std::string> tokens;
  std::vector<int32_t> types;
  const auto place = [&](int64_t id, std::string_view text, GgufTokenType type) {
    if (id < 0 || id >= (int64_t{1} << 24)) fail(ModelErrorKind::BadConfig, "token id out of range", tj_path);
    if (static_cast<size_t>(id) >= tokens.size()) {
      tokens.resize(static_cast<size_t>(id) + 1);
      types.resize(static_cast<size_t>(id) + 1, static_cast<int32_t>(GgufTokenType::Unused));
    }
    tokens[static_cast<size_t>(id)] = text;
    types[static_cast<size_t>(id)] = static_cast<int32_t>(type);
  };
  for (const auto& e : doc.vocab) place(e.id, doc.vocab_key(e), GgufTokenType::Normal);
  if (root.contains("added_tokens") && root["added_tokens"].is_array())
    for (const json& a : root["added_tokens"])
      place(a.at("id").get<int64_t>(), a.at("content").get<std::string>(),
            a.value("special", false) ? GgufTokenType::Control : GgufTokenType::UserDefined);
  if (static_cast<int64_t>(tokens.size()) < vocab_size) {
    tokens.resize(static_cast<size_t>(vocab_size));
    types.resize(static_cast<size_t>(vocab_size), static_cast<int32_t>(GgufTokenType::Unused));
  }
  // Holes (and the padding up to the logits width) get unique placeholder names, as in llama.cpp.
  for (size_t i = 0; i < tokens.size(); ++i)
    if (types[i] == static_cast<int32_t>(GgufTokenType::Unused)) tokens[i] = "[PAD" + std::to_string(i) + "]";

  std::vector<std::string> merges;
  merges.reserve(doc.merges.size());
  const std::string_view arena = doc.merges_arena;
  for (const auto& m : doc.merges) {
    std::string text(arena.substr(m.offset, m.left_length));
    text += ' ';
    text += arena.substr(m.offset + m.left_length, m.right_length);
    merges.push_back(std::move(text));
  }

  const auto id_of = [&](const std::optional<std::string>& content) -> std::optional<int32_t> {
    if (!content) return std::nullopt;
    for (size_t i = 0; i < tokens.size(); ++i)
      if (tokens[i] == *content && types[i] != static_cast<int32_t>(GgufTokenType::Unused)) return static_cast<int32_t>(i);
    return std::nullopt;
  };
  // Special ids by content, before the lists move into the writer.
  const auto eos = id_of(tokenizer::config_token(tc, "eos_token"));
  const auto bos = id_of(tokenizer::config_token(tc, "bos_token"));
  const auto pad = id_of(tokenizer::config_token(tc, "pad_token"));
  writer.set("tokenizer.ggml.model", gguf::Value::string("gpt2"));
  writer.set("tokenizer.ggml.pre", gguf::Value::string("qwen2"));
  writer.set("tokenizer.ggml.tokens", gguf::Value::string_array(std::move(tokens)));
  writer.set("tokenizer.ggml.token_type", gguf::Value::i32_array(std::move(types)));
  writer.set("tokenizer.ggml.merges", gguf::Value::string_array(std::move(merges)));
  if (eos) writer.set("tokenizer.ggml.eos_token_id", gguf::Value::u32(static_cast<uint32_t>(*eos)));
  if (bos) writer.set("tokenizer.ggml.bos_token_id", gguf::Value::u32(static_cast<uint32_t>(*bos)));
  if (pad) writer.set("tokenizer.ggml.padding_token_id", gguf::Value::u32(static_cast<uint32_t>(*pad)));
  writer.set("tokenizer.ggml.add_bos_token", gguf::Value::boolean(tc.value("add_bos_token", false)));
  if (tc.contains("chat_template") && tc["chat_template"].is_string())
    writer.set("tokenizer.chat_template", gguf::Value::string(tc["chat_template"].get<std::string>()));
}

}  // namespace

void add_gguf_tokenizer(gguf::Writer& writer, const std::string& folder, int64_t vocab_size) {
  try {
    add_tokenizer_keys(writer, folder, vocab_size);
  } catch (const json::exception& e) {
    // A member of the wrong JSON type somewhere in the tokenizer files.
    fail(ModelErrorKind::BadConfig, std::string("unexpected tokenizer.json content: ") + e.what(), folder + "/tokenizer.json");
  }
}

SynthesisedTokenizer synthesise_tokenizer_json(const gguf::File& file) {
  const std::string model = file.get_string("tokenizer.ggml.model");
  if (model != "gpt2")
    fail(ModelErrorKind::Unsupported, "tokenizer model \"" + model + "\" is not supported (gpt2 byte-level BPE is)",
         file.path + ":tokenizer.ggml.model");
  const std::string pre = file.find("tokenizer.ggml.pre") ? file.get_string("tokenizer.ggml.pre") : "default";
  if (pre != "qwen2")
    fail(ModelErrorKind::Unsupported, "pre-tokenizer \"" + pre + "\" is not supported (qwen2 is)", file.path + ":tokenizer.ggml.pre");

  const auto array_of = [&](const char* key, bool strings) -> const gguf::Value* {
    const gguf::Value* v = file.find(key);
    if (!v) return nullptr;
    bool ok = v->type == gguf::ValueType::Array;
    if (ok && strings) ok = v->element == gguf::ValueType::String;
    if (ok && !strings) {
      gguf::Value probe;
      probe.type = v->element;
      ok = probe.is_integer();
    }
    if (!ok) fail(ModelErrorKind::BadConfig, std::string(key) + " has the wrong type", file.path + ":" + key);
    return v;
  };
  const gguf::Value* tokens = array_of("tokenizer.ggml.tokens", true);
  if (!tokens) fail(ModelErrorKind::BadConfig, "missing metadata tokenizer.ggml.tokens", file.path + ":tokenizer.ggml.tokens");
  const gguf::Value* types = array_of("tokenizer.ggml.token_type", false);
  const gguf::Value* merges = array_of("tokenizer.ggml.merges", true);
  const size_t n = tokens->strings.size();
  if (n == 0 || n > (size_t{1} << 24))
    fail(ModelErrorKind::BadConfig, "token count " + std::to_string(n) + " is out of range", file.path + ":tokenizer.ggml.tokens");
  if (types && types->ints.size() != n)
    fail(ModelErrorKind::BadConfig, "token_type has " + std::to_string(types->ints.size()) + " entries for " + std::to_string(n) + " tokens",
         file.path + ":tokenizer.ggml.token_type");

  std::string out;
  size_t bytes = 64 * 1024;
  for (const std::string& t : tokens->strings) bytes += t.size() + 16;
  if (merges)
    for (const std::string& m : merges->strings) bytes += m.size() + 8;
  out.reserve(bytes);
  out += "{\"version\":\"1.0\",\"truncation\":null,\"padding\":null,\"added_tokens\":[";
  bool first = true;
  for (size_t i = 0; i < n; ++i) {
    const int64_t type = types ? types->ints[i] : static_cast<int64_t>(GgufTokenType::Normal);
    if (type < 1 || type > 6)
      fail(ModelErrorKind::BadConfig, "token " + std::to_string(i) + " has unknown type " + std::to_string(type),
           file.path + ":tokenizer.ggml.token_type");
    if (type != static_cast<int64_t>(GgufTokenType::Control) && type != static_cast<int64_t>(GgufTokenType::UserDefined)) continue;
    if (!first) out.push_back(',');
    first = false;
    out += "{\"id\":" + std::to_string(i) + ",\"content\":";
    append_json_string(out, tokens->strings[i]);
    out += ",\"single_word\":false,\"lstrip\":false,\"rstrip\":false,\"normalized\":false,\"special\":";
    out += type == static_cast<int64_t>(GgufTokenType::Control) ? "true}" : "false}";
  }
  out += "],\"normalizer\":{\"type\":\"NFC\"},\"pre_tokenizer\":{\"type\":\"Sequence\",\"pretokenizers\":[{\"type\":\"Split\",\"pattern\":{\"Regex\":";
  append_json_string(out, kQwen2Regex);
  out += "},\"behavior\":\"Isolated\",\"invert\":false},{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":false}]},";
  out += "\"post_processor\":null,\"decoder\":{\"type\":\"ByteLevel\",\"add_prefix_space\":false,\"trim_offsets\":false,\"use_regex\":false},";
  out += "\"model\":{\"type\":\"BPE\",\"dropout\":null,\"unk_token\":null,\"continuing_subword_prefix\":\"\",\"end_of_word_suffix\":\"\",";
  out += "\"fuse_unk\":false,\"byte_fallback\":false,\"ignore_merges\":false,\"vocab\":{";
  first = true;
  for (size_t i = 0; i < n; ++i) {
    const int64_t type = types ? types->ints[i] : 1;
    if (type == static_cast<int64_t>(GgufTokenType::Control) || type == static_cast<int64_t>(GgufTokenType::UserDefined) ||
        type == static_cast<int64_t>(GgufTokenType::Unused))
      continue;
    if (!first) out.push_back(',');
    first = false;
    append_json_string(out, tokens->strings[i]);
    out += ":" + std::to_string(i);
  }
  out += "},\"merges\":[";
  if (merges)
    for (size_t r = 0; r < merges->strings.size(); ++r) {
      // "a b": llama.cpp splits at the first space after the first byte.
      const std::string& m = merges->strings[r];
      const size_t sp = m.size() > 1 ? m.find(' ', 1) : std::string::npos;
      if (sp == std::string::npos)
        fail(ModelErrorKind::BadConfig, "merge " + std::to_string(r) + " is not two tokens separated by a space",
             file.path + ":tokenizer.ggml.merges");
      if (r) out.push_back(',');
      out.push_back('[');
      append_json_string(out, std::string_view(m).substr(0, sp));
      out.push_back(',');
      append_json_string(out, std::string_view(m).substr(sp + 1));
      out.push_back(']');
    }
  out += "]}}";

  // tokenizer_config.json: the end, begin and padding tokens by content.
  json config = json::object();
  const auto token_key = [&](const char* key) -> std::optional<std::string> {
    const auto id = file.get_int_or(std::string("tokenizer.ggml.") + key);
    if (!id) return std::nullopt;
    if (*id < 0 || static_cast<size_t>(*id) >= n)
      fail(ModelErrorKind::BadConfig, std::string(key) + " " + std::to_string(*id) + " is not a token", file.path + ":tokenizer.ggml." + key);
    return tokens->strings[static_cast<size_t>(*id)];
  };
  const gguf::Value* add_bos = file.find("tokenizer.ggml.add_bos_token");
  const bool adds_bos = add_bos && add_bos->type == gguf::ValueType::Bool && add_bos->i != 0;
  if (auto eos = token_key("eos_token_id")) config["eos_token"] = *eos;
  // A BOS that is never added is not part of the prompt format: Qwen's tokenizer_config says
  // bos_token null while llama.cpp's converter records <|endoftext|> as bos_token_id.
  auto bos = token_key("bos_token_id");
  config["bos_token"] = bos && adds_bos ? json(*bos) : json(nullptr);
  if (auto pad = token_key("padding_token_id")) config["pad_token"] = *pad;
  config["add_bos_token"] = adds_bos;
  try {
    return {std::move(out), config.dump()};
  } catch (const json::exception& e) {
    fail(ModelErrorKind::BadConfig, std::string("special token is not valid UTF-8: ") + e.what(), file.path + ":tokenizer.ggml.tokens");
  }
}

std::shared_ptr<const tokenizer::Tokenizer> load_gguf_tokenizer(const gguf::File& file) {
  SynthesisedTokenizer doc = synthesise_tokenizer_json(file);
  try {
    return tokenizer::Tokenizer::from_json_text(doc.tokenizer_json, doc.tokenizer_config_json, file.path + "#tokenizer");
  } catch (const tokenizer::TokenizerError& e) {
    fail(ModelErrorKind::BadConfig, std::string("tokenizer metadata: ") + e.what(), file.path + ":tokenizer.ggml.tokens (" + e.location() + ")");
  }
}

}  // namespace ninfer::models
