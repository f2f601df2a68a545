// Stop strings (OpenAI `stop`): generation ends as soon as the text holds one of them (the first to
// be complete), the output ends before it, and the stop string itself is never published. Text that could still become a stop string is held back
// from the stream until the next commit decides, so a stream never shows what the result drops.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ninfer::runtime {

class StopStrings {
 public:
  StopStrings() = default;
  explicit StopStrings(std::vector<std::string> stops);

  bool empty() const { return stops_.empty(); }
  // Adds committed text; returns the text that may be published now. After a match, `stopped()` is
  // true and everything from the stop string on is dropped.
  std::string push(std::string_view text);
  bool stopped() const { return stopped_; }
  // The stop string that ended generation (valid when stopped()).
  const std::string& matched() const { return stops_[matched_]; }
  // The held-back tail (at the end of a request that did not stop).
  std::string flush();

 private:
  std::vector<std::string> stops_;
  size_t longest_ = 0;
  std::string held_;
  bool stopped_ = false;
  size_t matched_ = 0;
};

}  // namespace ninfer::runtime
