#include "runtime/request.h"

namespace ninfer {

void RequestState::publish(StreamEvent event) {
  std::function<void()> notify;
  {
    std::lock_guard<std::mutex> lock(mu_);
    events_.push_back(std::move(event));
    notify = notify_;
  }
  cv_.notify_all();
  if (notify) notify();
}

void RequestState::finish(GenerationResult result) {
  std::function<void()> notify;
  {
    std::lock_guard<std::mutex> lock(mu_);
    result_ = std::move(result);
    StreamEvent last;
    last.done = true;
    events_.push_back(std::move(last));
    done_ = true;
    notify = notify_;
  }
  cv_.notify_all();
  if (notify) notify();
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

std::optional<StreamEvent> RequestState::try_next() {
  std::lock_guard<std::mutex> lock(mu_);
  if (final_taken_ || events_.empty()) return std::nullopt;
  StreamEvent e = std::move(events_.front());
  events_.pop_front();
  if (e.done) final_taken_ = true;
  return e;
}

void RequestState::set_notify(std::function<void()> notify) {
  bool waiting;
  {
    std::lock_guard<std::mutex> lock(mu_);
    notify_ = notify;
    waiting = !events_.empty();
  }
  if (waiting && notify) notify();
}

GenerationResult RequestState::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return done_; });
  return result_;
}

uint64_t RequestHandle::id() const { return state_ ? state_->id() : 0; }
std::optional<StreamEvent> RequestHandle::next() { return state_ ? state_->next() : std::nullopt; }
std::optional<StreamEvent> RequestHandle::try_next() { return state_ ? state_->try_next() : std::nullopt; }
void RequestHandle::set_notify(std::function<void()> notify) {
  if (state_) state_->set_notify(std::move(notify));
}
GenerationResult RequestHandle::wait() {
  if (!state_) throw std::logic_error("wait on an empty RequestHandle");
  return state_->wait();
}
void RequestHandle::cancel() {
  if (state_) state_->cancel();
}

}  // namespace ninfer
