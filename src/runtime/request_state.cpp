#include "runtime/request.h"

namespace ninfer {

void RequestState::publish(StreamEvent event) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
  }
  cv_.notify_all();
}

void RequestState::finish(GenerationResult result) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(result);
    StreamEvent last;
    last.done = true;
    events_.push_back(std::move(last));
    done_ = true;
  }
  cv_.notify_all();
}

std::optional<StreamEvent> RequestState::next() {
  std::unique_lock<std::mutex> lock(mu_);
  if (final_taken_) return std::nullopt;
  cv_.wait(lock, [&] { return !events_.empty(); });
  StreamEvent e = std::move(events_.front());
  events_.pop_front();
  if (e.done) final_taken_ = true;
  return e;
}

GenerationResult RequestState::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  return result_;
}

uint64_t RequestHandle::id() const { return state_ ? state_->id() : 0; }
std::optional<StreamEvent> RequestHandle::next() { return state_ ? state_->next() : std::nullopt; }
GenerationResult RequestHandle::wait() {
  if (!state_) throw std::logic_error("wait on an empty RequestHandle");
  return state_->wait();
}
void RequestHandle::cancel() {
  if (state_) state_->cancel();
}

}  // namespace ninfer
