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
  held_.append(text);
  size_t first = std::string::npos;
  for (const std::string& s : stops_) first = std::min(first, held_.find(s));
  if (first != std::string::npos) {
    stopped_ = true;
    std::string out = held_.substr(0, first);
    held_.clear();
    return out;
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
