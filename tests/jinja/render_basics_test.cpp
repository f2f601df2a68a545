// Unit tests of the template language, each expected string verified with the Python Jinja2 oracle
// (tests/jinja/oracle_render.py) configured as transformers configures it.
#include <gtest/gtest.h>

#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

std::string render(const std::string& source, const nlohmann::ordered_json& context = nlohmann::ordered_json::object()) {
  return Template::parse(source)->render(context);
}

TemplateErrorKind error_kind(const std::string& source, const nlohmann::ordered_json& context = nlohmann::ordered_json::object()) {
  try {
    render(source, context);
  } catch (const TemplateError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error for " << source;
  return TemplateErrorKind::Runtime;
}

TEST(JinjaRender, PrintsLiteralsWithPythonSpelling) {
  EXPECT_EQ(render("{{ true }} {{ none }} {{ none|string }} {{ 1.0 }} {{ 1e16 }}"), "True None None 1.0 1e+16");
}

TEST(JinjaRender, RaiseExceptionIsARaisedError) {
  EXPECT_EQ(error_kind("{{ raise_exception('boom') }}"), TemplateErrorKind::Raised);
}

}  // namespace
}  // namespace ninfer::jinja
