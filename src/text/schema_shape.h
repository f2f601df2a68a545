// Reduction of schema nodes to "shapes": a conjunction of schema nodes ($ref, allOf and sibling
// keywords merged) becomes a union of shapes (anyOf/oneOf distributed), each shape holding the
// intersected assertions per JSON type. Sub-schemas (properties, items) stay as lists of nodes,
// reduced lazily, so recursive schemas need no unfolding.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "text/schema_document.h"
#include "text/json_schema_compiler.h"
#include "text/schema_keywords.h"

namespace ninfer::text {

// A conjunction of schema nodes; empty = the `true` schema.
using PartList = std::vector<SchemaNode>;

struct ObjectPart {  // the object keywords of one node
  std::string pointer;
  std::vector<std::pair<std::string, SchemaNode>> properties;  // declared order
  std::vector<std::pair<std::string, SchemaNode>> pattern_properties;
  bool additional_false = false;
  std::optional<SchemaNode> additional;  // schema for undeclared names (absent and not false = any)
};

struct ArrayPart {  // the array keywords of one node
  std::string pointer;
  std::vector<SchemaNode> prefix;  // prefixItems (2020-12) or items array (draft-07)
  bool rest_false = false;         // no items past the prefix
  std::optional<SchemaNode> rest;  // schema of items past the prefix (absent and not false = any)
};

struct PatternRef {
  std::string pattern;
  std::string pointer;
};

struct Shape {
  uint32_t types = kAllTypes;
  std::string pointer;  // where the shape comes from (first node), for errors
  // enum / const: allowed values (intersection over nodes).
  bool has_enum = false;
  std::vector<Json> enum_values;
  std::string enum_pointer;
  // `not` with enum/const: values the instance must differ from.
  std::vector<Json> excluded_values;
  std::string excluded_pointer;
  // `not` with a pattern (strings that must not match) or one required name (a name that must be absent).
  std::vector<PatternRef> excluded_patterns;
  std::vector<std::string> forbidden_properties;
  // strings
  uint64_t min_length = 0, max_length = std::numeric_limits<uint64_t>::max();
  std::vector<PatternRef> patterns;
  std::vector<PatternRef> formats;  // pattern = format name
  // numbers
  double lower = -std::numeric_limits<double>::infinity(), upper = std::numeric_limits<double>::infinity();
  bool lower_exclusive = false, upper_exclusive = false;
  std::vector<double> multiple_of;
  std::string number_pointer;
  // The same bounds for integers, inclusive and exact (integer bounds above 2^53 do not survive
  // a trip through double). An integer bound outside int64 makes int_out_of_range true.
  std::optional<int64_t> int_lower, int_upper;
  bool int_out_of_range = false;
  // arrays
  std::vector<ArrayPart> arrays;
  uint64_t min_items = 0, max_items = std::numeric_limits<uint64_t>::max();
  // objects
  std::vector<ObjectPart> objects;
  std::vector<std::string> required;  // in order of first mention
  uint64_t min_properties = 0, max_properties = std::numeric_limits<uint64_t>::max();
  std::vector<PatternRef> property_names;
  std::string object_pointer;
  // Nodes already applied to this shape.
  std::set<const Json*> applied;
};

class ShapeReducer {
 public:
  ShapeReducer(const SchemaDocument& doc, const SchemaLimits& limits) : doc_(doc), limits_(limits) {}
  // The union of shapes a conjunction of nodes reduces to (empty = unsatisfiable).
  std::vector<Shape> reduce(const PartList& parts);
  // Pointer of the first shape found empty while reducing (for Unsatisfiable errors).
  const std::string& first_conflict() const { return first_conflict_; }

 private:
  const SchemaDocument& doc_;
  const SchemaLimits& limits_;
  uint32_t merges_ = 0;
  uint32_t reducing_ = 0;  // nesting of reduce() calls
  std::string first_conflict_;

  // Schema nodes the reducer writes itself: `not` rewritten by De Morgan, if/then/else and
  // dependencies as anyOf, the exclusion of overlapping oneOf alternatives. They refer to
  // document sub-schemas by local `$ref` (so pointers in errors stay real); `origin_` maps every
  // built value to the pointer of the keyword it stands for. A deque keeps addresses stable.
  std::deque<Json> built_;
  std::unordered_map<const Json*, std::string> origin_;
  std::unordered_map<const Json*, SchemaNode> negations_;  // memo: node -> its built negation
  std::unordered_map<const Json*, SchemaNode> derived_;    // memo: if / dependency entry -> its built anyOf

  using Skip = std::set<const Json*>;  // anyOf/oneOf arrays already distributed
  struct Group {  // an anyOf / oneOf with its alternatives
    std::string pointer;
    const Json* key;
    bool one_of;
    std::vector<SchemaNode> alternatives;
  };
  // Applies every node (following $ref / allOf); collects anyOf/oneOf groups not in `skip`.
  bool apply_all(const PartList& parts, const Skip& skip, Shape& shape, std::vector<Group>& groups);
  void apply_node(const SchemaNode& n, Shape& shape, std::vector<SchemaNode>& queue, std::vector<Group>& groups,
                  const Skip& skip, bool& unsat);
  void expand(PartList parts, Skip skip, int depth, std::vector<Shape>& out);
  void distribute(Shape shape, std::vector<Group> groups, Skip skip, int depth, std::vector<Shape>& out);
  // Pairs of alternatives (i < j) whose shapes are not proven disjoint.
  std::vector<std::pair<size_t, size_t>> overlapping(const std::vector<std::vector<Shape>>& alternatives);

  bool required_values_possible(const Shape& s);
  SchemaNode build(Json j, const std::string& origin);
  std::string located(const Json* v, std::string fallback) const;
  Json ref_to(const SchemaNode& n) const;  // a `$ref` to a document node, a copy of a built one
  SchemaNode negate(const SchemaNode& n);  // the complement of a schema, built; UnsupportedSchema "not" if inexpressible
  Json negation_of(const SchemaNode& n, int depth);
};

// True when `value` satisfies the shape's assertions that can be checked on a value alone
// (used to filter enum/const by sibling keywords). Sub-schemas are checked via `check_sub`.
bool value_matches_shape(const Json& value, const Shape& shape, ShapeReducer& reducer, int depth = 0);

// JSON type bit of a value (integers: kInt, other numbers: kFrac).
uint32_t json_type_bit(const Json& v);

}  // namespace ninfer::text
