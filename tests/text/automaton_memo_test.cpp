// The process-wide automaton memo: a schema compiled after another with the same string and number
// constraints reuses their automata, and the grammar (hence the language) is exactly the one a
// fresh build gives.
#include "text/automaton_memo.h"

#include <gtest/gtest.h>

#include "text/json_schema_compiler.h"

namespace ninfer::text {
namespace {

TEST(AutomatonMemo, AHitGivesTheSameGrammarAsTheBuildThatFilledIt) {
  // Bounds no other test uses, so the first compile is a miss.
  const std::string schema =
      R"({"type":"object","properties":{"s":{"type":"string","minLength":3,"maxLength":201},)"
      R"("d":{"type":"string","format":"date-time","maxLength":99},"n":{"type":"number","minimum":-17.25,"maximum":4096}},)"
      R"("required":["s","d","n"],"additionalProperties":false})";
  const std::string key = "len:" + std::to_string(SchemaLimits{}.max_string_length) + ":3,201";
  EXPECT_EQ(AutomatonMemo::shared().find(key), nullptr);
  const LoweredSchema first = json_schema_grammar(schema, {});
  const auto memoised = AutomatonMemo::shared().find(key);
  ASSERT_NE(memoised, nullptr);
  const LoweredSchema second = json_schema_grammar(schema, {});
  EXPECT_EQ(first.grammar.to_string(), second.grammar.to_string());
  EXPECT_EQ(AutomatonMemo::shared().find(key), memoised);  // the same automaton, not a rebuild
  EXPECT_GT(AutomatonMemo::shared().bytes(), 0u);
}

TEST(AutomatonMemo, DifferentBoundsNeverShareAnAutomaton) {
  const auto a = json_schema_grammar(R"({"type":"string","maxLength":202})", {});
  const auto b = json_schema_grammar(R"({"type":"string","maxLength":203})", {});
  const std::string cap = std::to_string(SchemaLimits{}.max_string_length);
  const auto ma = AutomatonMemo::shared().find("len:" + cap + ":0,202");
  const auto mb = AutomatonMemo::shared().find("len:" + cap + ":0,203");
  ASSERT_NE(ma, nullptr);
  ASSERT_NE(mb, nullptr);
  EXPECT_NE(ma, mb);
  EXPECT_NE(a.grammar.to_string(), b.grammar.to_string());
}

}  // namespace
}  // namespace ninfer::text
