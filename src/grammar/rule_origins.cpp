#include "grammar/rule_origins.h"

namespace ninfer::grammar {

uint32_t OriginTree::enter(uint32_t parent, int32_t rule, uint32_t place) {
  const RuleOrigin* o = g_.origin(rule);
  if (!o) return parent;
  const auto key = std::make_tuple(parent, rule, place);
  auto it = node_of_.find(key);
  if (it != node_of_.end()) return it->second;
  auto [oit, fresh] = origin_of_.try_emplace(rule, static_cast<uint32_t>(origins.size()));
  if (fresh) origins.push_back(*o);
  const uint32_t id = static_cast<uint32_t>(nodes.size());
  nodes.push_back({parent, oit->second, parent == kNoOrigin ? 1u : nodes[parent].depth + 1, place});
  node_of_.emplace(key, id);
  return id;
}

uint32_t OriginTree::common_slow(uint32_t x, uint32_t y) const {
  if (x == kNoOrigin || y == kNoOrigin) return kNoOrigin;
  while (nodes[x].depth > nodes[y].depth) x = nodes[x].parent;
  while (nodes[y].depth > nodes[x].depth) y = nodes[y].parent;
  while (x != y) x = nodes[x].parent, y = nodes[y].parent;
  return x;
}

}  // namespace ninfer::grammar
