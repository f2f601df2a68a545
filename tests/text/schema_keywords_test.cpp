// The keyword audit: every keyword the compiler does not enforce is listed (ignored_keywords, JSON
// Pointers, document order) wherever it sits in the schema document; an unknown keyword that looks
// like a typo of an assertion keyword is an InvalidJsonSchema error with a suggestion; strict
// schema strictness refuses every keyword that would be listed; lenient strictness ignores the
// typos too, listing them and their suggestion.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "grammar/compile_cache.h"
#include "text/json_schema_test_support.h"

namespace ninfer::text::testing {
namespace {

using Pointers = std::vector<std::string>;

JsonFormatOptions strict() {
  JsonFormatOptions f;
  f.schema_strictness = SchemaStrictness::Strict;
  return f;
}

JsonFormatOptions lenient() {
  JsonFormatOptions f;
  f.schema_strictness = SchemaStrictness::Lenient;
  return f;
}

Pointers ignored(const std::string& schema, const JsonFormatOptions& fmt = {}) {
  SCOPED_TRACE("schema: " + schema);
  try {
    return compile_constraint(OutputConstraint::json_schema(schema, fmt), byte_domain()).ignored_keywords;
  } catch (const ConstraintError& e) {
    ADD_FAILURE() << "does not compile: " << constraint_error_kind_name(e.kind()) << ": " << e.what();
    return {};
  }
}

// The schema fails with a typo error at `pointer` that names `typo` and suggests `keyword`.
void expect_typo(const std::string& schema, const std::string& pointer, const std::string& typo,
                 const std::string& keyword) {
  SCOPED_TRACE("schema: " + schema);
  const auto e = schema_error(schema);
  ASSERT_TRUE(e.has_value()) << "compiles, expected a typo error for " << typo;
  EXPECT_EQ(e->kind(), ConstraintErrorKind::InvalidJsonSchema) << e->what();
  EXPECT_EQ(e->pointer(), pointer) << e->what();
  EXPECT_NE(std::string(e->what()).find("unknown keyword '" + typo + "' (did you mean '" + keyword + "'?)"),
            std::string::npos)
      << e->what();
}

TEST(SchemaKeywords, UnknownKeywordsAreListedWhereverTheySitInTheDocument) {
  // A root vendor keyword, one in a property, one in an unused $defs entry, one in an anyOf
  // branch, one inside a not, one in draft-07 style definitions reached only through $ref, and
  // OpenAPI's keywords (no JSON Schema draft defines them).
  const std::string s = R"({
    "javaType": "Order",
    "type": "object",
    "properties": {
      "id": {"type": "integer", "x-db-column": "order_id"},
      "note": {"anyOf": [{"type": "string"}, {"type": "null", "markdownDescription": "none"}]},
      "code": {"type": "string", "not": {"const": "x", "errorMessage": "no x"}},
      "item": {"$ref": "#/definitions/Item"}
    },
    "$defs": {"Unused": {"type": "string", "nullable": true}},
    "definitions": {"Item": {"type": "object", "example": {"sku": "A"}, "discriminator": {"propertyName": "k"}}}
  })";
  EXPECT_EQ(ignored(s), (Pointers{"/javaType", "/properties/id/x-db-column", "/properties/note/anyOf/1/markdownDescription",
                                  "/properties/code/not/errorMessage", "/$defs/Unused/nullable",
                                  "/definitions/Item/example", "/definitions/Item/discriminator"}));
}

TEST(SchemaKeywords, NamesAndDataThatLookLikeKeywordsAreNeitherListedNorTypos) {
  // A property named like a misspelt keyword is a name; enum, const, default and examples values
  // are data, whatever keys they hold; a required entry is a name too.
  const std::string s = R"({
    "type": "object",
    "properties": {"maxLenght": {"type": "string"}, "javaType": {"type": "integer"}},
    "patternProperties": {"^minimun": {"type": "integer"}},
    "required": ["maxLenght"],
    "default": {"maxLenght": 1, "requried": true},
    "examples": [{"javaType": "x"}],
    "dependentRequired": {"maxLenght": ["javaType"]},
    "additionalProperties": {"enum": [{"maxLenght": 3}], "const": {"minimun": 1}}
  })";
  EXPECT_EQ(ignored(s), Pointers{});
}

TEST(SchemaKeywords, AnnotationsThatTheDraftsDefineAreNotListed) {
  const std::string s = R"({
    "$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://example.com/s", "$comment": "c",
    "title": "t", "description": "d", "default": 1, "examples": [1], "deprecated": false, "readOnly": true,
    "writeOnly": false, "contentMediaType": "text/plain", "contentEncoding": "base64", "$anchor": "a",
    "type": "integer", "format": "int32"
  })";
  EXPECT_EQ(ignored(s), Pointers{});
}

TEST(SchemaKeywords, KeywordsOfAnotherDraftAreListed) {
  EXPECT_EQ(ignored(R"({"type":"array","items":{"type":"integer"},"additionalItems":false})"),
            Pointers{"/additionalItems"});
  EXPECT_EQ(ignored(R"({"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"integer"}]})"),
            Pointers{"/prefixItems"});
  // The sub-schemas of an ignored keyword are not schemas of this draft: only the keyword is listed.
  EXPECT_EQ(ignored(R"({"type":"array","additionalItems":{"maxLenght":3,"javaType":"x"}})"), Pointers{"/additionalItems"});
}

TEST(SchemaKeywords, VendorFormatsAndNonStringIdsAreListed) {
  EXPECT_EQ(ignored(R"({"type":"object","properties":{"a":{"type":"string","format":"topic"},"b":{"type":"string","format":"date"},"c":{"type":"string","format":"password"}}})"),
            Pointers{"/properties/a/format"});
  EXPECT_EQ(ignored(R"({"type":"object","properties":{"id":{"id":7,"type":"integer"}}})"), Pointers{"/properties/id/id"});
}

TEST(SchemaKeywords, RefTargetsInsideUnknownKeywordsAreAuditedAsSchemas) {
  // The unknown keyword is listed; its value, a $ref target, is a schema whose keywords are audited.
  EXPECT_EQ(ignored(R"({"shared":{"type":"integer","javaType":"int"},"properties":{"a":{"$ref":"#/shared"}}})"),
            (Pointers{"/shared", "/shared/javaType"}));
  expect_typo(R"({"shared":{"type":"integer","minimun":1},"properties":{"a":{"$ref":"#/shared"}}})", "/shared/minimun",
              "minimun", "minimum");
}

TEST(SchemaKeywords, PropertyNamesWithVendorKeywordsCompileAndListThem) {
  EXPECT_EQ(ignored(R"({"type":"object","propertyNames":{"pattern":"^[a-z]+$","javaName":"Key"}})"),
            Pointers{"/propertyNames/javaName"});
}

TEST(SchemaKeywords, ATypoOfAnAssertionKeywordIsAnErrorWithASuggestion) {
  expect_typo(R"({"type":"string","maxLenght":3})", "/maxLenght", "maxLenght", "maxLength");
  expect_typo(R"({"type":"integer","minimun":0})", "/minimun", "minimun", "minimum");
  expect_typo(R"({"type":"object","additionalProperty":false})", "/additionalProperty", "additionalProperty",
              "additionalProperties");
  expect_typo(R"({"type":"object","pattern_properties":{"^a":{}}})", "/pattern_properties", "pattern_properties",
              "patternProperties");
  expect_typo(R"({"type":"object","requried":["a"]})", "/requried", "requried", "required");
  expect_typo(R"({"type":"number","exclusiveMaximun":5})", "/exclusiveMaximun", "exclusiveMaximun", "exclusiveMaximum");
  expect_typo(R"({"type":"string","MaxLength":3})", "/MaxLength", "MaxLength", "maxLength");
  expect_typo(R"({"type":"string","max_length":3})", "/max_length", "max_length", "maxLength");
  expect_typo(R"({"type":"array","item":{"type":"integer"}})", "/item", "item", "items");
  expect_typo(R"({"Type":"string"})", "/Type", "Type", "type");
  expect_typo(R"({"anyof":[{"type":"string"}]})", "/anyof", "anyof", "anyOf");
}

TEST(SchemaKeywords, TyposAreFoundEverywhereInTheDocument) {
  expect_typo(R"({"$defs":{"Unused":{"type":"string","pattren":"^a"}},"type":"integer"})", "/$defs/Unused/pattren",
              "pattren", "pattern");
  expect_typo(R"({"anyOf":[{"type":"string"},{"type":"array","maxItem":2}]})", "/anyOf/1/maxItem", "maxItem", "maxItems");
  expect_typo(R"({"not":{"type":"object","requried":["a"]}})", "/not/requried", "requried", "required");
  expect_typo(R"({"type":"object","properties":{"a/b":{"type":"string","minLenght":1}}})", "/properties/a~1b/minLenght",
              "minLenght", "minLength");
  expect_typo(R"({"type":"array","items":[{"enume":[1]}],"$schema":"http://json-schema.org/draft-07/schema#"})",
              "/items/0/enume", "enume", "enum");
}

TEST(SchemaKeywords, TypoSuggestionsFollowTheSchemaType) {
  // minimum applies to numbers only: beside "type": "string", minimun is not its typo.
  EXPECT_EQ(ignored(R"({"type":"string","minimun":3})"), Pointers{"/minimun"});
  expect_typo(R"({"type":["string","integer"],"minimun":3})", "/minimun", "minimun", "minimum");
  expect_typo(R"({"minimun":3})", "/minimun", "minimun", "minimum");  // no type: every keyword applies
  EXPECT_EQ(ignored(R"({"type":"integer","maxLenght":3})"), Pointers{"/maxLenght"});
}

TEST(SchemaKeywords, VendorNamesNearKeywordsAreNotTypos) {
  // Marked names (_format switched off, @type from JSON-LD, x- extensions), another word
  // (inclusiveMinimum), compounds (requiredIf), values of the wrong kind (an object of
  // definitions named types, a string note), and short keywords (not, if) that only match
  // exactly, up to case and underscores.
  const std::string s = R"({
    "_format": "date", "@type": "Thing", "x-maxLength": 3, "inclusiveMinimum": 0,
    "requiredIf": ["a"], "types": {"a": {"type": "string"}}, "note": "see docs", "iff": {"type": "string"},
    "maxLenght": "long", "ref": "#/types/a"
  })";
  EXPECT_EQ(ignored(s), (Pointers{"/_format", "/@type", "/x-maxLength", "/inclusiveMinimum", "/requiredIf", "/types",
                                  "/note", "/iff", "/maxLenght", "/ref"}));
}

TEST(SchemaKeywords, StrictRejectsEveryKeywordThatStandardWouldList) {
  const auto expect_refused = [](const std::string& schema, const std::string& pointer, const std::string& keyword) {
    SCOPED_TRACE("schema: " + schema);
    const auto e = schema_error(schema, strict());
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->kind(), ConstraintErrorKind::UnsupportedSchema) << e->what();
    EXPECT_EQ(e->pointer(), pointer) << e->what();
    EXPECT_EQ(e->keyword(), keyword) << e->what();
  };
  expect_refused(R"({"type":"object","properties":{"a":{"type":"string","x-go-name":"A"}}})", "/properties/a/x-go-name",
                 "x-go-name");
  expect_refused(R"({"$defs":{"U":{"nullable":true}},"type":"integer"})", "/$defs/U/nullable", "nullable");
  expect_refused(R"({"type":"array","additionalItems":false})", "/additionalItems", "additionalItems");
  expect_refused(R"({"type":"string","format":"topic"})", "/format", "format");
  // Typos stay typos; annotations and a clean schema compile.
  const auto typo = schema_error(R"({"type":"string","maxLenght":3})", strict());
  ASSERT_TRUE(typo.has_value());
  EXPECT_EQ(typo->kind(), ConstraintErrorKind::InvalidJsonSchema);
  EXPECT_EQ(ignored(R"({"title":"t","description":"d","type":"object","properties":{"a":{"type":"string","maxLength":3}}})",
                    strict()),
            Pointers{});
  // The same schemas compile in standard strictness and list the keyword.
  EXPECT_EQ(ignored(R"({"type":"string","format":"topic"})"), Pointers{"/format"});
}

TEST(SchemaKeywords, StrictnessIsPartOfTheCacheKey) {
  const std::string s = R"({"type":"integer","javaType":"int"})";
  EXPECT_NE(OutputConstraint::json_schema(s).cache_key(), OutputConstraint::json_schema(s, strict()).cache_key());
  // json_object has no keywords to audit: strictness does not split its cache entries.
  EXPECT_EQ(OutputConstraint::json_object().cache_key(), OutputConstraint::json_object(strict()).cache_key());
  grammar::CompileCache cache(byte_domain());
  EXPECT_NO_THROW(compile_constraint(OutputConstraint::json_schema(s), byte_domain(), &cache));
  EXPECT_THROW(compile_constraint(OutputConstraint::json_schema(s, strict()), byte_domain(), &cache), ConstraintError);
}

TEST(SchemaKeywords, TheThreeStrictnessLevelsHaveTheirOwnCacheEntries) {
  const std::string s = R"({"type":"string","maxLenght":2})";
  const std::string standard_key = OutputConstraint::json_schema(s).cache_key();
  const std::string strict_key = OutputConstraint::json_schema(s, strict()).cache_key();
  const std::string lenient_key = OutputConstraint::json_schema(s, lenient()).cache_key();
  EXPECT_NE(standard_key, strict_key);
  EXPECT_NE(standard_key, lenient_key);
  EXPECT_NE(strict_key, lenient_key);
  // A lenient entry never serves a standard or strict request, whichever comes first.
  grammar::CompileCache cache(byte_domain());
  const auto built = compile_constraint(OutputConstraint::json_schema(s, lenient()), byte_domain(), &cache);
  EXPECT_EQ(built.source, grammar::CompileCache::Source::Built);
  for (const auto& fmt : {JsonFormatOptions{}, strict()}) {
    try {
      compile_constraint(OutputConstraint::json_schema(s, fmt), byte_domain(), &cache);
      ADD_FAILURE() << "a typo compiled outside lenient strictness";
    } catch (const ConstraintError& e) {
      EXPECT_EQ(e.kind(), ConstraintErrorKind::InvalidJsonSchema) << e.what();
    }
  }
  // A lenient hit reports the same lists as the build.
  const auto hit = compile_constraint(OutputConstraint::json_schema(s, lenient()), byte_domain(), &cache);
  EXPECT_EQ(hit.source, grammar::CompileCache::Source::Hit);
  EXPECT_EQ(hit.ignored_keywords, Pointers{"/maxLenght"});
  EXPECT_EQ(hit.suspected_typos, (std::vector<SuspectedTypo>{{"/maxLenght", "maxLength"}}));
}

TEST(SchemaKeywords, ATypoErrorNamesTheUnknownKeyword) {
  const auto e = schema_error(R"({"type":"object","properties":{"a":{"type":"number","minimun":0}}})");
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->kind(), ConstraintErrorKind::InvalidJsonSchema) << e->what();
  EXPECT_EQ(e->keyword(), "minimun");
  EXPECT_EQ(e->pointer(), "/properties/a/minimun");
}

TEST(SchemaKeywords, LenientIgnoresATypoAndListsItWithTheKeywordItResembles) {
  // Typos (a string bound, a pattern, an object keyword) beside a vendor keyword: all are listed
  // in ignored_keywords, in document order; only the typos are suspected, each with its keyword.
  const std::string s = R"({
    "type": "object",
    "properties": {"name": {"type": "string", "maxLenght": 2, "pettern": "^a", "x-label": "Name"}},
    "additonalProperties": false
  })";
  const auto cc = compile_constraint(OutputConstraint::json_schema(s, lenient()), byte_domain());
  EXPECT_EQ(cc.ignored_keywords, (Pointers{"/properties/name/maxLenght", "/properties/name/pettern",
                                           "/properties/name/x-label", "/additonalProperties"}));
  EXPECT_EQ(cc.suspected_typos, (std::vector<SuspectedTypo>{{"/properties/name/maxLenght", "maxLength"},
                                                            {"/properties/name/pettern", "pattern"},
                                                            {"/additonalProperties", "additionalProperties"}}));
  // Ignored means asserting nothing, as a specification validator reads them: a long name not
  // starting with "a", and an additional property, pass.
  EXPECT_TRUE(accepts(cc.grammar, R"({"name":"bcdef","other":1})"));
  EXPECT_FALSE(accepts(cc.grammar, R"({"name":1})"));  // the enforced keywords still hold
  // Standard refuses the first typo; a schema without typos has no suspected ones under lenient.
  const auto e = schema_error(s);
  ASSERT_TRUE(e.has_value());
  EXPECT_EQ(e->pointer(), "/properties/name/maxLenght");
  EXPECT_TRUE(compile_constraint(OutputConstraint::json_schema(R"({"type":"string","x-a":1})", lenient()), byte_domain())
                  .suspected_typos.empty());
}

TEST(SchemaKeywords, CacheHitsReportTheSameIgnoredKeywords) {
  const std::string s = R"({"type":"object","properties":{"a":{"type":"string","javaType":"String"}},"x-tag":1})";
  grammar::CompileCache cache(byte_domain());
  const auto built = compile_constraint(OutputConstraint::json_schema(s), byte_domain(), &cache);
  const auto hit = compile_constraint(OutputConstraint::json_schema(s), byte_domain(), &cache);
  EXPECT_EQ(built.source, grammar::CompileCache::Source::Built);
  EXPECT_EQ(hit.source, grammar::CompileCache::Source::Hit);
  EXPECT_EQ(built.ignored_keywords, (Pointers{"/properties/a/javaType", "/x-tag"}));
  EXPECT_EQ(hit.ignored_keywords, built.ignored_keywords);
  EXPECT_EQ(hit.grammar, built.grammar);
  // Each entry keeps its own list, whatever was compiled in between.
  const std::string other = R"({"type":"integer","nullable":true})";
  EXPECT_EQ(compile_constraint(OutputConstraint::json_schema(other), byte_domain(), &cache).ignored_keywords,
            Pointers{"/nullable"});
  const auto other_hit = compile_constraint(OutputConstraint::json_schema(other), byte_domain(), &cache);
  EXPECT_EQ(other_hit.source, grammar::CompileCache::Source::Hit);
  EXPECT_EQ(other_hit.ignored_keywords, Pointers{"/nullable"});
  EXPECT_EQ(compile_constraint(OutputConstraint::json_schema(s), byte_domain(), &cache).ignored_keywords,
            built.ignored_keywords);
}

TEST(SchemaKeywords, OtherConstraintKindsListNothing) {
  EXPECT_TRUE(compile_constraint(OutputConstraint::json_object(), byte_domain()).ignored_keywords.empty());
  EXPECT_TRUE(compile_constraint(OutputConstraint::regex("a+"), byte_domain()).ignored_keywords.empty());
  EXPECT_TRUE(compile_constraint(OutputConstraint::choice({"a", "b"}), byte_domain()).ignored_keywords.empty());
}

// Ignoring a listed keyword relaxes nothing: the language is the one without it.
TEST(SchemaKeywords, ListedKeywordsDoNotChangeTheLanguage) {
  const auto with = compile_schema(R"({"type":"string","maxLength":2,"javaType":"String","x-max":1,"format":"topic"})");
  EXPECT_TRUE(accepts(with, R"("ab")"));
  EXPECT_FALSE(accepts(with, R"("abc")"));
  EXPECT_TRUE(accepts(with, R"("")"));
}

}  // namespace
}  // namespace ninfer::text::testing
