// Python's str, list and dict methods as templates call them (`s.strip('x')`, `d.items()`), the loop object's
// attributes, slicing, `in`, and the str helpers the filters share. Mutating methods are blocked, as
// ImmutableSandboxedEnvironment blocks them.
#pragma once

#include <string>
#include <string_view>

#include "jinja/renderer.h"
#include "jinja/value.h"

namespace ninfer::jinja {

// A bound method of `self`, or an undefined value (marked unsafe for methods the sandbox blocks).
Value find_method(const Value& self, const std::string& name);
// Whether `name` is a method (allowed or blocked) of `self`'s type; cheap, allocates nothing.
bool has_method(const Value& self, const std::string& name);
Value loop_attribute(Renderer& r, const Value& loop, const std::string& name);
Value slice_value(Renderer& r, const Value& obj, const Value& start, const Value& stop, const Value& step);
// Python's `item in container`.
bool contains(Renderer& r, const Value& container, const Value& item);

std::string html_escape(std::string_view s);
// Python's `fmt % args` for %s, %r, %d, %i, %f and %%.
std::string percent_format(Renderer& r, const std::string& fmt, const Value& args);

// Python str methods on UTF-8 text. `chars` null = whitespace.
std::string py_strip(std::string_view s, const std::string* chars, bool left, bool right);
List py_split(Renderer& r, const std::string& s, const Value& sep, int64_t maxsplit, bool from_right);
std::string py_upper(std::string_view s);
std::string py_lower(std::string_view s);
std::string py_title(std::string_view s);
std::string py_capitalize(std::string_view s);
std::string py_replace(const std::string& s, const std::string& old, const std::string& repl, int64_t count);
std::vector<std::string> py_splitlines(const std::string& s);
bool py_isspace(char32_t cp);

}  // namespace ninfer::jinja
