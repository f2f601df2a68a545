// A thread of its own for a step's lookahead masks (issue 14, the seed's two phases per step:
// Forward, then Finish): the worker hands the mask fill over before the model's forward pass and
// waits for it after, so the mask time that shows in a step is only what the forward did not cover.
#pragma once

#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>

namespace ninfer::runtime {

class MaskThread {
 public:
  MaskThread();
  ~MaskThread();
  MaskThread(const MaskThread&) = delete;
  MaskThread& operator=(const MaskThread&) = delete;

  // Runs `job` on the mask thread. One job at a time: wait() for it before starting another.
  void start(std::function<void()> job);
  // Blocks until the job is done and rethrows what it threw.
  void wait();
  // Blocks until the job is done, dropping what it threw: for a caller that is already unwinding
  // with an error of its own, the one it reports.
  void wait_dropping_error();

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<void()> job_;
  bool busy_ = false;
  bool stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: started once the state above exists
  void run();
};

}  // namespace ninfer::runtime
