#include "models/random_weights.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/dtype_convert.h"

namespace ninfer::models::testing {

namespace {

// splitmix64: tiny, fast and good enough for test weights; seeded per tensor so that tensors do not
// depend on the order they are generated in.
class Rng {
 public:
  explicit Rng(uint64_t seed) : s_(seed) {}
  uint64_t next() {
    uint64_t z = (s_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  float uniform(float lo, float hi) {  // [lo, hi)
    return lo + (hi - lo) * static_cast<float>(next() >> 40) * (1.0f / 16777216.0f);
  }

 private:
  uint64_t s_;
};

uint64_t name_seed(uint64_t seed, const std::string& name) {
  uint64_t h = 1469598103934665603ull ^ seed;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return h;
}

std::vector<float> random_values(uint64_t seed, const std::string& name, int64_t n, float lo, float hi) {
  Rng rng(name_seed(seed, name));
  std::vector<float> v(static_cast<size_t>(n));
  for (float& f : v) f = rng.uniform(lo, hi);
  return v;
}

}  // namespace

qwen3::Qwen3Config tiny_qwen3_config() {
  qwen3::Qwen3Config c;
  c.vocab_size = 320;
  c.hidden_size = 64;
  c.intermediate_size = 96;
  c.num_layers = 2;
  c.num_heads = 4;
  c.num_kv_heads = 2;
  c.head_dim = 16;
  c.rope_theta = 1000000.0;
  c.rms_norm_eps = 1e-6;
  c.tie_word_embeddings = true;
  c.max_position_embeddings = 512;
  return c;
}

TensorView make_tensor(qwen3::Qwen3Weights& owner, std::string name, std::vector<int64_t> shape, DType dtype,
                       std::span<const float> values) {
  TensorView t;
  t.name = std::move(name);
  t.dtype = dtype;
  t.shape = std::move(shape);
  if (static_cast<int64_t>(values.size()) != t.elements()) throw std::invalid_argument("make_tensor: size mismatch");
  const int64_t rows = t.rows(), cols = t.cols();
  const size_t rb = row_bytes(dtype, cols);
  auto buf = std::shared_ptr<uint8_t[]>(new uint8_t[rb * static_cast<size_t>(rows) + 1]);
  uint8_t* p = buf.get();
  for (int64_t r = 0; r < rows; ++r) {
    const float* src = values.data() + r * cols;
    uint8_t* dst = p + static_cast<size_t>(r) * rb;
    switch (dtype) {
      case DType::F32:
        std::memcpy(dst, src, static_cast<size_t>(cols) * 4);
        break;
      case DType::F16:
      case DType::BF16:
        for (int64_t i = 0; i < cols; ++i) {
          const uint16_t h = dtype == DType::F16 ? f32_to_f16(src[i]) : f32_to_bf16(src[i]);
          std::memcpy(dst + 2 * i, &h, 2);
        }
        break;
      case DType::Q8_0:
        for (int64_t b = 0; b < cols / kQ8BlockValues; ++b) {
          quantize_q8_0_block(src + b * kQ8BlockValues, dst + b * kQ8BlockBytes);
        }
        break;
    }
  }
  t.data = p;
  t.bytes = rb * static_cast<size_t>(rows);
  owner.storage.push_back(std::shared_ptr<const void>(buf, buf.get()));
  return t;
}

std::shared_ptr<qwen3::Qwen3Weights> make_random_qwen3_weights(const qwen3::Qwen3Config& c,
                                                               const RandomWeightsOptions& o) {
  auto w = std::make_shared<qwen3::Qwen3Weights>();
  w->config = c;
  w->source = "random:" + std::to_string(o.seed);
  const int64_t hidden = c.hidden_size, inter = c.intermediate_size, hd = c.head_dim;
  const int64_t qdim = int64_t{c.num_heads} * hd, kvdim = int64_t{c.num_kv_heads} * hd;

  // Uniform(-a, a) with a = sqrt(3 / fan_in) keeps each projection's output variance near its input's.
  auto matrix = [&](const std::string& name, int64_t rows, int64_t cols) {
    const float a = std::sqrt(3.0f / static_cast<float>(cols));
    const auto v = random_values(o.seed, name, rows * cols, -a, a);
    return make_tensor(*w, name, {rows, cols}, o.dtype, v);
  };
  auto norm = [&](const std::string& name, int64_t n) {
    const auto v = random_values(o.seed, name, n, 0.8f, 1.2f);
    return make_tensor(*w, name, {n}, o.norm_dtype, v);
  };

  {
    const auto v = random_values(o.seed, "model.embed_tokens.weight", int64_t{c.vocab_size} * hidden, -1.0f, 1.0f);
    w->embed = make_tensor(*w, "model.embed_tokens.weight", {c.vocab_size, hidden}, o.dtype, v);
  }
  w->final_norm = norm("model.norm.weight", hidden);
  w->lm_head = c.tie_word_embeddings ? w->embed : matrix("lm_head.weight", c.vocab_size, hidden);
  for (int l = 0; l < c.num_layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    qwen3::Qwen3LayerWeights L;
    L.attn_norm = norm(p + "input_layernorm.weight", hidden);
    L.q_proj = matrix(p + "self_attn.q_proj.weight", qdim, hidden);
    L.k_proj = matrix(p + "self_attn.k_proj.weight", kvdim, hidden);
    L.v_proj = matrix(p + "self_attn.v_proj.weight", kvdim, hidden);
    L.o_proj = matrix(p + "self_attn.o_proj.weight", hidden, qdim);
    L.q_norm = norm(p + "self_attn.q_norm.weight", hd);
    L.k_norm = norm(p + "self_attn.k_norm.weight", hd);
    L.ffn_norm = norm(p + "post_attention_layernorm.weight", hidden);
    L.gate_proj = matrix(p + "mlp.gate_proj.weight", inter, hidden);
    L.up_proj = matrix(p + "mlp.up_proj.weight", inter, hidden);
    L.down_proj = matrix(p + "mlp.down_proj.weight", hidden, inter);
    w->layers.push_back(std::move(L));
  }
  return w;
}

}  // namespace ninfer::models::testing
