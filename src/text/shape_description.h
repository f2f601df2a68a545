// What a schema rule is, in a few words, for explanations of rejected input: "integer in [1, 10]",
// "string matching ^[A-Z]{3}$", "object with keys \"sku\", \"qty\"", "enum of 3 values".
#pragma once

#include <string>
#include <vector>

#include "text/schema_shape.h"

namespace ninfer::text {

// The union of shapes a schema node reduces to (alternatives joined with " or "; bounded length).
std::string describe_shapes(const std::vector<Shape>& shapes);

}  // namespace ninfer::text
