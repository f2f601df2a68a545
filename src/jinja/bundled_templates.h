// The chat templates compiled into the binary (generated at build time from src/jinja/templates/*.jinja).
#pragma once

#include <span>
#include <string_view>

namespace ninfer::jinja {

struct BundledTemplate {
  std::string_view name;
  std::string_view source;
};

std::span<const BundledTemplate> bundled_templates();

}  // namespace ninfer::jinja
