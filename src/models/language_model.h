// The one interface the runtime sees of a model: a forward pass over rows of a batch, each row a
// sequence slot with its own KV cache, and logits for the trailing positions the caller asks for.
// Shaped for speculative decoding from the start: a row may carry K draft tokens after its committed
// one and ask for K+1 logit rows, and a slot can be truncated back when drafts are rejected.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>

namespace ninfer::tokenizer {
class Tokenizer;
}

namespace ninfer::models {

struct ForwardRow {
  int slot = 0;                          // sequence slot (KV cache) this row extends
  std::span<const int32_t> tokens;       // new tokens, written at positions [slot length, +size)
  int logits_count = 1;                  // logits wanted for the last `logits_count` tokens (1..tokens.size())
  // Prompt tokens (prefill), not generated ones (a decode step, drafts under verification). A model
  // may compute the two kinds with different kernels, so that its bits depend on the kind: each
  // kind's bits never depend on how the rows are batched or a prompt is chunked.
  bool prompt = false;
  // A prompt row may go through the model's layers over several forwards (layer_count() > 1):
  // `layers` of them this forward, 0 for all that are left. Its positions join the slot (its
  // length) with their last layer; until then the slot's next row must be the same tokens, going on
  // from the layer where they stopped, and asks no logits before that last layer. A long prompt
  // beside decoding rows then goes in chunks large enough to read its keys and values once for
  // many positions, a few layers a step, instead of a few positions a step through every layer.
  int layers = 0;
};

class LanguageModel {
 public:
  virtual ~LanguageModel() = default;

  virtual int32_t vocab_size() const = 0;  // logits width (may exceed the tokenizer's id space)
  virtual int max_context() const = 0;     // positions per slot
  virtual int slot_count() const = 0;
  virtual std::shared_ptr<const tokenizer::Tokenizer> tokenizer() const = 0;
  virtual std::string description() const = 0;  // e.g. "qwen3 tiny (bf16, 4 layers, 151936 vocab)"
  // The layers a prompt row may be cut between (ForwardRow::layers); 1: every row takes them all.
  virtual int layer_count() const { return 1; }

  // Length (committed positions) of a slot's KV cache.
  virtual int slot_length(int slot) const = 0;
  // Forget positions >= length (rejected drafts, a finished request: truncate_slot(s, 0)).
  virtual void truncate_slot(int slot, int length) = 0;

  // Runs the rows as one batch. `logits` receives sum(logits_count) rows of vocab_size() floats,
  // in row order, each row's positions in order. Appends the rows' tokens to their slots.
  // Throws std::invalid_argument for a bad slot, an empty row or a row past max_context().
  virtual void forward(std::span<const ForwardRow> rows, std::span<float> logits) = 0;

  // The threads the model computes with, lent between forward passes for the caller's work on their
  // outputs (sampling a batch's rows): they have just finished the pass and still poll for work, so
  // the first task starts at once, where a thread of the caller's would have to be woken.
  // lend_threads runs fn(task) once for every task in [0, tasks), spread over up to
  // lendable_threads() threads (the calling one among them), and returns when all are done. fn
  // must not throw and must not call into the model. The default lends none: the calling thread
  // runs every task in order.
  virtual int lendable_threads() const { return 1; }
  virtual void lend_threads(int tasks, const std::function<void(int)>& fn) {
    for (int t = 0; t < tasks; ++t) fn(t);
  }

  // The prefix cache's access to the KV state, as opaque bytes: kv_bytes_per_position() bytes per
  // position (0: the model cannot export its state, and no prefix is ever reused). read_kv copies
  // positions [begin, begin + count) of a slot out; append_kv writes `count` positions at the
  // slot's end, exactly as read_kv gave them, so that a forward after it computes bit for bit
  // what it would have after computing those positions itself.
  virtual size_t kv_bytes_per_position() const { return 0; }
  virtual void read_kv(int /*slot*/, int /*begin*/, int /*count*/, std::span<std::byte> /*out*/) const {
    throw std::logic_error("this model does not export its KV state");
  }
  virtual void append_kv(int /*slot*/, int /*count*/, std::span<const std::byte> /*in*/) {
    throw std::logic_error("this model does not import KV state");
  }
};

}  // namespace ninfer::models
