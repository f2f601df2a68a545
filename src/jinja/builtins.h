// The global functions every template sees: range (bounded as the sandbox bounds it), namespace, dict, joiner,
// cycler, and HF's raise_exception and strftime_now.
#pragma once

#include <string_view>

#include "jinja/value.h"

namespace ninfer::jinja {

// The global of that name, or an undefined value.
Value global_function(std::string_view name);

}  // namespace ninfer::jinja
