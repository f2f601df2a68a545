// A small persistent pool for the forward pass: the caller and size()-1 workers split the tasks of one
// job at a time. Jobs are short (one matmul, one attention step) and follow each other closely, so the
// workers spin a little before sleeping, and a job costs no allocation (the callable is passed by
// reference, type-erased to a function pointer).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>

namespace ninfer::models::kernels {

class ThreadPool {
 public:
  // `threads` counts the caller too; 0 = std::thread::hardware_concurrency().
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  // Calls fn(task, worker) once for every task in [0, tasks), worker in [0, size()) naming the
  // thread (for per-thread scratch). Returns when all tasks are done. fn must not throw and must not
  // call run() on the same pool.
  template <class F>
  void run(int64_t tasks, F&& fn) {
    using Fn = std::remove_reference_t<F>;
    run_erased(
        tasks,
        [](void* ctx, int64_t task, int worker) { (*static_cast<Fn*>(ctx))(task, worker); },
        const_cast<void*>(static_cast<const void*>(&fn)));
  }

 private:
  using Call = void (*)(void*, int64_t, int);
  void run_erased(int64_t tasks, Call call, void* ctx);
  void worker_loop(int worker);
  void work(int worker);  // claims and runs tasks until the current job has none left

  std::vector<std::thread> workers_;
  // The current job. call_/ctx_ are written before `next_` publishes the job and read only by a thread
  // holding a valid claim, which the caller outlives (it waits for `done_`).
  Call call_ = nullptr;
  void* ctx_ = nullptr;
  // Claims: task count in the high 32 bits, next task index in the low 32. A fetch_add returning an
  // index below the count is a claim on the current job, whatever job the claimer thought it was
  // helping with, so a worker that slept through jobs can never run a stale one, and the caller
  // never waits for a worker that took no task.
  std::atomic<uint64_t> next_{0};
  std::atomic<int64_t> done_{0};
  std::atomic<uint64_t> generation_{0};  // bumped per job: what idle workers watch
  std::atomic<bool> stop_{false};
  std::mutex mutex_;
  std::condition_variable wake_;
};

}  // namespace ninfer::models::kernels
