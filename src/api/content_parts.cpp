#include "api/content_parts.h"

namespace ninfer::api {

void for_each_content_part(const Field& content, const std::string& expected,
                           const std::function<void(const Field& part, const Field& type)>& visit) {
  if (!content.json().is_array()) content.fail_type(expected);
  for (size_t j = 0; j < content.json().size(); ++j) {
    const Field part = content.element(j);
    part.object();
    visit(part, part.required_member("type"));
  }
}

std::string joined_content_text(const Field& content, const std::string& expected,
                                const std::function<std::string(const Field& part, const Field& type)>& part_text) {
  if (content.json().is_string()) return content.string();
  std::string text;
  bool first = true;
  for_each_content_part(content, expected, [&](const Field& part, const Field& type) {
    std::string t = part_text(part, type);
    if (!first) text += "\n";
    text += t;
    first = false;
  });
  return text;
}

}  // namespace ninfer::api
