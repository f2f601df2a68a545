#include "text/automaton_memo.h"

#include <mutex>
#include <unordered_map>

namespace ninfer::text {

struct AutomatonMemo::Impl {
  size_t budget = 0;
  size_t bytes = 0;
  mutable std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const grammar::ByteAutomaton>> entries;
};

namespace {

size_t footprint(const std::string& key, const grammar::ByteAutomaton& a) {
  size_t n = key.size() + sizeof(grammar::ByteAutomaton) + a.accepting.size();
  for (const auto& edges : a.edges) n += sizeof(edges) + edges.size() * sizeof(grammar::ByteAutomaton::Edge);
  return n;
}

}  // namespace

AutomatonMemo::AutomatonMemo(size_t budget_bytes) : impl_(std::make_shared<Impl>()) { impl_->budget = budget_bytes; }

AutomatonMemo& AutomatonMemo::shared() {
  static AutomatonMemo memo(kDefaultBudgetBytes);
  return memo;
}

std::shared_ptr<const grammar::ByteAutomaton> AutomatonMemo::find(const std::string& key) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->entries.find(key);
  return it == impl_->entries.end() ? nullptr : it->second;
}

void AutomatonMemo::put(const std::string& key, std::shared_ptr<const grammar::ByteAutomaton> automaton) {
  if (!automaton) return;
  const size_t size = footprint(key, *automaton);
  if (size > impl_->budget / 4) return;  // one huge automaton never evicts everything else
  std::lock_guard<std::mutex> lock(impl_->mu);
  if (impl_->bytes + size > impl_->budget) {
    impl_->entries.clear();
    impl_->bytes = 0;
  }
  if (impl_->entries.emplace(key, std::move(automaton)).second) impl_->bytes += size;
}

size_t AutomatonMemo::bytes() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->bytes;
}

}  // namespace ninfer::text
