// Property: a keyword name mutated at random (insertion, deletion, substitution, transposition,
// case change, underscores) in a schema of the JSON-Schema-Test-Suite is never silently dropped.
// Either the new name is a keyword some draft defines, or the compile result lists it in
// ignored_keywords at its pointer, or compilation fails with a typo error naming it at its pointer
// (or fails for another reason while the keyword audit lists it). Under strict schema
// strictness, every new name that is not a keyword is an error at its pointer. The oracle for
// "keyword" and for where keywords sit is this file's own list and walk, from the drafts' meta-schemas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "text/json_schema_compiler.h"
#include "text/json_schema_test_support.h"

namespace ninfer::text::testing {
namespace {

namespace fs = std::filesystem;

// Every keyword of draft-04, -06, -07, 2019-09 and 2020-12 (all vocabularies).
const std::set<std::string> kDraftKeywords = {
    "$schema", "$id", "id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$recursiveRef", "$recursiveAnchor",
    "$vocabulary", "$comment", "$defs", "definitions", "type", "enum", "const", "multipleOf", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "maxLength", "minLength", "pattern", "maxItems", "minItems",
    "uniqueItems", "maxContains", "minContains", "maxProperties", "minProperties", "required", "dependentRequired",
    "dependencies", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "prefixItems", "items",
    "additionalItems", "contains", "properties", "patternProperties", "additionalProperties", "propertyNames",
    "unevaluatedItems", "unevaluatedProperties", "format", "contentEncoding", "contentMediaType", "contentSchema",
    "title", "description", "default", "deprecated", "readOnly", "writeOnly", "examples"};

struct Site {
  std::vector<std::string> path;  // object keys / array indices from the root to the schema object
  std::string keyword;
};

std::string escape(const std::string& t) {
  std::string out;
  for (char c : t) out += c == '~' ? "~0" : c == '/' ? "~1" : std::string(1, c);
  return out;
}

std::string pointer_of(const Site& s) {
  std::string p;
  for (const auto& t : s.path) p += "/" + escape(t);
  return p + "/" + escape(s.keyword);
}

// Keywords at schema positions, by the meta-schemas of the draft (no descent into unknown keywords).
void collect_sites(const OJson& schema, std::vector<std::string>& path, bool draft7, std::vector<Site>& out) {
  if (!schema.is_object()) return;
  for (const auto& [k, v] : schema.items()) {
    out.push_back({path, k});
    auto sub = [&](const OJson& x, std::initializer_list<std::string> more) {
      for (const auto& m : more) path.push_back(m);
      collect_sites(x, path, draft7, out);
      path.resize(path.size() - more.size());
    };
    const bool single = k == "not" || k == "if" || k == "then" || k == "else" || k == "additionalProperties" ||
                        k == "propertyNames" || k == "contains" || (k == "additionalItems" && draft7) ||
                        (k == "items" && !v.is_array());
    const bool list = k == "allOf" || k == "anyOf" || k == "oneOf" || (k == "prefixItems" && !draft7) ||
                      (k == "items" && v.is_array() && draft7);
    const bool map = k == "properties" || k == "patternProperties" || k == "$defs" || k == "definitions" ||
                     (k == "dependentSchemas" && !draft7);
    if (single) {
      sub(v, {k});
    } else if (list && v.is_array()) {
      for (size_t i = 0; i < v.size(); ++i) sub(v[i], {k, std::to_string(i)});
    } else if (map && v.is_object()) {
      for (const auto& [name, x] : v.items()) sub(x, {k, name});
    }
  }
}

// One random edit of a keyword name.
std::string mutate(const std::string& k, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  const std::string letters = "abcdefghijklmnopqrstuvwxyzAEILMNOPRSTY_";
  for (;;) {
    std::string m = k;
    switch (pick(7)) {
      case 0: m.insert(m.begin() + static_cast<std::ptrdiff_t>(pick(m.size() + 1)), letters[pick(letters.size())]); break;
      case 1:
        if (m.size() > 1) m.erase(pick(m.size()), 1);
        break;
      case 2: m[pick(m.size())] = letters[pick(letters.size())]; break;
      case 3:
        if (m.size() > 1) {
          const size_t i = pick(m.size() - 1);
          std::swap(m[i], m[i + 1]);
        }
        break;
      case 4: {  // one letter's case
        const size_t i = pick(m.size());
        if (std::isalpha(static_cast<unsigned char>(m[i])))
          m[i] = std::islower(static_cast<unsigned char>(m[i])) ? static_cast<char>(std::toupper(m[i]))
                                                                 : static_cast<char>(std::tolower(m[i]));
        break;
      }
      case 5:  // the whole name's case
        for (auto& c : m) c = static_cast<char>(pick(2) ? std::tolower(c) : std::toupper(c));
        break;
      default: {  // camelCase -> snake_case, or one underscore inside
        std::string snake;
        for (char c : m) {
          if (std::isupper(static_cast<unsigned char>(c)) && !snake.empty()) snake += '_';
          snake += static_cast<char>(std::tolower(c));
        }
        if (snake != m) m = snake;
        else if (m.size() > 1) m.insert(1 + pick(m.size() - 1), "_");
      }
    }
    if (m != k && !m.empty()) return m;
  }
}

// `schema` with the key at `site` renamed, members in their order.
OJson renamed(const OJson& schema, const Site& site, const std::string& name, size_t depth = 0) {
  if (depth == site.path.size()) {
    OJson out = OJson::object();
    for (const auto& [k, v] : schema.items()) out[k == site.keyword ? name : k] = v;
    return out;
  }
  OJson out = schema;
  const std::string& t = site.path[depth];
  if (schema.is_array()) out[std::stoul(t)] = renamed(schema[std::stoul(t)], site, name, depth + 1);
  else out[t] = renamed(schema[t], site, name, depth + 1);
  return out;
}

struct Corpus {
  struct Entry {
    std::string source;  // with $schema for draft7
    OJson schema;
    bool draft7;
    bool strict_clean;   // compiles under strict strictness too
  };
  std::vector<Entry> entries;
};

bool lowers(const std::string& schema, const JsonFormatOptions& fmt = {}) {
  try {
    lower_constraint(OutputConstraint::json_schema(schema, fmt));
    return true;
  } catch (const ConstraintError&) {
    return false;
  }
}

Corpus load_corpus() {
  Corpus c;
  const fs::path root = fs::path(NINFER_SHARED_DATA_DIR) / "json-schema-test-suite" / "tests";
  for (const char* draft : {"draft2020-12", "draft7"}) {
    const bool draft7 = std::string(draft) == "draft7";
    if (!fs::is_directory(root / draft)) continue;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(root / draft))
      if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      std::ifstream in(f);
      for (const auto& cs : OJson::parse(in)) {
        OJson schema = cs.at("schema");
        if (!schema.is_object()) continue;
        if (draft7 && !schema.contains("$schema")) {
          OJson with = OJson::object();
          with["$schema"] = "http://json-schema.org/draft-07/schema#";
          for (const auto& [k, v] : schema.items()) with[k] = v;
          schema = std::move(with);
        }
        // Only schemas that lower as they are: a failure after the mutation is then the mutation's.
        JsonFormatOptions strict;
        strict.schema_strictness = SchemaStrictness::Strict;
        if (!lowers(schema.dump())) continue;
        c.entries.push_back({schema.dump(), schema, draft7, lowers(schema.dump(), strict)});
      }
    }
  }
  return c;
}

TEST(KeywordMutation, AMutatedKeywordIsNeverSilentlyDropped) {
  const Corpus corpus = load_corpus();
  if (corpus.entries.empty()) GTEST_SKIP() << "JSON-Schema-Test-Suite not found under " << NINFER_SHARED_DATA_DIR;
  std::mt19937_64 rng(20261201);
  JsonFormatOptions strict;
  strict.schema_strictness = SchemaStrictness::Strict;
  int known = 0, listed = 0, typo = 0, listed_then_failed = 0, strict_checked = 0, failures = 0;
  constexpr int kMutations = 3000;
  for (int i = 0; i < kMutations && failures < 10; ++i) {
    const auto& entry = corpus.entries[rng() % corpus.entries.size()];
    std::vector<Site> sites;
    std::vector<std::string> path;
    collect_sites(entry.schema, path, entry.draft7, sites);
    if (sites.empty()) continue;
    const Site site = sites[rng() % sites.size()];
    const std::string name = mutate(site.keyword, rng);
    // A name the object already has would merge two members: not a rename.
    const OJson* holder = &entry.schema;
    for (const auto& t : site.path) holder = holder->is_array() ? &(*holder)[std::stoul(t)] : &(*holder)[t];
    if (holder->contains(name)) continue;
    const std::string mutated = renamed(entry.schema, site, name).dump();
    const std::string pointer = pointer_of({site.path, name});
    const std::string where = "mutated '" + site.keyword + "' -> '" + name + "' at " + pointer + " in " + mutated;
    if (kDraftKeywords.count(name)) {
      ++known;
      try {
        lower_constraint(OutputConstraint::json_schema(mutated));
      } catch (const ConstraintError&) {
        // A keyword in a new place may be refused like any keyword.
      }
      continue;
    }
    auto is_typo_error = [&](const ConstraintError& e) {
      return e.kind() == ConstraintErrorKind::InvalidJsonSchema && e.pointer() == pointer &&
             std::string(e.what()).find("unknown keyword '" + name + "' (did you mean") != std::string::npos;
    };
    try {
      // Lowering is where keywords are read (the token-level compile adds nothing to it, and
      // would cost most of the test's time).
      const auto r = lower_constraint(OutputConstraint::json_schema(mutated));
      if (std::find(r.ignored_keywords.begin(), r.ignored_keywords.end(), pointer) != r.ignored_keywords.end()) {
        ++listed;
      } else {
        ++failures;
        ADD_FAILURE() << "silently dropped: " << where;
      }
    } catch (const ConstraintError& e) {
      if (is_typo_error(e)) {
        ++typo;
      } else {
        // Another failure (a $defs renamed away leaves its $refs dangling): loud, and the audit lists the name.
        std::vector<std::string> audit;
        try {
          audit = json_schema_keyword_audit(mutated, {}).ignored;
        } catch (const ConstraintError&) {
          // A typo error elsewhere: not the mutated name's.
        }
        if (std::find(audit.begin(), audit.end(), pointer) != audit.end()) {
          ++listed_then_failed;
          if (std::getenv("NINFER_MUTATION_VERBOSE")) std::printf("listed then failed: %s: %s\n", e.what(), where.c_str());
        } else {
          ++failures;
          ADD_FAILURE() << "fails without naming the keyword (" << constraint_error_kind_name(e.kind()) << ": "
                        << e.what() << "): " << where;
        }
      }
    }
    if (!entry.strict_clean) continue;
    ++strict_checked;
    std::optional<ConstraintError> e;
    try {
      lower_constraint(OutputConstraint::json_schema(mutated, strict));
    } catch (const ConstraintError& x) {
      e = x;
    }
    if (!e || !(is_typo_error(*e) || (e->kind() == ConstraintErrorKind::UnsupportedSchema && e->pointer() == pointer &&
                                      e->keyword() == name))) {
      ++failures;
      ADD_FAILURE() << "strict: " << (e ? std::string("wrong error: ") + e->what() : std::string("compiles")) << ": "
                    << where;
    }
  }
  const auto strict_clean = std::count_if(corpus.entries.begin(), corpus.entries.end(),
                                          [](const Corpus::Entry& x) { return x.strict_clean; });
  std::printf("[keyword mutation] schemas %zu (strict-clean %td), mutations: known %d, listed %d, typo errors %d, "
              "listed then failed %d; strict checked %d\n",
              corpus.entries.size(), strict_clean, known, listed, typo, listed_then_failed, strict_checked);
  EXPECT_GT(listed, 0);
  EXPECT_GT(typo, 0);
}

}  // namespace
}  // namespace ninfer::text::testing
