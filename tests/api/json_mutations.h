// Random mutations of a JSON request body for the fuzz tests: a value replaced by one of a wrong type
// or out of range (huge numbers, infinity, nesting past the limit, strings that are no JSON), removed,
// or joined by an unknown member.
#pragma once

#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "api/request_field.h"

namespace ninfer::api::testing {

// Every value in the document, as JSON Pointers (the root excluded: it stays an object), down to the
// depth of the valid body (not into a deep value an earlier mutation planted).
inline void collect(const Json& j, const Json::json_pointer& at, std::vector<Json::json_pointer>& out) {
  if (!at.empty()) out.push_back(at);
  const std::string text = at.to_string();
  if (std::count(text.begin(), text.end(), '/') >= 10) return;
  if (j.is_object())
    for (const auto& [k, v] : j.items()) collect(v, at / k, out);
  else if (j.is_array())
    for (size_t i = 0; i < j.size(); ++i) collect(j[i], at / i, out);
}

inline Json random_value(std::mt19937_64& rng) {
  switch (rng() % 14) {
    case 0: return nullptr;
    case 1: return true;
    case 2: return -1;
    case 3: return 0;
    case 4: return Json::parse("18446744073709551615");
    case 5: return Json::parse("-9223372036854775808");
    case 6: return 1e308;
    case 7: return std::numeric_limits<double>::infinity();
    case 8: return "";
    case 9: return "{not json";
    case 10: return Json::array();
    case 11: return Json::object();
    case 12: {
      static const Json deep = [] {
        Json d = 1;
        for (int i = 0; i < kMaxRequestDepth + 20; ++i) {
          Json wrapper = Json::array();
          wrapper.push_back(std::move(d));
          d = std::move(wrapper);
        }
        return d;
      }();
      return deep;
    }
    default: return Json::array({"x", 2, Json::object({{"type", "text"}})});
  }
}

inline void mutate(Json& body, std::mt19937_64& rng) {
  std::vector<Json::json_pointer> pointers;
  collect(body, Json::json_pointer(), pointers);
  const Json::json_pointer p = pointers[rng() % pointers.size()];
  Json& parent = body[p.parent_pointer()];
  switch (rng() % 4) {
    case 0:  // remove
      if (parent.is_object()) parent.erase(p.back());
      else if (parent.is_array()) parent.erase(parent.begin() + static_cast<std::ptrdiff_t>(std::stoul(p.back())));
      break;
    case 1:  // an unknown member beside it
      if (parent.is_object()) parent["zz_unknown"] = 1;
      break;
    default:
      body[p] = random_value(rng);
      break;
  }
}

}  // namespace ninfer::api::testing
