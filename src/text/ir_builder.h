// Small constructors for grammar IR expressions, shared by the constraint front ends.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "grammar/grammar_ir.h"

namespace ninfer::text::ir {

inline int32_t literal(grammar::Grammar& g, const std::string& s) {
  grammar::Expr e;
  e.kind = s.empty() ? grammar::ExprKind::Empty : grammar::ExprKind::Literal;
  e.literal = s;
  return g.add(std::move(e));
}

// Empty items are dropped; a single item stands for itself.
inline int32_t seq(grammar::Grammar& g, std::vector<int32_t> items) {
  std::erase_if(items, [&](int32_t x) { return g.exprs[x].kind == grammar::ExprKind::Empty; });
  if (items.empty()) return literal(g, "");
  if (items.size() == 1) return items[0];
  grammar::Expr e;
  e.kind = grammar::ExprKind::Sequence;
  e.children = std::move(items);
  return g.add(std::move(e));
}

// No alternatives = the empty language.
inline int32_t choice(grammar::Grammar& g, std::vector<int32_t> items) {
  if (items.size() == 1) return items[0];
  grammar::Expr e;
  e.kind = grammar::ExprKind::Choice;
  e.children = std::move(items);
  return g.add(std::move(e));
}

inline int32_t repeat(grammar::Grammar& g, int32_t item, uint32_t min, uint32_t max) {
  if (min == 1 && max == 1) return item;
  grammar::Expr e;
  e.kind = grammar::ExprKind::Repeat;
  e.children = {item};
  e.min = min;
  e.max = max;
  return g.add(std::move(e));
}

inline int32_t char_class(grammar::Grammar& g, std::vector<grammar::CodepointRange> ranges) {
  grammar::Expr e;
  e.kind = grammar::ExprKind::CharClass;
  e.ranges = std::move(ranges);
  return g.add(std::move(e));
}

inline int32_t rule_ref(grammar::Grammar& g, int32_t rule) {
  grammar::Expr e;
  e.kind = grammar::ExprKind::RuleRef;
  e.rule = rule;
  return g.add(std::move(e));
}

inline int32_t automaton(grammar::Grammar& g, std::shared_ptr<const grammar::ByteAutomaton> a, bool keep_inline = false) {
  grammar::Expr e;
  e.kind = grammar::ExprKind::Automaton;
  e.automaton = std::move(a);
  e.keep_inline = keep_inline;
  return g.add(std::move(e));
}

}  // namespace ninfer::text::ir
