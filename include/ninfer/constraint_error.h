// Typed, located errors for output constraints (public: no third-party types).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace ninfer {

enum class ConstraintErrorKind {
  InvalidGrammar,     // GBNF that does not parse or compile (line:column)
  InvalidJsonSchema,  // not valid JSON, or not a valid schema (JSON Pointer)
  UnsupportedSchema,  // a keyword or combination we do not enforce (keyword + JSON Pointer)
  Unsatisfiable,      // the schema admits no instance (JSON Pointer)
  InvalidRegex,       // regex syntax or a feature outside the supported ECMAScript subset (offset)
  InvalidChoice,      // empty choice list
  LimitExceeded,      // the input exceeds a compile limit (nesting depth, size, states): limit() names it
};

const char* constraint_error_kind_name(ConstraintErrorKind kind);

class ConstraintError : public std::runtime_error {
 public:
  ConstraintError(ConstraintErrorKind kind, std::string message) : std::runtime_error(std::move(message)), kind_(kind) {}

  ConstraintErrorKind kind() const { return kind_; }
  // Where the problem is. JSON Schema: a JSON Pointer into the source schema ("" = the root).
  const std::string& pointer() const { return pointer_; }
  // UnsupportedSchema: the keyword that is not supported.
  const std::string& keyword() const { return keyword_; }
  // Regex: character offset (code points from the start of the pattern); -1 when not applicable.
  int64_t offset() const { return offset_; }
  // Grammar: 1-based line and column; 0 when not applicable.
  int line() const { return line_; }
  int column() const { return column_; }
  // LimitExceeded: the limit's name (e.g. "schema.max_nesting") and its value.
  const std::string& limit() const { return limit_; }
  uint64_t limit_value() const { return limit_value_; }
  // Chat tools: the index of the tool whose parameter schema this error is about (-1: none).
  int tool() const { return tool_; }

  ConstraintError& at_pointer(std::string p) { pointer_ = std::move(p); return *this; }
  ConstraintError& with_keyword(std::string k) { keyword_ = std::move(k); return *this; }
  ConstraintError& at_offset(int64_t o) { offset_ = o; return *this; }
  ConstraintError& at_line(int line, int column) { line_ = line, column_ = column; return *this; }
  ConstraintError& with_limit(std::string name, uint64_t value) {
    limit_ = std::move(name), limit_value_ = value;
    return *this;
  }
  ConstraintError& in_tool(int index) { tool_ = index; return *this; }

 private:
  ConstraintErrorKind kind_;
  std::string pointer_;
  std::string keyword_;
  int64_t offset_ = -1;
  int line_ = 0, column_ = 0;
  std::string limit_;
  uint64_t limit_value_ = 0;
  int tool_ = -1;
};

// A LimitExceeded error: "<what> exceeds the limit <name> = <value>".
ConstraintError limit_exceeded(const std::string& name, uint64_t value, const std::string& what);

}  // namespace ninfer
