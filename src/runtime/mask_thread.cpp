#include "runtime/mask_thread.h"

#include <stdexcept>
#include <utility>

namespace ninfer::runtime {

MaskThread::MaskThread() : thread_([this] { run(); }) {}

MaskThread::~MaskThread() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void MaskThread::start(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (busy_) throw std::logic_error("mask thread: a job is already running");
    job_ = std::move(job);
    busy_ = true;
    error_ = nullptr;
  }
  cv_.notify_all();
}

void MaskThread::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !busy_; });
  if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void MaskThread::wait_dropping_error() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return !busy_; });
  error_ = nullptr;
}

void MaskThread::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    cv_.wait(lock, [this] { return stop_ || (busy_ && job_); });
    if (stop_) return;
    std::function<void()> job = std::move(job_);
    job_ = nullptr;
    lock.unlock();
    std::exception_ptr error;
    try {
      job();
    } catch (...) {
      error = std::current_exception();
    }
    lock.lock();
    error_ = error;
    busy_ = false;
    cv_.notify_all();
  }
}

}  // namespace ninfer::runtime
