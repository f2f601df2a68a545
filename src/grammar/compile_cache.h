// Thread-safe cache of compiled grammars for one token domain. Concurrent cold builds of one key
// share a single result; at most `max_cold_compiles` different keys compile at once; the byte
// budget bounds what the cache retains, while grammars still in use outlive eviction.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <future>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "grammar/compiled_grammar.h"

namespace ninfer::grammar {

class CompileCache {
 public:
  static constexpr size_t kDefaultBudgetBytes = size_t(256) << 20;

  explicit CompileCache(std::shared_ptr<const TokenDomain> domain, size_t budget_bytes = kDefaultBudgetBytes,
                        int max_cold_compiles = 2);

  enum class Source { Hit, Built, Waited };
  struct Result {
    std::shared_ptr<const CompiledGrammar> grammar;
    Source source = Source::Hit;
  };

  // Looks `key` up; on a miss calls `make_grammar` and compiles on the calling thread. Errors
  // (GrammarError and others) propagate to the builder and every waiter; they are not cached.
  Result get(const std::string& key, const std::function<Grammar()>& make_grammar, const CompileOptions& options = {});

  struct Stats {
    uint64_t hits = 0, builds = 0, waits = 0, evictions = 0, failures = 0;
    size_t bytes = 0, entries = 0;
    int max_concurrent_builds = 0;
  };
  Stats stats() const;
  const std::shared_ptr<const TokenDomain>& domain() const { return domain_; }

 private:
  struct Entry {
    std::shared_future<std::shared_ptr<const CompiledGrammar>> future;
    bool ready = false;
    size_t bytes = 0;
    std::list<std::string>::iterator lru;
  };
  std::shared_ptr<const TokenDomain> domain_;
  size_t budget_;
  int max_cold_;
  mutable std::mutex mu_;
  std::condition_variable slot_cv_;
  int cold_running_ = 0;
  std::unordered_map<std::string, Entry> entries_;
  std::list<std::string> lru_;  // front = most recently used (ready entries only)
  Stats stats_;

  void evict_locked();
};

}  // namespace ninfer::grammar
