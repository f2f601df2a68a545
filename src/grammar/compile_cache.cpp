#include "grammar/compile_cache.h"

namespace ninfer::grammar {

CompileCache::CompileCache(std::shared_ptr<const TokenDomain> domain, size_t budget_bytes, int max_cold_compiles)
    : domain_(std::move(domain)), budget_(budget_bytes), max_cold_(max_cold_compiles < 1 ? 1 : max_cold_compiles) {}

CompileCache::Result CompileCache::get(const std::string& key, const std::function<Grammar()>& make_grammar,
                                       const CompileOptions& options) {
  std::promise<std::shared_ptr<const CompiledGrammar>> promise;
  {
    std::unique_lock lock(mu_);
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      if (it->second.ready) {
        ++stats_.hits;
        lru_.splice(lru_.begin(), lru_, it->second.lru);
        return {it->second.future.get(), Source::Hit};
      }
      auto fut = it->second.future;
      ++stats_.waits;
      lock.unlock();
      return {fut.get(), Source::Waited};  // rethrows the builder's error
    }
    Entry e;
    e.future = promise.get_future().share();
    entries_.emplace(key, std::move(e));
    // Wait for a cold-compile slot; the pending entry already lets same-key callers wait on us.
    slot_cv_.wait(lock, [&] { return cold_running_ < max_cold_; });
    ++cold_running_;
    if (cold_running_ > stats_.max_concurrent_builds) stats_.max_concurrent_builds = cold_running_;
  }
  std::shared_ptr<const CompiledGrammar> result;
  std::exception_ptr error;
  try {
    result = compile(make_grammar(), domain_, options);
  } catch (...) {
    error = std::current_exception();
  }
  {
    std::lock_guard lock(mu_);
    --cold_running_;
    slot_cv_.notify_one();
    auto it = entries_.find(key);
    if (error) {
      ++stats_.failures;
      entries_.erase(it);
    } else {
      ++stats_.builds;
      it->second.ready = true;
      it->second.bytes = result->memory_bytes();
      lru_.push_front(key);
      it->second.lru = lru_.begin();
      stats_.bytes += it->second.bytes;
      evict_locked();
    }
  }
  if (error) {
    promise.set_exception(error);
    std::rethrow_exception(error);
  }
  promise.set_value(result);
  return {result, Source::Built};
}

void CompileCache::evict_locked() {
  // Least recently used first; the newest entry stays even if it alone exceeds the budget.
  while (stats_.bytes > budget_ && lru_.size() > 1) {
    const std::string victim = lru_.back();
    lru_.pop_back();
    auto it = entries_.find(victim);
    stats_.bytes -= it->second.bytes;
    entries_.erase(it);  // holders of the shared_ptr keep the grammar alive
    ++stats_.evictions;
  }
}

CompileCache::Stats CompileCache::stats() const {
  std::lock_guard lock(mu_);
  Stats s = stats_;
  s.entries = entries_.size();
  return s;
}

}  // namespace ninfer::grammar
