#include "text/json_text.h"

#include <cstdio>

namespace ninfer::text {
namespace {

void dump_string(std::string& out, const std::string& s, bool ensure_ascii) {
  out.push_back('"');
  for (size_t i = 0; i < s.size();) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    char buf[16];
    if (c == '"') { out += "\\\""; ++i; continue; }
    if (c == '\\') { out += "\\\\"; ++i; continue; }
    if (c < 0x20) {
      switch (c) {
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default: std::snprintf(buf, sizeof buf, "\\u%04x", c); out += buf;
      }
      ++i;
      continue;
    }
    if (c < 0x80 || !ensure_ascii) { out.push_back(static_cast<char>(c)); ++i; continue; }
    // Decode one UTF-8 sequence (input comes from a JSON parser, so it is valid).
    int len = (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : 4;
    uint32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (int k = 1; k < len && i + k < s.size(); ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      std::snprintf(buf, sizeof buf, "\\u%04x\\u%04x", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
    } else {
      std::snprintf(buf, sizeof buf, "\\u%04x", cp);
    }
    out += buf;
  }
  out.push_back('"');
}

void dump(std::string& out, const nlohmann::ordered_json& v, const JsonStyle& st) {
  switch (v.type()) {
    case nlohmann::json::value_t::object: {
      out.push_back('{');
      bool first = true;
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (!first) out += st.spaces ? ", " : ",";
        first = false;
        dump_string(out, it.key(), st.ensure_ascii);
        out += st.spaces ? ": " : ":";
        dump(out, it.value(), st);
      }
      out.push_back('}');
      break;
    }
    case nlohmann::json::value_t::array: {
      out.push_back('[');
      bool first = true;
      for (const auto& e : v) {
        if (!first) out += st.spaces ? ", " : ",";
        first = false;
        dump(out, e, st);
      }
      out.push_back(']');
      break;
    }
    case nlohmann::json::value_t::string: dump_string(out, v.get_ref<const std::string&>(), st.ensure_ascii); break;
    default: out += v.dump(); break;
  }
}

}  // namespace

std::string dump_json(const nlohmann::ordered_json& value, const JsonStyle& style) {
  std::string out;
  dump(out, value, style);
  return out;
}

}  // namespace ninfer::text
