// The one error type of the template language: every failure of parse or render is a TemplateError with a
// kind and, where known, the 1-based line and column of the construct that failed.
#pragma once

#include <stdexcept>
#include <string>

namespace ninfer::jinja {

enum class TemplateErrorKind {
  Syntax,   // the source is not a template (also unknown filters/tests outside `if`, as Jinja2 does)
  Raised,   // the template called raise_exception(msg); the message is msg exactly
  Runtime,  // type errors, bad calls, use of an undefined value, sandbox violations
  Limit,    // recursion, nesting, output size, steps, range size
};

// "syntax", "raised", "runtime", "limit".
const char* template_error_kind_name(TemplateErrorKind kind);

class TemplateError : public std::runtime_error {
 public:
  TemplateError(TemplateErrorKind kind, const std::string& message, int line = 0, int column = 0)
      : std::runtime_error(message), kind_(kind), line_(line), column_(column) {}
  TemplateErrorKind kind() const { return kind_; }
  int line() const { return line_; }      // 1-based, 0 = unknown
  int column() const { return column_; }  // 1-based, 0 = unknown

 private:
  TemplateErrorKind kind_;
  int line_;
  int column_;
};

}  // namespace ninfer::jinja
