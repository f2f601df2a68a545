// The schema the decode benches constrain to when given no constraint flags: an order whose long
// array of objects keeps rows in steady-state decode, with fixed keys that the constraint forces.
#pragma once

namespace ninfer::cli {

inline constexpr const char* kDefaultBenchSchema = R"({
  "type": "object",
  "properties": {
    "order_id": {"type": "string", "pattern": "^[A-Z]{3}-[0-9]{6}$"},
    "lines": {
      "type": "array", "minItems": 40, "maxItems": 80,
      "items": {
        "type": "object",
        "properties": {
          "sku": {"type": "string", "maxLength": 24},
          "quantity": {"type": "integer", "minimum": 1, "maximum": 1000},
          "price": {"type": "number", "minimum": 0, "maximum": 100000},
          "gift": {"type": "boolean"}
        },
        "required": ["sku", "quantity", "price", "gift"],
        "additionalProperties": false
      }
    }
  },
  "required": ["order_id", "lines"],
  "additionalProperties": false
})";

}  // namespace ninfer::cli
