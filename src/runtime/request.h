// A request inside the engine: the handle-visible state (events, result, cancellation) shared with
// the caller, and the worker-owned execution state (session, slot, generated tokens).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "ninfer/engine.h"
#include "ops/draft_acceptance.h"
#include "ops/sampling.h"
#include "runtime/output_session.h"
#include "runtime/stop_strings.h"
#include "speculative/draft_length.h"

namespace ninfer {

// Shared between the caller's RequestHandle and the Engine worker.
class RequestState {
 public:
  explicit RequestState(uint64_t id) : id_(id) {}
  uint64_t id() const { return id_; }

  void publish(StreamEvent event);
  void finish(GenerationResult result);  // publishes the final event
  std::optional<StreamEvent> next();
  std::optional<StreamEvent> try_next();
  void set_notify(std::function<void()> notify);
  GenerationResult wait();
  void cancel() { cancelled_.store(true, std::memory_order_relaxed); }
  bool cancelled() const { return cancelled_.load(std::memory_order_relaxed); }

 private:
  uint64_t id_;
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<StreamEvent> events_;
  bool done_ = false;
  bool final_taken_ = false;
  GenerationResult result_;
  std::function<void()> notify_;  // set once by an event-driven consumer; read under mu_
};

namespace runtime {

using Clock = std::chrono::steady_clock;

// What a chat prompt's output is split by when the request finishes.
struct ChatTurn {
  OutputStart start = OutputStart::Body;
  std::vector<ToolDefinition> tools;
  ToolCallFormat format = ToolCallFormat::Json;
  std::optional<std::string> continuation;
};

struct Request {
  std::shared_ptr<RequestState> state;
  std::vector<int32_t> prompt;
  RequestOptions options;
  uint64_t seed = 0;
  uint64_t tool_call_id_seed = 0;  // RequestOptions::tool_call_id_seed, else `seed`
  std::unique_ptr<OutputSession> session;
  StopStrings stops;
  std::optional<ChatTurn> chat;
  Clock::time_point submitted;
  Clock::time_point enqueued;
  Clock::time_point started;

  // Worker-owned execution state.
  int slot = -1;
  size_t prompt_done = 0;   // prompt positions in the slot (restored or computed)
  size_t cached_tokens = 0; // of which restored from the prefix cache
  bool prefilled = false;   // the whole prompt is in, and the first token was sampled
  // A chunk part of the way through the model's layers (models::ForwardRow::layers): its positions,
  // from prompt_done on (0: none), and the layers they have gone through.
  size_t chunk_positions = 0;
  int chunk_layers = 0;
  std::vector<int32_t> generated;
  std::string text;
  std::vector<ops::TokenCount> penalties;
  std::unordered_map<int32_t, size_t> penalty_index;
  // Speculative decoding: this step's drafts, the row's draft length, and what its drafts did.
  std::vector<int32_t> drafts;
  std::vector<ops::DraftQ> draft_q;  // empty when every draft is one-hot
  int forced_drafts = 0;             // of this step's drafts, the constraint's forced tokens (first)
  speculative::DraftLength draft_length;
  DraftCounts draft_counts;

  void count_token(int32_t t) {
    auto [it, inserted] = penalty_index.try_emplace(t, penalties.size());
    if (inserted)
      penalties.push_back({t, 1});
    else
      ++penalties[it->second].count;
  }
};

}  // namespace runtime
}  // namespace ninfer
