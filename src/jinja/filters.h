// The filters and tests templates may name (`x | name(...)`, `x is name(...)`), with Jinja2's argument names and
// defaults and HF's tojson. Each is resolved once, at parse time.
#pragma once

#include <string_view>

#include "jinja/ast.h"

namespace ninfer::jinja {

FilterFn find_filter(std::string_view name);  // null when no filter has that name
FilterFn find_test(std::string_view name);    // null when no test has that name

}  // namespace ninfer::jinja
