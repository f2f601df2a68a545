// IR for the decimal text of the integers in a range (JSON integers: no leading zeros, no "-0").
#pragma once

#include <cstdint>
#include <optional>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

// [lo, hi]; an absent bound is unbounded. Requires lo <= hi when both are present.
int32_t integer_range_expr(grammar::Grammar& g, std::optional<int64_t> lo, std::optional<int64_t> hi);

}  // namespace ninfer::text
