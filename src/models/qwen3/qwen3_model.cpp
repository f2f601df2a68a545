#include "models/qwen3/qwen3_model.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>

#include "models/dtype_convert.h"
#include "models/kernels/parallel_matmul.h"
#include "models/kernels/thread_pool.h"
#include "models/kv_cache.h"
#include "models/model_error.h"

namespace ninfer::models::qwen3 {

namespace {

using kernels::MatmulTarget;

std::string where(const Qwen3Weights& w, const TensorView& t) {
  return (w.source.empty() ? std::string("<memory>") : w.source) + ":" + t.name;
}

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The forward pass trusts the views completely, so it checks them once here even though the loaders'
// validate_qwen3_weights already should have.
void check_tensor(const Qwen3Weights& w, const TensorView& t, const char* role, std::vector<int64_t> shape) {
  if (t.data == nullptr) {
    throw ModelError(ModelErrorKind::MissingTensor, std::string("Qwen3 weights lack the ") + role + " tensor",
                     where(w, t));
  }
  if (t.shape != shape) {
    throw ModelError(ModelErrorKind::WrongShape,
                     std::string("Qwen3 ") + role + " tensor '" + t.name + "' has shape " + shape_text(t.shape) +
                         ", the config needs " + shape_text(shape),
                     where(w, t));
  }
  size_t need = 0;
  try {
    need = static_cast<size_t>(t.rows()) * row_bytes(t.dtype, t.cols());
  } catch (const std::invalid_argument& e) {
    throw ModelError(ModelErrorKind::WrongShape,
                     std::string("Qwen3 ") + role + " tensor '" + t.name + "': " + e.what(), where(w, t));
  }
  if (t.bytes < need) {
    throw ModelError(ModelErrorKind::Truncated,
                     std::string("Qwen3 ") + role + " tensor '" + t.name + "' holds " + std::to_string(t.bytes) +
                         " bytes, its shape needs " + std::to_string(need),
                     where(w, t));
  }
}

std::vector<float> to_floats(const TensorView& t) {
  std::vector<float> v(static_cast<size_t>(t.elements()));
  for (int64_t i = 0; i < t.elements(); ++i) v[i] = tensor_element(t, i);
  return v;
}

// out = x / rms(x) * w. The sum of squares in double keeps the normalisation exact to fp32 rounding;
// in 8 partial sums (a fixed order), because one chain of dependent double additions, ~4 cycles an
// element, made the norms of a B=8 decode step ~9% of it on the Zen 5 EPYC (every head's q and k
// norm is one).
inline void rms_norm(const float* x, const float* w, int64_t n, double eps, float* out) {
  double part[8] = {};
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (int j = 0; j < 8; ++j) part[j] += static_cast<double>(x[i + j]) * x[i + j];
  }
  double ss = ((part[0] + part[4]) + (part[2] + part[6])) + ((part[1] + part[5]) + (part[3] + part[7]));
  for (; i < n; ++i) ss += static_cast<double>(x[i]) * x[i];
  const float inv = static_cast<float>(1.0 / std::sqrt(ss / static_cast<double>(n) + eps));
  for (i = 0; i < n; ++i) out[i] = x[i] * inv * w[i];
}

// NeoX-style rotation (HF rotate_half): element i pairs with i + dim/2.
inline void rope(float* v, const float* cos, const float* sin, int64_t half) {
  for (int64_t i = 0; i < half; ++i) {
    const float a = v[i];
    const float b = v[i + half];
    v[i] = a * cos[i] - b * sin[i];
    v[i + half] = b * cos[i] + a * sin[i];
  }
}

// Positions per attention task: KernelTable::attention_queries query vectors (positions x the heads of
// one GQA group): 64 for generated rows, and for prompt rows 256 on AVX-512 and AMX, 64 on the others.
// Each task reads its slot's whole K/V history once (from L3 or memory, at the cache's page-sized row
// stride) and prepares each tile once (widened to f32, or split into bf16 parts on AMX), so bigger
// blocks pay less per query; 256 leaves a 512-token chunk (Qwen3ModelOptions::prefill_chunk) of the
// 0.6b shape 32 tasks (4 blocks x 8 KV heads) to spread over the threads, and 64 leaves it 128.
// Positions per attention call, for `queries` query vectors per call.
inline int attention_block_rows(const Qwen3Config& c, int queries) {
  return std::max(1, queries / (c.num_heads / c.num_kv_heads));
}

// Grows a scratch buffer geometrically, so that slowly growing needs do not reallocate on every step.
inline float* grow(std::vector<float>& v, int64_t n) {
  if (static_cast<int64_t>(v.size()) < n) v.resize(std::max<size_t>(static_cast<size_t>(n), v.size() * 2));
  return v.data();
}

}  // namespace

Qwen3Model::Qwen3Model(std::shared_ptr<const Qwen3Weights> weights, Qwen3ModelOptions options)
    : weights_(std::move(weights)), options_(std::move(options)) {
  if (!weights_) throw std::invalid_argument("Qwen3Model: no weights");
  const Qwen3Weights& w = *weights_;
  const Qwen3Config& c = w.config;
  const std::string src = w.source.empty() ? "<memory>" : w.source;
  if (c.vocab_size <= 0 || c.hidden_size <= 0 || c.intermediate_size <= 0 || c.num_layers <= 0 ||
      c.num_heads <= 0 || c.num_kv_heads <= 0 || c.head_dim <= 0 || c.head_dim % 2 != 0 ||
      c.num_heads % c.num_kv_heads != 0 || !(c.rms_norm_eps >= 0.0) || !(c.rope_theta > 0.0)) {
    throw ModelError(ModelErrorKind::BadConfig,
                     "Qwen3 config is impossible (sizes must be positive, head_dim even, num_heads a multiple "
                     "of num_kv_heads)",
                     src);
  }
  if (options_.slots < 1) throw std::invalid_argument("Qwen3Model: slots must be at least 1");
  if (options_.max_context < 0) throw std::invalid_argument("Qwen3Model: max_context must not be negative");
  if (options_.max_context == 0) options_.max_context = c.max_position_embeddings;
  if (options_.max_context < 1) throw std::invalid_argument("Qwen3Model: max_context must be at least 1");
  if (options_.threads < 0) throw std::invalid_argument("Qwen3Model: threads must not be negative");
  if (options_.prefill_chunk < 1) throw std::invalid_argument("Qwen3Model: prefill_chunk must be at least 1");

  const int64_t hidden = c.hidden_size, inter = c.intermediate_size, hd = c.head_dim;
  const int64_t qdim = int64_t{c.num_heads} * hd, kvdim = int64_t{c.num_kv_heads} * hd;
  if (static_cast<int>(w.layers.size()) != c.num_layers) {
    throw ModelError(ModelErrorKind::MissingTensor,
                     "Qwen3 weights have " + std::to_string(w.layers.size()) + " layers, the config says " +
                         std::to_string(c.num_layers),
                     src);
  }
  check_tensor(w, w.embed, "embedding", {c.vocab_size, hidden});
  check_tensor(w, w.lm_head, "lm_head", {c.vocab_size, hidden});
  check_tensor(w, w.final_norm, "final norm", {hidden});
  for (const Qwen3LayerWeights& l : w.layers) {
    check_tensor(w, l.attn_norm, "attention norm", {hidden});
    check_tensor(w, l.q_proj, "q_proj", {qdim, hidden});
    check_tensor(w, l.k_proj, "k_proj", {kvdim, hidden});
    check_tensor(w, l.v_proj, "v_proj", {kvdim, hidden});
    check_tensor(w, l.o_proj, "o_proj", {hidden, qdim});
    check_tensor(w, l.q_norm, "q_norm", {hd});
    check_tensor(w, l.k_norm, "k_norm", {hd});
    check_tensor(w, l.ffn_norm, "ffn norm", {hidden});
    check_tensor(w, l.gate_proj, "gate_proj", {inter, hidden});
    check_tensor(w, l.up_proj, "up_proj", {inter, hidden});
    check_tensor(w, l.down_proj, "down_proj", {hidden, inter});
  }

  kernels_ = options_.isa ? &kernels::kernel_table(*options_.isa) : &kernels::best_kernels();
  for (const TensorView* t : w.matrices()) {
    if (t->q8_tiles && !kernels_->q8_weight_tiles) {
      throw ModelError(ModelErrorKind::Unsupported,
                       "tensor '" + t->name + "' is packed for the AMX tile unit, which the " +
                           kernels::isa_name(kernels_->isa) + " kernels do not read",
                       where(w, *t));
    }
  }
  // Prompt positions' attention: bf16 products or int8 scores where asked for (int8 by default with
  // Q8_0 weights) and this CPU has them, else the table's own.
  prompt_attention_ = kernels_->attention(/*prompt=*/true);
  PromptAttention pa = options_.prompt_attention;
  if (pa == PromptAttention::Auto) {
    pa = w.layers.front().q_proj.dtype == DType::Q8_0 ? PromptAttention::Int8 : PromptAttention::Exact;
  }
  if (auto* k = pa == PromptAttention::Bf16   ? kernels::bf16_prompt_attention(kernels_->isa)
                : pa == PromptAttention::Int8 ? kernels::int8_score_prompt_attention(kernels_->isa)
                                              : nullptr) {
    prompt_attention_ = k;
    prompt_attention_name_ = pa == PromptAttention::Int8 ? "int8-score" : "bf16";
  }
  pool_ = std::make_unique<kernels::ThreadPool>(options_.threads);
  kv_ = std::make_unique<KvCache>(c.num_layers, c.num_kv_heads, c.head_dim, options_.slots, options_.max_context);

  // Norm weights are small: fp32 copies once, whatever their stored dtype.
  norms_.reserve(w.layers.size());
  for (const Qwen3LayerWeights& l : w.layers) {
    norms_.push_back({to_floats(l.attn_norm), to_floats(l.ffn_norm), to_floats(l.q_norm), to_floats(l.k_norm)});
  }
  final_norm_ = to_floats(w.final_norm);
  inv_freq_.resize(static_cast<size_t>(hd / 2));
  for (int64_t i = 0; i < hd / 2; ++i) {
    inv_freq_[i] = std::pow(c.rope_theta, -2.0 * static_cast<double>(i) / static_cast<double>(hd));
  }
  items_.reserve(static_cast<size_t>(options_.prefill_chunk));
  attention_blocks_.reserve(static_cast<size_t>(options_.prefill_chunk));
  slot_seen_.assign(static_cast<size_t>(options_.slots), 0);
  partial_.resize(static_cast<size_t>(options_.slots));
}

Qwen3Model::~Qwen3Model() = default;

int32_t Qwen3Model::vocab_size() const { return weights_->config.vocab_size; }
int Qwen3Model::max_context() const { return options_.max_context; }
int Qwen3Model::slot_count() const { return options_.slots; }
std::shared_ptr<const tokenizer::Tokenizer> Qwen3Model::tokenizer() const { return options_.tokenizer; }
int Qwen3Model::threads() const { return pool_->size(); }
int Qwen3Model::lendable_threads() const { return pool_->size(); }
void Qwen3Model::lend_threads(int tasks, const std::function<void(int)>& fn) {
  pool_->run(tasks, [&](int64_t task, int) { fn(static_cast<int>(task)); });
}
size_t Qwen3Model::kv_cache_bytes() const { return kv_->bytes(); }

std::string Qwen3Model::description() const {
  const Qwen3Config& c = weights_->config;
  std::string s = "qwen3";
  if (!options_.name.empty()) s += " " + options_.name;
  s += " (";
  s += dtype_name(weights_->layers.front().q_proj.dtype);
  s += ", " + std::to_string(c.num_layers) + " layers, " + std::to_string(c.vocab_size) + " vocab";
  if (prompt_attention_name_ != nullptr) s += std::string(", ") + prompt_attention_name_ + " prompt attention";
  s += ")";
  return s;
}

void Qwen3Model::check_slot(int slot, const char* what) const {
  if (slot < 0 || slot >= options_.slots) {
    throw std::invalid_argument(std::string(what) + ": slot " + std::to_string(slot) + " out of range [0, " +
                                std::to_string(options_.slots) + ")");
  }
}

int Qwen3Model::slot_length(int slot) const {
  check_slot(slot, "slot_length");
  return kv_->length(slot);
}

void Qwen3Model::truncate_slot(int slot, int length) {
  check_slot(slot, "truncate_slot");
  if (length < 0 || length > kv_->length(slot)) {
    throw std::invalid_argument("truncate_slot: length " + std::to_string(length) + " outside [0, " +
                                std::to_string(kv_->length(slot)) + "] for slot " + std::to_string(slot));
  }
  kv_->set_length(slot, length);
  partial_[static_cast<size_t>(slot)].next_layer = 0;
}

int Qwen3Model::layer_count() const { return weights_->config.num_layers; }

size_t Qwen3Model::kv_bytes_per_position() const {
  return 2 * static_cast<size_t>(weights_->config.num_layers) * static_cast<size_t>(kv_->kv_dim()) * sizeof(uint16_t);
}

// The bytes of read_kv and append_kv, per layer: the keys channel by channel ([kv_dim][count]), then
// the values head by head ([kv_heads][count][head_dim]). Both follow the cache's own order (a
// channel's keys of one block are consecutive, and so are a head's value rows), so a block moves in
// runs of up to kBlock keys and kBlock value rows. Gathered position by position instead ("plain
// positions", a key a 2-byte element at a time), with the blocks zero-filled first, storing a
// 2,000-token prompt in the prefix cache cost ~0.3 s more of its time to first token (runtime.md,
// "Prefix cache").
template <bool kRead>
void Qwen3Model::copy_kv(int slot, int begin, int count, KvBytes<kRead> bytes) const {
  const int64_t kvdim = kv_->kv_dim(), hd = kv_->head_dim(), heads = kvdim / hd;
  // Positions [begin, begin + count) of one cache run (a key channel: width 1; a head's value rows:
  // width hd) against `count * width` bytes' elements at `out`, a block's part at a time.
  auto runs = [&](auto&& at, KvBytes<kRead> out, int64_t width) {
    for (int64_t j = 0; j < count;) {
      const int64_t pos = begin + j, run = std::min<int64_t>(count - j, KvCache::kBlock - pos % KvCache::kBlock);
      const size_t n = static_cast<size_t>(run * width) * sizeof(uint16_t);
      if constexpr (kRead) {
        std::memcpy(out + j * width, at(pos), n);
      } else {
        std::memcpy(at(pos), out + j * width, n);
      }
      j += run;
    }
  };
  for (int l = 0; l < weights_->config.num_layers; ++l) {
    uint16_t* keys = kv_->keys(slot, l);  // (a const member reaches the cache through kv_)
    uint16_t* values = kv_->values(slot, l);
    for (int64_t c = 0; c < kvdim; ++c) runs([&](int64_t pos) { return keys + kv_->key_index(pos, c); }, bytes + c * count, 1);
    bytes += kvdim * count;
    for (int64_t h = 0; h < heads; ++h)
      runs([&](int64_t pos) { return values + kv_->value_index(pos, h * hd); }, bytes + h * count * hd, hd);
    bytes += kvdim * count;
  }
}

void Qwen3Model::read_kv(int slot, int begin, int count, std::span<std::byte> out) const {
  check_slot(slot, "read_kv");
  if (begin < 0 || count < 0 || begin + count > kv_->length(slot))
    throw std::invalid_argument("read_kv: positions [" + std::to_string(begin) + ", " + std::to_string(begin + count) +
                                ") outside the slot's " + std::to_string(kv_->length(slot)));
  if (out.size() < static_cast<size_t>(count) * kv_bytes_per_position())
    throw std::invalid_argument("read_kv: output too small");
  copy_kv<true>(slot, begin, count, reinterpret_cast<uint16_t*>(out.data()));
}

void Qwen3Model::append_kv(int slot, int count, std::span<const std::byte> in) {
  check_slot(slot, "append_kv");
  const int begin = kv_->length(slot);
  if (count < 0 || begin + count > options_.max_context)
    throw std::invalid_argument("append_kv: " + std::to_string(count) + " positions do not fit the slot");
  if (partial_[static_cast<size_t>(slot)].next_layer > 0)
    throw std::invalid_argument("append_kv: the slot holds a prompt chunk part of the way through the layers");
  if (in.size() < static_cast<size_t>(count) * kv_bytes_per_position())
    throw std::invalid_argument("append_kv: input too small");
  kv_->reserve(slot, begin + count);
  copy_kv<false>(slot, begin, count, reinterpret_cast<const uint16_t*>(in.data()));
  kv_->set_length(slot, begin + count);
}

void Qwen3Model::forward(std::span<const ForwardRow> rows, std::span<float> logits) {
  const int64_t vocab = weights_->config.vocab_size;
  // Validate everything before touching any slot: a rejected batch changes nothing. Messages are
  // only built on failure, so a valid decode step allocates nothing here.
  auto fail = [](size_t i, const std::string& what) {
    throw std::invalid_argument("forward: row " + std::to_string(i) + ": " + what);
  };
  int64_t wanted = 0;
  std::fill(slot_seen_.begin(), slot_seen_.end(), 0);
  for (size_t i = 0; i < rows.size(); ++i) {
    const ForwardRow& r = rows[i];
    if (r.slot < 0 || r.slot >= options_.slots) {
      fail(i, "slot " + std::to_string(r.slot) + " out of range [0, " + std::to_string(options_.slots) + ")");
    }
    if (slot_seen_[r.slot]) fail(i, "slot " + std::to_string(r.slot) + " appears in more than one row");
    slot_seen_[r.slot] = 1;
    const int64_t n = static_cast<int64_t>(r.tokens.size());
    if (n == 0) fail(i, "no tokens");
    if (r.logits_count < 0 || r.logits_count > n) {
      fail(i, "logits_count " + std::to_string(r.logits_count) + " outside [0, " + std::to_string(n) + "]");
    }
    const PartialChunk& part = partial_[static_cast<size_t>(r.slot)];
    const int layers = weights_->config.num_layers, first = part.next_layer;
    if (first > 0 && !(r.prompt && std::ranges::equal(r.tokens, part.tokens))) {
      fail(i, "slot " + std::to_string(r.slot) + " holds a prompt chunk through " + std::to_string(first) +
                  " layers: its row must be that chunk's tokens again");
    }
    if (r.layers < 0 || r.layers > layers - first) {
      fail(i, "layers " + std::to_string(r.layers) + " outside [0, " + std::to_string(layers - first) + "]");
    }
    const bool partial = first > 0 || (r.layers > 0 && first + r.layers < layers);
    if (partial) {
      if (!r.prompt) fail(i, "only a prompt row may go through part of the layers");
      if (first + r.layers < layers && r.layers > 0 && r.logits_count > 0) fail(i, "logits before the last layer");
      if (i + 1 != rows.size()) fail(i, "a row through part of the layers must be the last");
    }
    const int64_t end = kv_->length(r.slot) + n;
    if (end > options_.max_context) {
      fail(i, "slot " + std::to_string(r.slot) + " would reach " + std::to_string(end) +
                  " positions, past max_context " + std::to_string(options_.max_context));
    }
    for (int32_t t : r.tokens) {
      if (t < 0 || t >= vocab) {
        fail(i, "token " + std::to_string(t) + " outside the vocabulary [0, " + std::to_string(vocab) + ")");
      }
    }
    wanted += r.logits_count;
  }
  if (static_cast<int64_t>(logits.size()) < wanted * vocab) {
    throw std::invalid_argument("forward: logits holds " + std::to_string(logits.size()) + " floats, the rows need " +
                                std::to_string(wanted * vocab));
  }
  for (const ForwardRow& r : rows) kv_->reserve(r.slot, kv_->length(r.slot) + static_cast<int>(r.tokens.size()));

  // Rows are cut into chunks of at most prefill_chunk tokens in row order, so chunks may mix rows
  // (a batch of decodes is one chunk) and a long prompt spans several chunks (bounded scratch).
  // A row through part of the layers keeps its rows' hidden states for the forward that goes on.
  const int layers = weights_->config.num_layers;
  const ForwardRow& last = rows.back();
  PartialChunk& part = partial_[static_cast<size_t>(last.slot)];
  const int last_first = part.next_layer;
  const int last_end = last.layers > 0 ? last_first + last.layers : layers;
  if (last_first == 0 && last_end < layers) {
    part.tokens.assign(last.tokens.begin(), last.tokens.end());
    part.base = kv_->length(last.slot);
    part.hidden.resize(last.tokens.size() * static_cast<size_t>(weights_->config.hidden_size));
  }
  if (last_first > 0 || last_end < layers) {
    // The memory of the prompt's next chunk is committed a share a step, as this chunk goes through
    // its layers: committed by the next chunk's first step, it was ~40-70 ms on top of that step's
    // ~25 (a chunk of 224 positions holds 25 MB of keys and values, in huge pages the host backs
    // for the first time).
    const int64_t n = static_cast<int64_t>(last.tokens.size());
    const int64_t ahead = kv_->length(last.slot) + n + n * last_end / layers;
    kv_->reserve(last.slot, static_cast<int>(std::min<int64_t>(ahead, options_.max_context)));
  }

  int64_t logits_row = 0;
  items_.clear();
  for (const ForwardRow& r : rows) {
    const int base = kv_->length(r.slot);
    const int n = static_cast<int>(r.tokens.size());
    const bool is_last = &r == &last;
    const int first = is_last ? last_first : 0, end = is_last ? last_end : layers;
    for (int i = 0; i < n; ++i) {
      items_.push_back({r.slot, base + i, r.tokens[i], i >= n - r.logits_count, r.prompt, first, end});
      if (static_cast<int>(items_.size()) == options_.prefill_chunk) {
        run_chunk(logits, logits_row);
        items_.clear();
      }
    }
  }
  if (!items_.empty()) run_chunk(logits, logits_row);
  items_.clear();
  part.next_layer = last_end < layers ? last_end : 0;
}

void Qwen3Model::plan_attention(int n) {
  // Runs of one slot at consecutive positions, cut into blocks of attention_block_rows.
  const int rows_generated = attention_block_rows(weights_->config, kernels_->attention_queries);
  const int rows_prompt = attention_block_rows(weights_->config, kernels_->prompt_attention_queries);
  attention_blocks_.clear();
  // Whether every slot's rows are one block: then no task's attention reads rows another task writes.
  // A slot's items are consecutive (one row each, forward checks), so a block that starts where the
  // item before is of its slot is that slot's second.
  attention_prepares_rows_ = true;
  for (int t = 0; t < n;) {
    if (t > 0 && items_[t - 1].slot == items_[t].slot) attention_prepares_rows_ = false;
    const int max_rows = items_[t].prompt ? rows_prompt : rows_generated;
    int end = t + 1;
    while (end < n && end - t < max_rows && items_[end].slot == items_[t].slot &&
           items_[end].pos == items_[end - 1].pos + 1 && items_[end].prompt == items_[t].prompt) {
      ++end;
    }
    attention_blocks_.push_back({t, end - t});
    t = end;
  }
  // The pool's tasks. A prompt block's heads are a task each: its tasks are long and unequal, and
  // coarser ones left threads idle (a 2,048-token prefill 3% slower). A generated block's KV heads
  // go in turn, some per task: a block's heads lie one after the other in the cache, and each call
  // asks for the next head's first tile while it works on its last, where a task's first head
  // starts cold. Tasks go largest first (the pool hands them out in order), so that no thread starts
  // a long one last; how many heads per task is chosen for the step: the grouping whose tasks, in
  // that order, finish soonest on the threads by the work estimate below. One row at 2,000
  // positions, 2 threads, q8_0: 2 tasks of 4 heads instead of 8 of one, 25.5 -> 21.4 ms a step
  // (medians of 18 alternated runs in a noisier phase 24.9 -> 23.3); 4 rows at 2,000 as 4 tasks
  // instead of 8, 42.6-45.7 -> 40.4-41.7 ms. Uneven rows (one long, three short) keep the long one
  // split, where a task per row would leave a thread idle.
  const int kv_heads = weights_->config.num_kv_heads, threads = pool_->size();
  const int blocks = static_cast<int>(attention_blocks_.size());
  bool generated_blocks = false;
  for (const AttentionBlock& b : attention_blocks_) generated_blocks |= !items_[b.first].prompt;
  // A task's work, in units of one query row's products with one key of one head (~5 ns here):
  // reading a key and value of a head costs ~3 units, and a task's cold first tiles ~384.
  auto work = [&](const AttentionTask& t) {
    const AttentionBlock& b = attention_blocks_[static_cast<size_t>(t.block)];
    return int64_t{t.heads} * (int64_t{items_[b.first].pos} + b.rows) * (3 + b.rows) + 384;
  };
  auto plan = [&](int per) {  // the tasks for `per` heads a generated task; returns their finish
    attention_tasks_.clear();
    for (int b = 0; b < blocks; ++b) {
      const int p = items_[attention_blocks_[b].first].prompt ? 1 : per;
      for (int g = 0; g < kv_heads; g += p) attention_tasks_.push_back({b, g, std::min(p, kv_heads - g)});
    }
    std::sort(attention_tasks_.begin(), attention_tasks_.end(), [&](const AttentionTask& x, const AttentionTask& y) {
      const int64_t wx = work(x), wy = work(y);
      return wx != wy ? wx > wy : x.block != y.block ? x.block < y.block : x.first_head < y.first_head;
    });
    thread_work_.assign(static_cast<size_t>(threads), 0);
    for (const AttentionTask& t : attention_tasks_) *std::min_element(thread_work_.begin(), thread_work_.end()) += work(t);
    return *std::max_element(thread_work_.begin(), thread_work_.end());
  };
  int best = 1;
  if (generated_blocks) {
    int64_t best_finish = -1;
    for (int per = kv_heads;; per = per % 2 == 0 ? per / 2 : 1) {  // (halved: still divides)
      const int64_t finish = plan(per);
      if (best_finish < 0 || finish < best_finish) best_finish = finish, best = per;
      if (per == 1) break;
    }
  }
  if (!generated_blocks || best != 1) plan(best);  // (the search ends on the plan of 1)
}

void Qwen3Model::run_chunk(std::span<float> logits, int64_t& logits_row) {
  const Qwen3Weights& w = *weights_;
  const Qwen3Config& c = w.config;
  const int64_t n = static_cast<int64_t>(items_.size());
  const int64_t hidden = c.hidden_size, inter = c.intermediate_size, hd = c.head_dim, half = hd / 2;
  const int64_t heads = c.num_heads, kv_heads = c.num_kv_heads, group = heads / kv_heads;
  const int64_t qdim = heads * hd, kvdim = kv_heads * hd;
  const double eps = c.rms_norm_eps;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(hd)));
  const int threads = pool_->size();

  // Activation rows at padded strides: rows read side by side by the batched matmuls would otherwise
  // sit at multiples of 4 KiB and fight over the same L1 sets.
  const int64_t sx = kernels::padded_stride(hidden), sq = kernels::padded_stride(qdim);
  const int64_t skv = kernels::padded_stride(kvdim), si = kernels::padded_stride(inter);
  float* x = grow(x_, n * sx);
  float* h = grow(h_, n * sx);
  float* q = grow(q_, n * sq);
  float* k = grow(k_, n * skv);
  float* v = grow(v_, n * skv);
  float* attn = grow(attn_, n * sq);
  float* gate = grow(gate_, n * si);
  float* up = grow(up_, n * si);
  float* cosv = grow(cos_, n * half);
  float* sinv = grow(sin_, n * half);
  // A row through part of the layers is the last (forward checks): at each layer, the items that go
  // through it are the first `active` ones.
  const int layers = c.num_layers;
  int64_t full = 0;
  while (full < n && items_[full].first_layer == 0 && items_[full].end_layer == layers) ++full;
  const int part_first = full < n ? items_[full].first_layer : 0, part_end = full < n ? items_[full].end_layer : 0;
  int64_t active = n;
  auto kept = [&](const Item& it) {  // where a row of a chunk through part of the layers waits
    PartialChunk& p = partial_[static_cast<size_t>(it.slot)];
    return p.hidden.data() + static_cast<int64_t>(it.pos - p.base) * hidden;
  };
  // Attention: one scratch per thread, sized for the largest block (it does not grow with the context).
  const int64_t attention_stride = kernels::causal_attention_scratch_floats(
      attention_block_rows(c, std::max(kernels_->attention_queries, kernels_->prompt_attention_queries)), group, hd);
  float* attention_scratch = grow(attention_scratch_, threads * attention_stride);
  // Row-wise work (norms, rotary, KV writes) goes over the pool for prefill chunks: on this thread
  // alone it kept the others waiting (with the matmuls on AMX, this function's own code was ~7% of a
  // 512-token prefill's profile on 2 threads), and for decode steps of 4 rows or more (B=8 q8_0
  // decode on 2 threads: 176-178 -> 182-183 tok/s; B=4 unchanged). Steps of 1-3 rows stay here
  // (waking the pool would cost more than they do).
  // in_ranges(count, fn) calls fn(begin, end) over ranges covering [0, count).
  auto in_ranges = [&](int64_t count, auto&& fn) {
    constexpr int64_t kParallelRowsMin = 4;
    if (active < kParallelRowsMin || threads == 1) {
      fn(int64_t{0}, count);
      return;
    }
    const int64_t tasks = std::min<int64_t>(count, 4 * static_cast<int64_t>(threads));
    pool_->run(tasks, [&](int64_t task, int) { fn(count * task / tasks, count * (task + 1) / tasks); });
  };
  auto each_row = [&](auto&& fn) {
    in_ranges(active, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) fn(t);
    });
  };

  // The chunk's matrix products, rows [0, rows) of `in`, row r a prompt position if is_prompt(r). On
  // AMX, prompt rows of F16 weights take a kernel of their own (KernelTable::prompt_f16_tiles):
  // generated rows then prompt rows (how the engine orders a step) are one product that reads each
  // weight block once for both kinds; any other order, one product per run of a kind.
  auto matmul = [&](std::span<const MatmulTarget> targets, const float* in, int64_t ldx, int64_t rows,
                    auto&& is_prompt) {
    bool by_kind = false;
    for (const MatmulTarget& t : targets) by_kind |= kernels_->matmul_by_kind(t.w->dtype);
    int64_t prompt_begin = 0;
    while (prompt_begin < rows && !is_prompt(prompt_begin)) ++prompt_begin;
    int64_t e = prompt_begin;
    while (e < rows && is_prompt(e)) ++e;
    if (!by_kind || e == rows) {
      kernels::parallel_matmul(*pool_, *kernels_, targets, in, ldx, rows, prompt_begin);
      return;
    }
    for (int64_t b = 0; b < rows;) {
      const bool prompt = is_prompt(b);
      e = b + 1;
      while (e < rows && is_prompt(e) == prompt) ++e;
      const auto run = kernels::targets_from_row(targets, b);
      kernels::parallel_matmul(*pool_, *kernels_, std::span(run.data(), targets.size()), in + b * ldx, ldx, e - b,
                               prompt ? 0 : -1);
      b = e;
    }
  };
  auto item_is_prompt = [&](int64_t t) { return items_[t].prompt; };

  for (int64_t t = 0; t < n; ++t) {
    const Item& it = items_[t];
    if (it.first_layer == 0) {
      kernels::convert_row(w.embed.dtype, row_data(w.embed, it.token, embed_row_), hidden, x + t * sx);
    } else {  // where an earlier forward left it
      std::copy(kept(it), kept(it) + hidden, x + t * sx);
    }
    for (int64_t i = 0; i < half; ++i) {
      // Angles in double: positions run to tens of thousands, where fp32 angles drift.
      const double a = static_cast<double>(it.pos) * inv_freq_[i];
      cosv[t * half + i] = static_cast<float>(std::cos(a));
      sinv[t * half + i] = static_cast<float>(std::sin(a));
    }
  }

  int64_t planned = -1;
  for (int l = 0; l < layers; ++l) {
    active = full + (part_first <= l && l < part_end ? n - full : 0);
    if (active == 0) continue;
    if (active != planned) plan_attention(static_cast<int>(planned = active));
    const Qwen3LayerWeights& lw = w.layers[l];
    const LayerNorms& nw = norms_[l];

    each_row([&](int64_t t) { rms_norm(x + t * sx, nw.attn.data(), hidden, eps, h + t * sx); });
    const MatmulTarget qkv[] = {{&lw.q_proj, q, sq, false}, {&lw.k_proj, k, skv, false}, {&lw.v_proj, v, skv, false}};
    matmul(qkv, h, sx, active, item_is_prompt);

    // Row t's queries of KV head g's group and its key, normed and rotated, and its value in the cache.
    auto prepare_head = [&](int64_t t, int64_t g) {
      const Item& it = items_[t];
      const float* ct = cosv + t * half;
      const float* st = sinv + t * half;
      for (int64_t hh = g * group; hh < (g + 1) * group; ++hh) {
        float* qh = q + t * sq + hh * hd;
        rms_norm(qh, nw.q.data(), hd, eps, qh);
        rope(qh, ct, st, half);
      }
      float* kh = k + t * skv + g * hd;
      rms_norm(kh, nw.k.data(), hd, eps, kh);
      rope(kh, ct, st, half);
      // Values go into the cache as a row per head (keys below).
      kernels_->f16_row(v + t * skv + g * hd, hd, kv_->values(it.slot, l) + kv_->value_index(it.pos, g * hd), 1);
    };
    // Keys go transposed into their block (a column of kBlock-element rows). For a prefill, 16 head dims
    // at a time for every row, so that consecutive positions fill each line in turn: key by key, each
    // scattered its values over kvdim lines (~5% of a 512-token prefill).
    auto write_keys = [&](int64_t t, int64_t d0, int64_t d1) {
      const Item& it = items_[t];
      uint16_t* kc = kv_->keys(it.slot, l) + kv_->key_index(it.pos, 0);
      kernels_->f16_row(k + t * skv + d0, d1 - d0, kc + d0 * KvCache::kBlock, KvCache::kBlock);
    };
    if (!attention_prepares_rows_) {
      each_row([&](int64_t t) {
        for (int64_t g = 0; g < kv_heads; ++g) prepare_head(t, g);
      });
      in_ranges((kvdim + 15) / 16, [&](int64_t tile_begin, int64_t tile_end) {
        for (int64_t d0 = 16 * tile_begin; d0 < std::min(kvdim, 16 * tile_end); d0 += 16) {
          for (int64_t t = 0; t < active; ++t) write_keys(t, d0, std::min(kvdim, d0 + 16));
        }
      });
    }

    // Causal attention: a token sees its slot's positions up to its own, all of which (earlier chunks,
    // earlier tokens of this chunk) are in the cache by now. One task per block of consecutive
    // positions and KV head: the group of query heads sharing that KV head reads each K/V tile once.
    // Where every slot's rows are one block (decode and verification steps), no task reads rows that
    // another writes, and a task first prepares its own rows' heads: two pool jobs fewer a layer.
    pool_->run(static_cast<int64_t>(attention_tasks_.size()), [&](int64_t task, int worker) {
      const AttentionTask& at = attention_tasks_[static_cast<size_t>(task)];
      const AttentionBlock& b = attention_blocks_[static_cast<size_t>(at.block)];
      const Item& it = items_[b.first];
      const int64_t g0 = at.first_head, heads_per_task = at.heads;
      if (attention_prepares_rows_) {
        for (int64_t g = g0; g < g0 + heads_per_task; ++g) {
          for (int64_t t = b.first; t < b.first + b.rows; ++t) {
            prepare_head(t, g);
            write_keys(t, g * hd, (g + 1) * hd);
          }
        }
      }
      for (int64_t g = g0; g < g0 + heads_per_task; ++g) {
        kernels::CausalAttentionArgs a;
        a.q = q + b.first * sq + g * group * hd;
        a.q_stride = sq;
        a.k = kv_->keys(it.slot, l) + kv_->key_index(0, g * hd);
        a.k_block_stride = kv_->block_stride();
        a.v = kv_->values(it.slot, l) + kv_->value_index(0, g * hd);
        a.v_block_stride = kv_->block_stride();
        a.v_stride = hd;
        a.out = attn + b.first * sq + g * group * hd;
        a.out_stride = sq;
        a.pos0 = it.pos;
        a.rows = b.rows;
        a.heads = group;
        a.dim = hd;
        a.scale = scale;
        a.scratch = attention_scratch + worker * attention_stride;
        if (g + 1 < g0 + heads_per_task) {  // the next head's first tile
          a.next_k = a.k + kv_->key_index(0, hd) - kv_->key_index(0, 0);
          a.next_v = a.v + kv_->value_index(0, hd) - kv_->value_index(0, 0);
          a.next_count = it.pos + b.rows;
        }
        (it.prompt ? prompt_attention_ : kernels_->causal_attention)(a);
      }
    });

    const MatmulTarget o[] = {{&lw.o_proj, x, sx, true}};
    matmul(o, attn, sq, active, item_is_prompt);

    each_row([&](int64_t t) { rms_norm(x + t * sx, nw.ffn.data(), hidden, eps, h + t * sx); });
    const MatmulTarget gate_up[] = {{&lw.gate_proj, gate, si, false}, {&lw.up_proj, up, si, false}};
    matmul(gate_up, h, sx, active, item_is_prompt);

    constexpr int64_t kSiluBlock = 1024;
    const int64_t parts = (inter + kSiluBlock - 1) / kSiluBlock;
    in_ranges(active * parts, [&](int64_t first, int64_t last) {
      for (int64_t task = first; task < last; ++task) {
        float* g = gate + (task / parts) * si;
        const float* u = up + (task / parts) * si;
        const int64_t begin = (task % parts) * kSiluBlock, end = std::min(inter, begin + kSiluBlock);
        kernels_->silu_mul(g + begin, u + begin, end - begin);
      }
    });

    const MatmulTarget down[] = {{&lw.down_proj, x, sx, true}};
    matmul(down, gate, si, active, item_is_prompt);
  }
  for (int64_t t = full; t < n && part_end < layers; ++t) {  // for the forward that goes on
    const Item& it = items_[t];
    std::copy(x + t * sx, x + t * sx + hidden, kept(it));
  }

  // Logits only for the positions asked for; they are consecutive rows of the output.
  int64_t m = 0;
  logit_items_.clear();
  for (int64_t t = 0; t < n; ++t) {
    if (!items_[t].wants_logits) continue;
    rms_norm(x + t * sx, final_norm_.data(), hidden, eps, h + (m++) * sx);
    logit_items_.push_back(static_cast<int>(t));
  }
  if (m > 0) {
    const int64_t vocab = c.vocab_size;
    const MatmulTarget head[] = {{&w.lm_head, logits.data() + logits_row * vocab, vocab, false}};
    matmul(head, h, sx, m, [&](int64_t r) { return items_[logit_items_[r]].prompt; });
    logits_row += m;
  }
  for (const Item& it : items_)
    if (it.end_layer == layers) kv_->set_length(it.slot, it.pos + 1);
}

}  // namespace ninfer::models::qwen3
