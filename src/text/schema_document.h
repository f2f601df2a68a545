// A parsed JSON Schema document: draft detection, JSON Pointers and local $ref resolution.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace ninfer::text {

using Json = nlohmann::ordered_json;

enum class SchemaDraft { Draft2020, Draft07 };

// One schema node and where it sits in the source (a JSON Pointer, "" = root).
struct SchemaNode {
  const Json* node = nullptr;
  std::string pointer;
};

class SchemaDocument {
 public:
  // Throws ConstraintError(InvalidJsonSchema) when the text is not JSON (pointer "" and a byte offset in the message).
  // Text nested deeper than `max_depth` (arrays and objects) is a LimitExceeded error
  // (schema.max_document_depth), found by a scan before parsing so nothing deep is ever built.
  explicit SchemaDocument(std::string_view text, uint32_t max_depth = 256);

  const Json& root() const { return root_; }
  SchemaDraft draft() const { return draft_; }
  // Resolves a local "$ref" found at `at` (pointer of the node holding it). Throws
  // ConstraintError: UnsupportedSchema for remote or anchor refs, InvalidJsonSchema for dangling ones.
  SchemaNode resolve_ref(const std::string& ref, const std::string& at) const;

  static std::string escape_token(const std::string& token);  // ~ -> ~0, / -> ~1

 private:
  Json root_;
  SchemaDraft draft_ = SchemaDraft::Draft2020;
};

}  // namespace ninfer::text
