#include "models/qwen3_reference.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/dtype_convert.h"
#include "models/tensor.h"

namespace ninfer::models::testing {

namespace {

using Vec = std::vector<double>;

struct Mat {
  int64_t rows = 0, cols = 0;
  Vec v;
  bool quantises_input = false;  // a Q8_0 matrix: meets its input quantised to Q8 blocks
  const double* row(int64_t r) const { return v.data() + r * cols; }
};

Mat to_mat(const TensorView& t) {
  Mat m;
  m.rows = t.rows();
  m.cols = t.cols();
  m.quantises_input = t.dtype == DType::Q8_0;
  m.v.resize(static_cast<size_t>(m.rows * m.cols));
  for (int64_t i = 0; i < m.rows * m.cols; ++i) m.v[i] = tensor_element(t, i);
  return m;
}

Vec to_vec(const TensorView& t) {
  Vec v(static_cast<size_t>(t.elements()));
  for (int64_t i = 0; i < t.elements(); ++i) v[i] = tensor_element(t, i);
  return v;
}

// What a Q8_0 matrix multiplies (as in llama.cpp): x in blocks of 32, each as d * q with
// d = max|x| / 127 and q = x * (1 / d) rounded half to even, spelled in fp32 as the engine's
// kernels define it (q8_block_dot.h): in doubles, the many x * (1/d) that land within rounding of
// a half would round the other way and move the logits by far more than the tolerance. Values
// within 1e-7 of a half can still round apart from the engine's; these fixed seeds have none.
Vec q8_activations(const Vec& x) {
  Vec out(x.size());
  for (size_t b = 0; b + 32 <= x.size(); b += 32) {
    float amax = 0.0f;
    for (size_t i = b; i < b + 32; ++i) amax = std::max(amax, std::fabs(static_cast<float>(x[i])));
    const float d = amax / 127.0f;
    const float id = d != 0.0f ? 1.0f / d : 0.0f;
    for (size_t i = b; i < b + 32; ++i) out[i] = double{d} * std::nearbyint(static_cast<float>(x[i]) * id);
  }
  return out;
}

// y = W x
Vec matvec(const Mat& w, const Vec& input) {
  if (static_cast<int64_t>(input.size()) != w.cols) throw std::logic_error("reference: matvec size mismatch");
  const Vec x = w.quantises_input ? q8_activations(input) : input;
  Vec y(static_cast<size_t>(w.rows), 0.0);
  for (int64_t r = 0; r < w.rows; ++r) {
    const double* wr = w.row(r);
    double s = 0.0;
    for (int64_t c = 0; c < w.cols; ++c) s += wr[c] * x[c];
    y[r] = s;
  }
  return y;
}

// x / sqrt(mean(x^2) + eps) * w over x[off, off+n)
void rms_norm(Vec& x, int64_t off, int64_t n, const Vec& w, double eps) {
  double ss = 0.0;
  for (int64_t i = 0; i < n; ++i) ss += x[off + i] * x[off + i];
  const double inv = 1.0 / std::sqrt(ss / static_cast<double>(n) + eps);
  for (int64_t i = 0; i < n; ++i) x[off + i] = x[off + i] * inv * w[i];
}

// HF apply_rotary_pos_emb with rotate_half: out = x*cos + rotate_half(x)*sin, where
// rotate_half(x) = cat(-x[d/2:], x[:d/2]) and cos/sin repeat the d/2 frequencies twice.
void rope(Vec& x, int64_t off, int64_t dim, int64_t pos, double theta) {
  const int64_t half = dim / 2;
  Vec out(static_cast<size_t>(dim));
  for (int64_t i = 0; i < dim; ++i) {
    const int64_t f = i % half;
    const double inv_freq = 1.0 / std::pow(theta, static_cast<double>(2 * f) / static_cast<double>(dim));
    const double angle = static_cast<double>(pos) * inv_freq;
    const double rotated = i < half ? -x[off + i + half] : x[off + i - half];
    out[i] = x[off + i] * std::cos(angle) + rotated * std::sin(angle);
  }
  for (int64_t i = 0; i < dim; ++i) x[off + i] = out[i];
}

}  // namespace

std::vector<std::vector<double>> reference_logits(const qwen3::Qwen3Weights& w, std::span<const int32_t> tokens) {
  const qwen3::Qwen3Config& c = w.config;
  const int64_t T = static_cast<int64_t>(tokens.size());
  const int64_t H = c.num_heads, G = c.num_kv_heads, D = c.head_dim, hidden = c.hidden_size;
  const double eps = c.rms_norm_eps;

  std::vector<Vec> x(static_cast<size_t>(T), Vec(static_cast<size_t>(hidden)));
  for (int64_t t = 0; t < T; ++t) {
    if (tokens[t] < 0 || tokens[t] >= c.vocab_size) throw std::out_of_range("reference: token outside vocabulary");
    for (int64_t i = 0; i < hidden; ++i) x[t][i] = tensor_element(w.embed, int64_t{tokens[t]} * hidden + i);
  }

  for (const qwen3::Qwen3LayerWeights& L : w.layers) {
    const Mat wq = to_mat(L.q_proj), wk = to_mat(L.k_proj), wv = to_mat(L.v_proj), wo = to_mat(L.o_proj);
    const Mat wg = to_mat(L.gate_proj), wu = to_mat(L.up_proj), wd = to_mat(L.down_proj);
    const Vec an = to_vec(L.attn_norm), fn = to_vec(L.ffn_norm), qn = to_vec(L.q_norm), kn = to_vec(L.k_norm);

    std::vector<Vec> q(T), k(T), v(T);
    for (int64_t t = 0; t < T; ++t) {
      Vec h = x[t];
      rms_norm(h, 0, hidden, an, eps);
      q[t] = matvec(wq, h);
      k[t] = matvec(wk, h);
      v[t] = matvec(wv, h);
      for (int64_t hh = 0; hh < H; ++hh) {
        rms_norm(q[t], hh * D, D, qn, eps);
        rope(q[t], hh * D, D, t, c.rope_theta);
      }
      for (int64_t g = 0; g < G; ++g) {
        rms_norm(k[t], g * D, D, kn, eps);
        rope(k[t], g * D, D, t, c.rope_theta);
      }
      // The KV cache holds f16: attention reads the keys and values rounded to it.
      for (Vec* kv : {&k[t], &v[t]})
        for (double& e : *kv) e = f16_to_f32(f32_to_f16(static_cast<float>(e)));
    }
    for (int64_t t = 0; t < T; ++t) {
      Vec attn(static_cast<size_t>(H * D), 0.0);
      for (int64_t hh = 0; hh < H; ++hh) {
        const int64_t g = hh / (H / G);  // GQA: consecutive query heads share a kv head
        Vec s(static_cast<size_t>(t + 1));
        double mx = -INFINITY;
        for (int64_t j = 0; j <= t; ++j) {
          double d = 0.0;
          for (int64_t i = 0; i < D; ++i) d += q[t][hh * D + i] * k[j][g * D + i];
          s[j] = d / std::sqrt(static_cast<double>(D));
          mx = std::max(mx, s[j]);
        }
        double sum = 0.0;
        for (int64_t j = 0; j <= t; ++j) sum += (s[j] = std::exp(s[j] - mx));
        for (int64_t j = 0; j <= t; ++j) {
          for (int64_t i = 0; i < D; ++i) attn[hh * D + i] += s[j] / sum * v[j][g * D + i];
        }
      }
      const Vec o = matvec(wo, attn);
      for (int64_t i = 0; i < hidden; ++i) x[t][i] += o[i];
      Vec h = x[t];
      rms_norm(h, 0, hidden, fn, eps);
      const Vec gate = matvec(wg, h), up = matvec(wu, h);
      Vec act(gate.size());
      for (size_t i = 0; i < gate.size(); ++i) act[i] = gate[i] / (1.0 + std::exp(-gate[i])) * up[i];
      const Vec down = matvec(wd, act);
      for (int64_t i = 0; i < hidden; ++i) x[t][i] += down[i];
    }
  }

  const Mat head = to_mat(w.lm_head);
  const Vec fin = to_vec(w.final_norm);
  std::vector<Vec> logits;
  logits.reserve(static_cast<size_t>(T));
  for (int64_t t = 0; t < T; ++t) {
    Vec h = x[t];
    rms_norm(h, 0, hidden, fin, eps);
    logits.push_back(matvec(head, h));
  }
  return logits;
}

}  // namespace ninfer::models::testing
