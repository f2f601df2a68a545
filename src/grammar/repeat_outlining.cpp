#include "grammar/repeat_outlining.h"

#include <string>

namespace ninfer::grammar {

Grammar outline_repeat_bodies(const Grammar& g) {
  Grammar out = g;
  const size_t n = out.exprs.size();  // new RuleRef expressions appended below are not revisited
  for (size_t i = 0; i < n; ++i) {
    if (out.exprs[i].kind != ExprKind::Repeat || repeat_copies(out.exprs[i]) < 2) continue;
    const int32_t body = out.exprs[i].children[0];
    const ExprKind k = out.exprs[body].kind;
    // Bodies that are one NFA edge gain nothing from a rule of their own.
    if (k == ExprKind::RuleRef || k == ExprKind::CharClass || k == ExprKind::ByteClass || k == ExprKind::TokenSet ||
        k == ExprKind::Empty || (k == ExprKind::Literal && out.exprs[body].literal.size() <= 2))
      continue;
    Rule r;
    r.name = "<repeat#" + std::to_string(i) + ">";
    r.body = body;
    r.location = out.exprs[i].location;
    out.rules.push_back(std::move(r));
    Expr ref;
    ref.kind = ExprKind::RuleRef;
    ref.rule = static_cast<int32_t>(out.rules.size() - 1);
    ref.location = out.exprs[i].location;
    out.exprs[i].children[0] = out.add(std::move(ref));
  }
  return out;
}

}  // namespace ninfer::grammar
