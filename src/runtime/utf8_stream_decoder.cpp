#include "runtime/utf8_stream_decoder.h"

namespace ninfer::runtime {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";

// Length of the sequence a lead byte starts, or 0 for a byte that cannot start one.
int sequence_length(unsigned char c) {
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return 2;
  if (c >= 0xE0 && c <= 0xEF) return 3;
  if (c >= 0xF0 && c <= 0xF4) return 4;
  return 0;
}

// Whether byte i (1-based within the sequence) may follow `lead` (excludes overlongs and surrogates).
bool valid_continuation(unsigned char lead, int i, unsigned char c) {
  if ((c & 0xC0) != 0x80) return false;
  if (i != 1) return true;
  if (lead == 0xE0) return c >= 0xA0;
  if (lead == 0xED) return c <= 0x9F;
  if (lead == 0xF0) return c >= 0x90;
  if (lead == 0xF4) return c <= 0x8F;
  return true;
}

}  // namespace

std::string Utf8StreamDecoder::push(std::string_view bytes) {
  std::string in = held_;
  in.append(bytes);
  held_.clear();
  std::string out;
  out.reserve(in.size());
  size_t i = 0;
  while (i < in.size()) {
    const unsigned char lead = static_cast<unsigned char>(in[i]);
    const int len = sequence_length(lead);
    if (len == 0) {
      out.append(kReplacement);
      ++i;
      continue;
    }
    int have = 1;
    while (have < len && i + have < in.size() && valid_continuation(lead, have, static_cast<unsigned char>(in[i + have])))
      ++have;
    if (have == len) {
      out.append(in, i, len);
      i += len;
    } else if (i + have == in.size()) {
      held_ = in.substr(i);  // incomplete but still viable: wait for more bytes
      break;
    } else {
      out.append(kReplacement);  // broken sequence: one replacement, resume at the offending byte
      i += have;
    }
  }
  return out;
}

std::string Utf8StreamDecoder::flush() {
  std::string out;
  if (!held_.empty()) out.append(kReplacement);
  held_.clear();
  return out;
}

}  // namespace ninfer::runtime
