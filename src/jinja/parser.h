// Parser: tokens → syntax tree, with Jinja2's grammar and operator precedence. Nesting is bounded by an explicit
// depth so that hostile input ends in TemplateError(Limit), never in a stack overflow.
#pragma once

#include <string_view>

#include "jinja/ast.h"
#include "jinja/lexer.h"

namespace ninfer::jinja {

struct ParsedTemplate {
  LexedSource lexed;
  Body body;
};

// Throws TemplateError(Syntax) for malformed templates (and, as Jinja2 does, for unknown filters and tests outside
// `if` blocks and conditional expressions), TemplateError(Limit) past max_depth nesting.
ParsedTemplate parse_template(std::string_view source, int max_depth);

}  // namespace ninfer::jinja
