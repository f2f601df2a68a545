// A process-wide memo of the string-content automata that JSON Schema compiles build (length
// bounds, formats, patterns): equal constraints in different schemas — the same `maxLength` or
// `format: date-time` across tools and requests — are built and minimised once. Bounded in bytes
// (a hostile stream of distinct patterns cannot grow it), thread-safe, and never part of any
// language: a hit returns exactly what a build would.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "grammar/grammar_ir.h"

namespace ninfer::text {

class AutomatonMemo {
 public:
  static constexpr size_t kDefaultBudgetBytes = size_t(32) << 20;
  static AutomatonMemo& shared();

  std::shared_ptr<const grammar::ByteAutomaton> find(const std::string& key);
  // Past the byte budget the memo starts over (the grammars holding its automata keep them).
  void put(const std::string& key, std::shared_ptr<const grammar::ByteAutomaton> automaton);
  size_t bytes() const;

 private:
  explicit AutomatonMemo(size_t budget_bytes);
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace ninfer::text
