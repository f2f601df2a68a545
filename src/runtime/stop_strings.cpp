#include "runtime/stop_strings.h"

#include <algorithm>

namespace ninfer::runtime {

StopStrings::StopStrings(std::vector<std::string> stops) : stops_(std::move(stops)) {
  std::erase_if(stops_, [](const std::string& s) { return s.empty(); });
  for (const std::string& s : stops_) longest_ = std::max(longest_, s.size());
}

std::string StopStrings::push(std::string_view text) {
  if (stopped_) return "";
  if (stops_.empty()) return std::string(text);
  const size_t old_size = held_.size();
  held_.append(text);
  // Generation stops when the first stop string is complete: scan the new end positions in order
  // (earlier ends were checked by earlier pushes); at one end, the longest stop starts first.
  for (size_t end = old_size + 1; end <= held_.size(); ++end) {
    size_t start = std::string::npos;
    for (size_t k = 0; k < stops_.size(); ++k) {
      const std::string& s = stops_[k];
      if (s.size() <= end && held_.compare(end - s.size(), s.size(), s) == 0 && end - s.size() < start)
        start = end - s.size(), matched_ = k;
    }
    if (start != std::string::npos) {
      stopped_ = true;
      std::string out = held_.substr(0, start);
      held_.clear();
      return out;
    }
  }
  // Hold back the longest tail that is a proper prefix of some stop string.
  size_t keep = 0;
  for (size_t n = std::min(held_.size(), longest_ - 1); n > 0 && keep == 0; --n) {
    const std::string_view tail(held_.data() + held_.size() - n, n);
    for (const std::string& s : stops_)
      if (s.size() > n && std::string_view(s).substr(0, n) == tail) {
        keep = n;
        break;
      }
  }
  std::string out = held_.substr(0, held_.size() - keep);
  held_.erase(0, held_.size() - keep);
  return out;
}

std::string StopStrings::flush() {
  std::string out;
  out.swap(held_);
  return out;
}

}  // namespace ninfer::runtime
