// Qwen3 dense forward pass on the CPU (Hugging Face Qwen3ForCausalLM): fp32 activations, weights read
// in their stored dtype (F32, F16, BF16, Q8_0) by SIMD kernels picked at run time, a fp32 KV cache per
// slot, and batches whose rows share every weight read (decode of B rows = one pass over the weights).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "models/kernels/simd_kernels.h"
#include "models/language_model.h"
#include "models/qwen3/qwen3_weights.h"
#include "ninfer/engine.h"

namespace ninfer::models {
class KvCache;
namespace kernels {
class ThreadPool;
}
}  // namespace ninfer::models

namespace ninfer::models::qwen3 {

struct Qwen3ModelOptions {
  int slots = 1;
  int max_context = 0;      // positions per slot; 0 = config.max_position_embeddings
  int threads = 0;          // compute threads including the caller; 0 = hardware concurrency
  // Tokens per pass through the layers: bounds the activation scratch (~53 KB a token on the 0.6b
  // shape). Each pass costs its layers' thread-pool rounds and a read of the weights; 512 (the
  // Engine's max_step_tokens) against 128, 2 threads, Zen 5 VM: q8_0 prompts of 512 and 2,048
  // tokens 10-11% faster, f16 5-7% (docs/models.md, "Prompt processing and decode against llama.cpp").
  int prefill_chunk = 512;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer;  // handed out by tokenizer(); may be null
  std::string name;                                       // shown by description(), e.g. "tiny"
  std::optional<kernels::Isa> isa;                        // default: the best this CPU supports
  // Which attention prompt positions take (EngineOptions::prompt_attention); description() names the
  // bf16 or int8-score kernel where it runs.
  PromptAttention prompt_attention = PromptAttention::Auto;
};

class Qwen3Model final : public LanguageModel {
 public:
  // Throws std::invalid_argument for bad options, ModelError for weights that do not fit the config.
  Qwen3Model(std::shared_ptr<const Qwen3Weights> weights, Qwen3ModelOptions options = {});
  ~Qwen3Model() override;

  int32_t vocab_size() const override;
  int max_context() const override;
  int slot_count() const override;
  std::shared_ptr<const tokenizer::Tokenizer> tokenizer() const override;
  std::string description() const override;
  int slot_length(int slot) const override;
  int layer_count() const override;
  // Also forgets a prompt chunk the slot holds part of the way through the layers.
  void truncate_slot(int slot, int length) override;
  // Rows must name distinct slots. logits_count 0 is accepted too (a prefill piece whose logits
  // nobody needs); logits must hold at least sum(logits_count) * vocab_size() floats. At most one
  // row may skip layers (a prompt row that stops before the last layer or goes on from a later
  // one than the first, ForwardRow::layers), and it is the last.
  void forward(std::span<const ForwardRow> rows, std::span<float> logits) override;
  int lendable_threads() const override;
  void lend_threads(int tasks, const std::function<void(int)>& fn) override;
  // Layout of the bytes: for each layer, the keys then the values of the positions, kv_dim floats
  // each.
  size_t kv_bytes_per_position() const override;
  void read_kv(int slot, int begin, int count, std::span<std::byte> out) const override;
  void append_kv(int slot, int count, std::span<const std::byte> in) override;

  const Qwen3Config& config() const { return weights_->config; }
  kernels::Isa isa() const { return kernels_->isa; }
  int threads() const;
  size_t kv_cache_bytes() const;

 private:
  struct Item {  // one token of the current chunk
    int slot;
    int pos;
    int32_t token;
    bool wants_logits;
    bool prompt;  // of a prompt row (ForwardRow::prompt): takes KernelTable::attention(true)
    int first_layer;  // the layers it goes through this forward: [first_layer, end_layer)
    int end_layer;
  };
  // A slot's prompt chunk between forwards, part of the way through the layers (ForwardRow::layers).
  struct PartialChunk {
    std::vector<int32_t> tokens;  // at positions [base, base + size)
    int base = 0;    int next_layer = 0;           // 0: the slot holds none
    std::vector<float> hidden;    // tokens.size() rows of hidden_size: next_layer's input
  };
  struct AttentionBlock {  // consecutive items of one slot at consecutive positions
    int first;
    int rows;
  };
  struct AttentionTask {  // KV heads [first_head, first_head + heads) of attention_blocks_[block]
    int block;
    int first_head;
    int heads;
  };
  struct LayerNorms {
    std::vector<float> attn, ffn, q, k;
  };

  void check_slot(int slot, const char* what) const;
  // read_kv's bytes (kRead) or append_kv's: positions [begin, begin + count) of a slot (copy_kv says how).
  template <bool kRead>
  using KvBytes = std::conditional_t<kRead, uint16_t*, const uint16_t*>;
  template <bool kRead>
  void copy_kv(int slot, int begin, int count, KvBytes<kRead> bytes) const;
  void run_chunk(std::span<float> logits, int64_t& logits_row);
  void plan_attention(int items);  // items_[0, items) -> attention_blocks_, attention_tasks_

  std::shared_ptr<const Qwen3Weights> weights_;
  Qwen3ModelOptions options_;
  const kernels::KernelTable* kernels_;
  void (*prompt_attention_)(const kernels::CausalAttentionArgs&) = nullptr;  // the kernel of prompt positions
  const char* prompt_attention_name_ = nullptr;  // "bf16" or "int8-score" where not the table's own (description())
  std::unique_ptr<kernels::ThreadPool> pool_;
  std::unique_ptr<KvCache> kv_;
  std::vector<LayerNorms> norms_;
  std::vector<float> final_norm_;
  std::vector<double> inv_freq_;

  // Scratch, grown on first use and then reused: a steady decode step allocates nothing.
  std::vector<Item> items_;
  std::vector<int> logit_items_;  // the items whose logits a chunk computes, in order
  std::vector<float> x_, h_, q_, k_, v_, attn_, gate_, up_, cos_, sin_, attention_scratch_;
  std::vector<AttentionBlock> attention_blocks_;
  std::vector<AttentionTask> attention_tasks_;
  std::vector<int64_t> thread_work_;  // plan_attention's estimate of each thread's share
  bool attention_prepares_rows_ = false;  // every slot's rows are one block (plan_attention)
  std::vector<uint8_t> embed_row_;  // a packed embedding's row (row_data)
  std::vector<char> slot_seen_;
  std::vector<PartialChunk> partial_;  // per slot
};

}  // namespace ninfer::models::qwen3
