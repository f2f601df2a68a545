#include "api/json_pointer_param.h"

#include <vector>

namespace ninfer::api {
namespace {

// RFC 6901 segments with ~1 -> / and ~0 -> ~ undone.
std::vector<std::string> pointer_segments(std::string_view pointer) {
  std::vector<std::string> out;
  if (pointer.empty()) return out;
  size_t pos = pointer.front() == '/' ? 1 : 0;
  while (true) {
    const size_t end = pointer.find('/', pos);
    std::string_view raw = pointer.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
    std::string seg;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] == '~' && i + 1 < raw.size() && (raw[i + 1] == '0' || raw[i + 1] == '1')) {
        seg += raw[i + 1] == '0' ? '~' : '/';
        ++i;
      } else {
        seg += raw[i];
      }
    }
    out.push_back(std::move(seg));
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  return out;
}

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

bool plain_key(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
          c == '$'))
      return false;
  return true;
}

}  // namespace

std::string json_pointer_param(std::string_view pointer, const Json* document) {
  std::string out;
  const Json* node = document;
  for (const std::string& seg : pointer_segments(pointer)) {
    const bool index = node ? node->is_array() && all_digits(seg) : all_digits(seg);
    if (index) out += "[" + seg + "]";
    else if (plain_key(seg)) out += "." + seg;
    else out += "[" + Json(seg).dump(-1, ' ', false, Json::error_handler_t::replace) + "]";
    if (!node) continue;
    if (node->is_array() && index) {
      const size_t i = seg.size() < 10 ? std::stoul(seg) : node->size();
      node = i < node->size() ? &(*node)[i] : nullptr;
    } else if (node->is_object()) {
      auto it = node->find(seg);
      node = it == node->end() ? nullptr : &*it;
    } else {
      node = nullptr;
    }
  }
  return out;
}

}  // namespace ninfer::api
