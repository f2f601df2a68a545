#include "grammar/grammar_splice.h"

namespace ninfer::grammar {

int32_t splice_grammar(Grammar& dst, const Grammar& src, const std::string& name_prefix) {
  const auto expr_base = static_cast<int32_t>(dst.exprs.size());
  const auto rule_base = static_cast<int32_t>(dst.rules.size());
  auto shift_expr = [&](int32_t e) { return e < 0 ? e : e + expr_base; };
  auto shift_rule = [&](int32_t r) { return r < 0 ? r : r + rule_base; };

  dst.exprs.reserve(dst.exprs.size() + src.exprs.size());
  for (const Expr& e : src.exprs) {
    Expr copy = e;
    for (int32_t& c : copy.children) c = shift_expr(c);
    copy.rule = shift_rule(copy.rule);
    dst.exprs.push_back(std::move(copy));
  }
  dst.rules.reserve(dst.rules.size() + src.rules.size());
  for (const Rule& r : src.rules) {
    Rule copy = r;
    copy.name = name_prefix + r.name;
    copy.body = shift_expr(r.body);
    copy.lookahead = shift_expr(r.lookahead);
    dst.rules.push_back(std::move(copy));
  }
  for (const KeySetObject& k : src.key_sets) {
    KeySetObject copy = k;
    copy.rule = shift_rule(k.rule);
    for (int32_t& r : copy.keys) r = shift_rule(r);
    for (int32_t& r : copy.additional) r = shift_rule(r);
    dst.key_sets.push_back(std::move(copy));
  }
  if (!src.origins.empty()) {
    dst.origins.resize(static_cast<size_t>(rule_base));  // dst's unlabelled tail stays unlabelled
    dst.origins.insert(dst.origins.end(), src.origins.begin(), src.origins.end());
  }
  for (const auto& [ref, place] : src.ref_places) dst.ref_places[shift_expr(ref)] = place;
  return shift_rule(src.root);
}

}  // namespace ninfer::grammar
