// The memory-bandwidth floor of a decode step, measured in the bench's own process: a plain read of a
// buffer as large as the model's weights (a B=1 step reads each weight once), by as many threads as
// the model uses, timed right beside the decode rounds it is compared with. A read loop run as a
// separate program minutes away measured 45-69 GB/s on the same VM within one session, so a floor
// taken at another moment says little about a given round.
#pragma once

#include <cstddef>
#include <string>

namespace ninfer::cli {

class ReadLoop {
 public:
  // Allocates `bytes` (on huge pages where the kernel gives them, as the model's weights are) and
  // writes them once; `threads` 0 = every core.
  ReadLoop(size_t bytes, int threads);
  ~ReadLoop();
  ReadLoop(const ReadLoop&) = delete;
  ReadLoop& operator=(const ReadLoop&) = delete;

  // Whether a buffer of `bytes` leaves at least as much memory free beside it (the model's own copy
  // is already resident): a floor is not worth swapping for.
  static bool affordable(size_t bytes);

  size_t bytes() const { return bytes_; }
  // The buffer read `passes` times plainly and `passes` times asking for the lines 4 KiB ahead, each
  // pass split evenly over the threads: GB/s of the faster kind's median pass.
  double gb_per_s(int passes);

 private:
  double pass_seconds(bool ahead);

  unsigned char* data_ = nullptr;
  size_t bytes_ = 0;
  int threads_ = 1;
};

// The bytes of a model's weights as stored: a GGUF file's size, or the sum of a folder's .safetensors
// files; 0 where the path is neither (the default generated model).
size_t model_weight_bytes(const std::string& path);

}  // namespace ninfer::cli
