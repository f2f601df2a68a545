// Incremental UTF-8 publication: token bytes go in, only whole characters come out. A trailing
// incomplete sequence is held until its continuation bytes arrive; bytes that can never form a
// character are published as U+FFFD (as Hugging Face decode does), so published text is always valid.
#pragma once

#include <string>
#include <string_view>

namespace ninfer::runtime {

class Utf8StreamDecoder {
 public:
  // Appends bytes; returns the text that became complete. Pure with respect to `*this` when
  // `preview` is used: see OutputSession.
  std::string push(std::string_view bytes);
  // Text the held bytes would publish if the stream ended now (U+FFFD per broken sequence).
  std::string flush();
  const std::string& held() const { return held_; }
  void set_held(std::string held) { held_ = std::move(held); }

 private:
  std::string held_;
};

}  // namespace ninfer::runtime
