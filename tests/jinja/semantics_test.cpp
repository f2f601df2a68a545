// Python-semantics unit tests: each expected string (or error kind / raised message) was produced by the Python
// Jinja2 oracle (tests/jinja/oracle_render.py's environment) for exactly this template and context.
#include <gtest/gtest.h>

#include <string>

#include "jinja/template.h"

namespace ninfer::jinja {
namespace {

using ojson = nlohmann::ordered_json;

std::string render(const std::string& source, const ojson& context) { return Template::parse(source)->render(context); }

struct ErrorSeen {
  std::string kind;
  std::string message;
};

ErrorSeen error_of(const std::string& source, const ojson& context) {
  try {
    const std::string out = render(source, context);
    ADD_FAILURE() << "rendered without error: " << out;
  } catch (const TemplateError& e) {
    return {template_error_kind_name(e.kind()), e.what()};
  }
  return {};
}

TEST(JinjaSemantics, BooleansAndNonePrintAsPython) {
  EXPECT_EQ(render(R"J({{ true }} {{ false }} {{ none }} {{ none|string }} {{ flag }})J",
                   ojson::parse(R"J({"flag": true})J")),
            R"J(True False None None True)J");
}

TEST(JinjaSemantics, IntegersAndFloatsPrintAsPythonRepr) {
  EXPECT_EQ(render(R"J({{ 1.0 }} {{ 1e16 }} {{ 1e15 }} {{ 0.0001 }} {{ 0.00001 }} {{ 1/3 }} {{ 10/2 }} {{ 2.5 }} {{ -0.0 }})J",
                   ojson::parse(R"J({})J")),
            R"J(1.0 1e+16 1000000000000000.0 0.0001 1e-05 0.3333333333333333 5.0 2.5 -0.0)J");
}

TEST(JinjaSemantics, ListsAndDictsPrintAsPythonRepr) {
  EXPECT_EQ(render(R"J({{ ['a', 1, none, true] }} {{ {'k': true, 'q': "it's"} }} {{ (1,) }} {{ items }})J",
                   ojson::parse(R"J({"items": {"b": [1.5], "a": "x"}})J")),
            R"J(['a', 1, None, True] {'k': True, 'q': "it's"} (1,) {'b': [1.5], 'a': 'x'})J");
}

TEST(JinjaSemantics, StripHonoursItsCharacters) {
  EXPECT_EQ(render(R"J({{ 'xxhixx'.strip('x') }}|{{ '--a--'|trim('-') }}|{{ '  a  '.lstrip() }}|{{ '  a  '.rstrip() }})J",
                   ojson::parse(R"J({})J")),
            R"J(hi|a|a  |  a)J");
}

TEST(JinjaSemantics, LengthCountsCodePoints) {
  EXPECT_EQ(render(R"J({{ s|length }} {{ s[1] }} {{ s[::-1] }})J",
                   ojson::parse(R"J({"s": "héllo ✓"})J")),
            R"J(7 é ✓ olléh)J");
}

TEST(JinjaSemantics, UndefinedPrintsEmptyAndIteratesNothing) {
  EXPECT_EQ(render(R"J([{{ nope }}]{% for x in nope %}x{% else %}none{% endfor %}{{ nope|length }})J",
                   ojson::parse(R"J({})J")),
            R"J([]none0)J");
}

TEST(JinjaSemantics, IntegerDivisionAndModuloFollowPython) {
  EXPECT_EQ(render(R"J({{ -7 // 2 }} {{ -7 % 3 }} {{ 7 % -3 }} {{ 7 // 2.0 }} {{ 2 ** 10 }} {{ 2 ** -1 }})J",
                   ojson::parse(R"J({})J")),
            R"J(-4 2 -2 3.0 1024 0.5)J");
}

TEST(JinjaSemantics, StringMultiplicationRepeats) {
  EXPECT_EQ(render(R"J({{ 'ab' * 3 }} {{ 2 * 'x' }} {{ [1] * 2 }})J",
                   ojson::parse(R"J({})J")),
            R"J(ababab xx [1, 1])J");
}

TEST(JinjaSemantics, InWorksOnStringsListsAndDicts) {
  EXPECT_EQ(render(R"J({{ 'b' in 'abc' }} {{ 2 in [1, 2] }} {{ 'k' in d }} {{ 'z' not in d }})J",
                   ojson::parse(R"J({"d": {"k": 1}})J")),
            R"J(True True True True)J");
}

TEST(JinjaSemantics, ComparisonsChainAsInPython) {
  EXPECT_EQ(render(R"J({{ 1 < 2 < 3 }} {{ 3 > 2 > 2 }} {{ 1 == 1.0 }} {{ true == 1 }} {{ [1, 2] < [1, 3] }})J",
                   ojson::parse(R"J({})J")),
            R"J(True False True True True)J");
}

TEST(JinjaSemantics, IsTestsClassifyValues) {
  EXPECT_EQ(render(R"J({{ 1 is integer }} {{ true is integer }} {{ true is number }} {{ 1.5 is float }} {{ 'a' is string }} {{ {} is mapping }} {{ [] is sequence }} {{ x is defined }} {{ x is undefined }} {{ none is none }} {{ 3 is odd }} {{ 4 is even }} {{ 9 is divisibleby 3 }} {{ 2 is in [1, 2] }} {{ 1 is eq 1 }} {{ 1 is lt 2 }})J",
                   ojson::parse(R"J({})J")),
            R"J(True False True True True True True False True True True True True True True True)J");
}

TEST(JinjaSemantics, SlicesTakeNegativeSteps) {
  EXPECT_EQ(render(R"J({{ l[::-1] }} {{ l[3:0:-2] }} {{ 'abcdef'[::-2] }} {{ l[-2:] }})J",
                   ojson::parse(R"J({"l": [1, 2, 3, 4, 5]})J")),
            R"J([5, 4, 3, 2, 1] [4, 2] fdb [4, 5])J");
}

TEST(JinjaSemantics, StringMethodsFollowPython) {
  EXPECT_EQ(render(R"J({{ 'a,b,,c'.split(',') }} {{ 'a,b,c'.split(',', 1) }} {{ 'a,b,c'.rsplit(',', 1) }} {{ ' a  b '.split() }} {{ 'Hello'.startswith('He') }} {{ 'Hello'.endswith(('x', 'lo')) }} {{ 'hello world'.title() }} {{ 'hELLO'.capitalize() }} {{ 'aXbX'.replace('X', '-') }} {{ 'banana'.find('n') }} {{ 'banana'.count('a') }} {{ '-'.join(['a', 'b']) }})J",
                   ojson::parse(R"J({})J")),
            R"J(['a', 'b', '', 'c'] ['a', 'b,c'] ['a,b', 'c'] ['a', 'b'] True True Hello World Hello a-b- 2 3 a-b)J");
}

TEST(JinjaSemantics, DictMethodsFollowPython) {
  EXPECT_EQ(render(R"J({{ d.items()|list }} {{ d.keys()|list }} {{ d.values()|list }} {{ d.get('a') }} {{ d.get('z', 0) }} {{ d.get('z') }})J",
                   ojson::parse(R"J({"d": {"a": 1, "b": 2}})J")),
            R"J([('a', 1), ('b', 2)] ['a', 'b'] [1, 2] 1 0 None)J");
}

TEST(JinjaSemantics, LoopVariablesDescribeThePosition) {
  EXPECT_EQ(render(R"J({% for x in 'abc' %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ loop.previtem }}{{ loop.nextitem }}{{ loop.cycle('+', '-') }} {% endfor %})J",
                   ojson::parse(R"J({})J")),
            R"J(1032TrueFalse3b+ 2121FalseFalse3ac- 3210FalseTrue3b+ )J");
}

TEST(JinjaSemantics, LoopFilterAndElseAndLoopControls) {
  EXPECT_EQ(render(R"J({% for x in [1, 2, 3, 4] if x is even %}{{ loop.index }}:{{ x }} {% endfor %}{% for x in [] %}x{% else %}empty{% endfor %} {% for x in [1, 2, 3] %}{% if x == 2 %}{% continue %}{% endif %}{% if x == 3 %}{% break %}{% endif %}{{ x }}{% endfor %})J",
                   ojson::parse(R"J({})J")),
            R"J(1:2 2:4 empty 1)J");
}

TEST(JinjaSemantics, SetUnpacksTuplesAndCapturesBlocks) {
  EXPECT_EQ(render(R"J({% set a, b = 1, 2 %}{% set blk %}[{{ a + b }}]{% endset %}{{ blk }}{% set up | upper %}x{% endset %}{{ up }})J",
                   ojson::parse(R"J({})J")),
            R"J([3]X)J");
}

TEST(JinjaSemantics, SetInsideALoopStaysInTheLoopButNamespacesCarryOut) {
  EXPECT_EQ(render(R"J({% set x = 1 %}{% set ns = namespace(x=1) %}{% for i in [1, 2] %}{% set x = 5 %}{% set ns.x = ns.x + i %}{% endfor %}{{ x }} {{ ns.x }})J",
                   ojson::parse(R"J({})J")),
            R"J(1 4)J");
}

TEST(JinjaSemantics, MacrosTakeDefaultsVarargsAndKwargs) {
  EXPECT_EQ(render(R"J({% macro m(a, b=2) %}{{ a }}{{ b }}{{ varargs }}{{ kwargs }}{% endmacro %}{{ m(1) }} {{ m(1, 3, 4, k=5) }})J",
                   ojson::parse(R"J({})J")),
            R"J(12(){} 13(4,){'k': 5})J");
}

TEST(JinjaSemantics, CallBlocksPassCaller) {
  EXPECT_EQ(render(R"J({% macro wrap(t) %}<{{ t }}>{{ caller(1) }}</{{ t }}>{% endmacro %}{% call(n) wrap('b') %}x{{ n }}{% endcall %})J",
                   ojson::parse(R"J({})J")),
            R"J(<b>x1</b>)J");
}

TEST(JinjaSemantics, FilterBlocksRawAndComments) {
  EXPECT_EQ(render(R"J({% filter upper %}abc{% endfilter %}{% raw %}{{ x }}{% endraw %}{# gone #})J",
                   ojson::parse(R"J({})J")),
            R"J(ABC{{ x }})J");
}

TEST(JinjaSemantics, TrimBlocksAndLstripBlocksFollowHf) {
  EXPECT_EQ(render(R"J(<ul>
  {% for x in [1, 2] %}
  <li>{{ x }}</li>
  {% endfor %}
</ul>
)J",
                   ojson::parse(R"J({})J")),
            R"J(<ul>
  <li>1</li>
  <li>2</li>
</ul>)J");
}

TEST(JinjaSemantics, MinusAndPlusControlWhitespace) {
  EXPECT_EQ(render(R"J(a  {%- if true %}  b  {%- endif %}  c
  {%+ if true %}d{% endif %}
{% if true +%}
e{% endif %})J",
                   ojson::parse(R"J({})J")),
            R"J(a  b  c
  d
e)J");
}

TEST(JinjaSemantics, TojsonIsPythonJsonDumpsWithHfDefaults) {
  EXPECT_EQ(render(R"J({{ d|tojson }} {{ d|tojson(indent=2) }} {{ d|tojson(separators=(',', ':')) }} {{ d|tojson(sort_keys=true) }} {{ '<é>'|tojson }})J",
                   ojson::parse(R"J({"d": {"b": [1, 2.0, null], "a": "x\"y"}})J")),
            R"J({"b": [1, 2.0, null], "a": "x\"y"} {
  "b": [
    1,
    2.0,
    null
  ],
  "a": "x\"y"
} {"b":[1,2.0,null],"a":"x\"y"} {"a": "x\"y", "b": [1, 2.0, null]} "<é>")J");
}

TEST(JinjaSemantics, DefaultJoinMapSelectAndFriends) {
  EXPECT_EQ(render(R"J({{ x|default('d') }} {{ ''|default('e', true) }} {{ people|map(attribute='n')|join(',') }} {{ ['a', 'b']|map('upper')|list }} {{ [1, 2, 3]|select('odd')|list }} {{ [1, 2, 3]|reject('odd')|list }} {{ people|selectattr('ok')|map(attribute='n')|first }} {{ people|rejectattr('ok')|map(attribute='n')|list|last }} {{ []|select is true }}{{ ([]|select) is sequence }})J",
                   ojson::parse(R"J({"people": [{"n": "A", "ok": true}, {"n": "B", "ok": false}]})J")),
            R"J(d e A,B ['A', 'B'] [1, 3] [2] A B FalseFalse)J");
}

TEST(JinjaSemantics, ConversionAndOrderingFilters) {
  EXPECT_EQ(render(R"J({{ '42'|int }} {{ 'x'|int }} {{ '2.5'|float }} {{ -3|abs }} {{ 2.567|round(2) }} {{ 2.5|round }} {{ ['b', 'A', 'a']|sort }} {{ [1, 2, 1]|unique|list }} {{ [1, 2]|reverse|list }} {{ 'ab'|upper }}{{ 'AB'|lower }})J",
                   ojson::parse(R"J({})J")),
            R"J(42 0 2.5 3 2.57 2.0 ['A', 'a', 'b'] [1, 2] [2, 1] ABab)J");
}

TEST(JinjaSemantics, IndentAndWordcount) {
  EXPECT_EQ(render(R"J({{ 'a\nb\n\nc'|indent(2) }}|{{ 'a\nb'|indent(2, true) }}|{{ 'one two three'|wordcount }})J",
                   ojson::parse(R"J({})J")),
            R"J(a
  b

  c|  a
  b|3)J");
}

TEST(JinjaSemantics, ConditionalExpressionsWithoutElseAreUndefined) {
  EXPECT_EQ(render(R"J([{{ 1 if false }}] {{ 'y' if true else 'n' }} {{ (1 if true else 2) + 3 }})J",
                   ojson::parse(R"J({})J")),
            R"J([] y 4)J");
}

TEST(JinjaSemantics, MarkupFromSafeEscapesWhatIsAddedToIt) {
  EXPECT_EQ(render(R"J({{ ('<i>'|safe) + '<b>' }} {{ 'a' + ('<b>'|safe) }} {{ ('<i>'|safe) ~ '<b>' }} {{ '<b>'|e }})J",
                   ojson::parse(R"J({})J")),
            R"J(<i>&lt;b&gt; a<b> <i><b> &lt;b&gt;)J");
}

TEST(JinjaErrors, LastOfAGeneratorIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ [1, 2]|map('string')|last }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

TEST(JinjaErrors, LengthOfAGeneratorIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ [1, 2]|select|length }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

TEST(JinjaErrors, RaiseExceptionKeepsItsMessage) {
  const auto e = error_of(R"J({{ raise_exception('bad role: ' ~ r) }})J", ojson::parse(R"J({"r": "robot"})J"));
  EXPECT_EQ(e.kind, "raised");
  EXPECT_EQ(e.message, R"J(bad role: robot)J");
}

TEST(JinjaErrors, StringPlusListIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ 'a' + [1] }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

TEST(JinjaErrors, AttributeOfUndefinedIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ nope.attr }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

TEST(JinjaErrors, CallingAMutatingListMethodIsASandboxError) {
  EXPECT_EQ(error_of(R"J({{ l.append(1) }})J", ojson::parse(R"J({"l": [1]})J")).kind, "runtime");
}

TEST(JinjaErrors, OrderingMixedTypesIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ 1 < 'a' }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

TEST(JinjaErrors, AnUnknownFilterIsASyntaxError) {
  EXPECT_EQ(error_of(R"J({{ x|nosuch }})J", ojson::parse(R"J({})J")).kind, "syntax");
}

TEST(JinjaErrors, AnUnknownFilterUnderIfFailsOnlyWhenReached) {
  EXPECT_EQ(error_of(R"J({% if x %}{{ x|nosuch }}{% endif %}ok)J", ojson::parse(R"J({"x": 1})J")).kind, "runtime");
}

TEST(JinjaErrors, ARangeBeyondTheSandboxLimitIsALimitError) {
  EXPECT_EQ(error_of(R"J({{ range(1000000000)|length }})J", ojson::parse(R"J({})J")).kind, "limit");
}

TEST(JinjaErrors, AnUnclosedTagIsASyntaxError) {
  EXPECT_EQ(error_of(R"J({% if x %}open)J", ojson::parse(R"J({})J")).kind, "syntax");
}

TEST(JinjaErrors, DivisionByZeroIsARuntimeError) {
  EXPECT_EQ(error_of(R"J({{ 1 // 0 }})J", ojson::parse(R"J({})J")).kind, "runtime");
}

}  // namespace
}  // namespace ninfer::jinja

namespace ninfer::jinja {
namespace {

// transformers adds its AssistantTracker extension: {% generation %} renders its body in its own scope. Expected
// text from Jinja2 with an equivalent extension (a CallBlock returning caller()).
TEST(JinjaSemantics, GenerationBlocksRenderTheirBodyInPlace) {
  EXPECT_EQ(render(R"J({% for m in ms %}{% if m == 'a' %}{% generation %}<{{ m }}>{% set x = 1 %}{% endgeneration %}
{% else %}[{{ m }}]{% endif %}{% endfor %}{{ x }})J",
                   ojson::parse(R"J({"ms": ["u", "a", "u"]})J")),
            "[u]<a>[u]");
}

}  // namespace
}  // namespace ninfer::jinja
