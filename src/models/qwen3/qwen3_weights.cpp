#include "models/qwen3/qwen3_weights.h"

#include <stdexcept>

#include "models/model_error.h"

namespace ninfer::models::qwen3 {

Qwen3Config qwen3_preset(const std::string& name) {
  Qwen3Config c;  // defaults are Qwen3-0.6B
  if (name == "0.6b") return c;
  if (name == "tiny") {
    c.hidden_size = 64;
    c.intermediate_size = 192;
    c.num_layers = 2;
    c.num_heads = 4;
    c.num_kv_heads = 2;
    c.head_dim = 32;
    c.max_position_embeddings = 40960;
    return c;
  }
  if (name == "small") {
    c.hidden_size = 256;
    c.intermediate_size = 768;
    c.num_layers = 4;
    c.num_heads = 4;
    c.num_kv_heads = 2;
    c.head_dim = 64;
    return c;
  }
  throw std::invalid_argument("unknown qwen3 preset \"" + name + "\" (tiny, small, 0.6b)");
}

namespace {

std::string location(const Qwen3Weights& w, const TensorView& t, const std::string& fallback) {
  return w.source + ":" + (t.name.empty() ? fallback : t.name);
}

void check(const Qwen3Weights& w, const TensorView& t, const std::string& role, std::vector<int64_t> shape) {
  if (!t.data && t.shape.empty()) throw ModelError(ModelErrorKind::MissingTensor, "missing tensor " + role, location(w, t, role));
  if (t.shape != shape) {
    auto str = [](const std::vector<int64_t>& s) {
      std::string out = "[";
      for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
      return out + "]";
    };
    throw ModelError(ModelErrorKind::WrongShape,
                     "tensor " + (t.name.empty() ? role : t.name) + " has shape " + str(t.shape) + ", expected " + str(shape),
                     location(w, t, role));
  }
  // Norm weights are applied elementwise: a block-quantised vector is not something we read.
  if (shape.size() == 1 && t.dtype == DType::Q8_0)
    throw ModelError(ModelErrorKind::UnknownDtype, "norm weight " + t.name + " must be f32, f16 or bf16, not q8_0", location(w, t, role));
  size_t expected = 0;
  try {
    expected = static_cast<size_t>(t.rows()) * row_bytes(t.dtype, t.cols());
  } catch (const std::invalid_argument&) {
    throw ModelError(ModelErrorKind::WrongShape, "q8_0 tensor " + t.name + " needs a multiple of 32 columns", location(w, t, role));
  }
  if (t.bytes != expected || (!t.data && expected > 0))
    throw ModelError(ModelErrorKind::Truncated,
                     "tensor " + t.name + " holds " + std::to_string(t.bytes) + " bytes, its shape needs " + std::to_string(expected),
                     location(w, t, role));
}

// Qwen3Weights::matrices for either constness (T: TensorView or const TensorView).
template <class T, class W>
std::vector<T*> matrices_of(W& w) {
  std::vector<T*> out = {&w.embed};
  if (!w.config.tie_word_embeddings) out.push_back(&w.lm_head);
  for (auto& l : w.layers) {
    for (T* t : {&l.q_proj, &l.k_proj, &l.v_proj, &l.o_proj, &l.gate_proj, &l.up_proj, &l.down_proj}) out.push_back(t);
  }
  return out;
}

}  // namespace

std::vector<TensorView*> Qwen3Weights::matrices() { return matrices_of<TensorView>(*this); }
std::vector<const TensorView*> Qwen3Weights::matrices() const { return matrices_of<const TensorView>(*this); }

void validate_qwen3_weights(const Qwen3Weights& w) {
  const Qwen3Config& c = w.config;
  const auto bad = [&](const std::string& key, const std::string& why) {
    throw ModelError(ModelErrorKind::BadConfig, key + ": " + why, w.source + ":" + key);
  };
  if (c.vocab_size <= 0) bad("vocab_size", "must be positive");
  if (c.hidden_size <= 0) bad("hidden_size", "must be positive");
  if (c.intermediate_size <= 0) bad("intermediate_size", "must be positive");
  if (c.num_layers <= 0) bad("num_hidden_layers", "must be positive");
  if (c.num_heads <= 0) bad("num_attention_heads", "must be positive");
  if (c.num_kv_heads <= 0 || c.num_heads % c.num_kv_heads != 0)
    bad("num_key_value_heads", "must be positive and divide num_attention_heads");
  if (c.head_dim <= 0 || c.head_dim % 2 != 0) bad("head_dim", "must be positive and even (rotary pairs)");
  if (!(c.rope_theta > 0)) bad("rope_theta", "must be positive");
  if (!(c.rms_norm_eps > 0)) bad("rms_norm_eps", "must be positive");
  if (c.max_position_embeddings <= 0) bad("max_position_embeddings", "must be positive");
  if (static_cast<int>(w.layers.size()) != c.num_layers)
    throw ModelError(ModelErrorKind::MissingTensor,
                     "config has " + std::to_string(c.num_layers) + " layers, weights have " + std::to_string(w.layers.size()),
                     w.source);

  const int64_t h = c.hidden_size, q = int64_t{c.num_heads} * c.head_dim, kv = int64_t{c.num_kv_heads} * c.head_dim;
  const int64_t ff = c.intermediate_size, v = c.vocab_size, hd = c.head_dim;
  check(w, w.embed, "embed", {v, h});
  check(w, w.final_norm, "final_norm", {h});
  check(w, w.lm_head, "lm_head", {v, h});
  for (size_t i = 0; i < w.layers.size(); ++i) {
    const Qwen3LayerWeights& l = w.layers[i];
    const std::string p = "layer " + std::to_string(i) + " ";
    check(w, l.attn_norm, p + "attn_norm", {h});
    check(w, l.q_proj, p + "q_proj", {q, h});
    check(w, l.k_proj, p + "k_proj", {kv, h});
    check(w, l.v_proj, p + "v_proj", {kv, h});
    check(w, l.o_proj, p + "o_proj", {h, q});
    check(w, l.q_norm, p + "q_norm", {hd});
    check(w, l.k_norm, p + "k_norm", {hd});
    check(w, l.ffn_norm, p + "ffn_norm", {h});
    check(w, l.gate_proj, p + "gate_proj", {ff, h});
    check(w, l.up_proj, p + "up_proj", {ff, h});
    check(w, l.down_proj, p + "down_proj", {h, ff});
  }
}

}  // namespace ninfer::models::qwen3
