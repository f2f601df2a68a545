#include "text/json_formats.h"

#include <cstdint>
#include <map>

namespace ninfer::text {
namespace {

// RFC 3339 full-date with real month lengths and leap years (Feb 29 only in leap years).
const char* kDate =
    "(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))"
    "|(?:\\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)-02-29)";
// RFC 3339 full-time: hours 00-23, seconds 00-59 (no leap seconds), a time zone is required.
const char* kTime = "(?:[01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(?:\\.\\d+)?(?:[Zz]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)";
// A DNS label of 1-63 characters, letters/digits/hyphens, no hyphen at either end, and never
// "--" at positions 3-4 (reserved for A-labels, which would need Punycode validation).
const char* kLabel =
    "[A-Za-z0-9](?:[A-Za-z0-9]|[A-Za-z0-9-][A-Za-z0-9]|[A-Za-z0-9-]{2}[A-Za-z0-9]"
    "|[A-Za-z0-9-](?:[A-Za-z0-9][A-Za-z0-9-]|-[A-Za-z0-9])[A-Za-z0-9-]{0,58}[A-Za-z0-9])?";
const char* kH16 = "[0-9A-Fa-f]{1,4}";
const char* kOctet = "(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)";

std::string ipv4() { return std::string("(?:") + kOctet + "\\.){3}" + kOctet; }

std::string ipv6() {
  const std::string h = kH16;
  const std::string ls32 = "(?:" + h + ":" + h + "|" + ipv4() + ")";
  auto upto = [&](int n) { return "(?:(?:" + h + ":){0," + std::to_string(n) + "}" + h + ")?"; };
  return "(?:(?:" + h + ":){6}" + ls32 + "|::(?:" + h + ":){5}" + ls32 + "|(?:" + h + ")?::(?:" + h + ":){4}" + ls32 +
         "|" + upto(1) + "::(?:" + h + ":){3}" + ls32 + "|" + upto(2) + "::(?:" + h + ":){2}" + ls32 + "|" + upto(3) +
         "::" + h + ":" + ls32 + "|" + upto(4) + "::" + ls32 + "|" + upto(5) + "::" + h + "|" + upto(6) + "::)";
}

// RFC 3986 URI (absolute, with optional query and fragment; hosts as reg-name).
std::string uri() {
  const std::string unreserved = "A-Za-z0-9._~\\-";
  const std::string sub = "!$&'()*+,;=";
  const std::string pct = "%[0-9A-Fa-f]{2}";
  const std::string pchar = "(?:[" + unreserved + sub + ":@]|" + pct + ")";
  const std::string segment = pchar + "*";
  const std::string segment_nz = pchar + "+";
  const std::string userinfo = "(?:(?:[" + unreserved + sub + ":]|" + pct + ")*@)?";
  const std::string host = "(?:[" + unreserved + sub + "]|" + pct + ")*";
  const std::string authority = userinfo + host + "(?::\\d*)?";
  const std::string hier = "(?://" + authority + "(?:/" + segment + ")*|/(?:" + segment_nz + "(?:/" + segment + ")*)?|" +
                           segment_nz + "(?:/" + segment + ")*|)";
  const std::string tail = "(?:[" + unreserved + sub + ":@/?]|" + pct + ")*";
  return "[A-Za-z][A-Za-z0-9+.\\-]*:" + hier + "(?:\\?" + tail + ")?(?:#" + tail + ")?";
}

}  // namespace

std::optional<std::string> string_format_regex(const std::string& f) {
  if (f == "date") return std::string(kDate);
  if (f == "time") return std::string(kTime);
  if (f == "date-time") return std::string(kDate) + "[Tt]" + kTime;
  if (f == "duration") {
    // RFC 3339 Appendix A: a year may only be followed by months, months by days, hours by
    // minutes, minutes by seconds.
    const std::string t = "T(?:\\d+H(?:\\d+M(?:\\d+S)?)?|\\d+M(?:\\d+S)?|\\d+S)";
    const std::string date = "(?:\\d+Y(?:\\d+M(?:\\d+D)?)?|\\d+M(?:\\d+D)?|\\d+D)";
    return "P(?:" + date + "(?:" + t + ")?|" + t + "|\\d+W)";
  }
  if (f == "email") {
    const std::string atom = "[A-Za-z0-9!#$%&'*+/=?^_`{|}~\\-]+";
    return atom + "(?:\\." + atom + ")*@(?:" + kLabel + "\\.)+" + kLabel;
  }
  if (f == "hostname") return std::string(kLabel) + "(?:\\." + kLabel + ")*";
  if (f == "ipv4") return ipv4();
  if (f == "ipv6") return ipv6();
  if (f == "uuid") return "[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}";
  if (f == "uri") return uri();
  return std::nullopt;
}

bool format_is_annotation(const std::string& f) {
  static const char* kDefined[] = {"date-time", "date", "time", "duration", "email", "idn-email", "hostname",
                                   "idn-hostname", "ipv4", "ipv6", "uri", "uri-reference", "iri", "iri-reference",
                                   "uuid", "uri-template", "json-pointer", "relative-json-pointer", "regex",
                                   "url", "byte", "int32", "int64"};
  if (f == "binary" || f == "password" || f == "float" || f == "double") return true;
  for (const char* d : kDefined)
    if (f == d) return false;
  return true;
}

bool format_is_defined(const std::string& f) {
  return f == "binary" || f == "password" || f == "float" || f == "double" || !format_is_annotation(f);
}

std::optional<std::pair<int64_t, int64_t>> integer_format_range(const std::string& f) {
  if (f == "int32") return std::make_pair<int64_t, int64_t>(INT32_MIN, INT32_MAX);
  if (f == "int64") return std::make_pair<int64_t, int64_t>(INT64_MIN, INT64_MAX);
  return std::nullopt;
}

}  // namespace ninfer::text
