#include "models/kernels/thread_pool.h"

#include <chrono>
#include <stdexcept>

namespace ninfer::models::kernels {

namespace {

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

// How long an idle worker keeps polling for the next job before it blocks: long enough to bridge the
// serial bits between the matmuls of one forward pass, short enough not to burn a core between calls.
constexpr auto kSpinTime = std::chrono::microseconds(300);

}  // namespace

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  workers_.reserve(threads - 1);
  for (int i = 1; i < threads; ++i) workers_.emplace_back([this, i] { worker_loop(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::work(int worker) {
  for (;;) {
    const uint64_t claim = next_.fetch_add(1, std::memory_order_acq_rel);
    const uint64_t tasks = claim >> 32, task = claim & 0xffffffffu;
    if (task >= tasks) return;
    call_(ctx_, static_cast<int64_t>(task), worker);
    done_.fetch_add(1, std::memory_order_release);
  }
}

void ThreadPool::run_erased(int64_t tasks, Call call, void* ctx) {
  if (tasks <= 0) return;
  if (workers_.empty() || tasks == 1) {
    // Not worth waking anyone; workers never see this job.
    for (int64_t t = 0; t < tasks; ++t) call(ctx, t, 0);
    return;
  }
  if (tasks >= (int64_t{1} << 31)) throw std::invalid_argument("ThreadPool: too many tasks");
  call_ = call;
  ctx_ = ctx;
  done_.store(0, std::memory_order_relaxed);
  next_.store(static_cast<uint64_t>(tasks) << 32, std::memory_order_release);
  {
    // Under the mutex so that a worker about to block cannot miss the new generation.
    std::lock_guard<std::mutex> lock(mutex_);
    generation_.fetch_add(1, std::memory_order_release);
  }
  wake_.notify_all();
  work(0);
  // Only tasks that workers have claimed and not finished remain.
  unsigned spins = 0;
  while (done_.load(std::memory_order_acquire) != tasks) {
    if (++spins < 4096) {
      cpu_relax();
    } else {
      std::this_thread::yield();
    }
  }
  // Leave the claims exhausted, so a late worker's fetch_add is harmless until the next job.
  next_.store(0, std::memory_order_relaxed);
}

void ThreadPool::worker_loop(int worker) {
  uint64_t seen = 0;
  for (;;) {
    uint64_t gen = generation_.load(std::memory_order_acquire);
    if (gen == seen) {
      const auto deadline = std::chrono::steady_clock::now() + kSpinTime;
      for (unsigned i = 1;; ++i) {
        gen = generation_.load(std::memory_order_acquire);
        if (gen != seen || stop_.load(std::memory_order_relaxed)) break;
        cpu_relax();
        if ((i & 255) == 0 && std::chrono::steady_clock::now() > deadline) break;
      }
    }
    if (gen == seen && !stop_.load(std::memory_order_relaxed)) {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] {
        return generation_.load(std::memory_order_acquire) != seen || stop_.load(std::memory_order_relaxed);
      });
      gen = generation_.load(std::memory_order_acquire);
    }
    if (stop_.load(std::memory_order_relaxed)) return;
    seen = gen;
    work(worker);
  }
}

}  // namespace ninfer::models::kernels
