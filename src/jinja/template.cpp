#include "jinja/template.h"

#include <list>
#include <mutex>
#include <unordered_map>

#include "jinja/parser.h"
#include "jinja/renderer.h"

namespace ninfer::jinja {

const char* template_error_kind_name(TemplateErrorKind kind) {
  switch (kind) {
    case TemplateErrorKind::Syntax: return "syntax";
    case TemplateErrorKind::Raised: return "raised";
    case TemplateErrorKind::Runtime: return "runtime";
    case TemplateErrorKind::Limit: return "limit";
  }
  return "runtime";
}

Template::~Template() = default;

std::shared_ptr<const Template> Template::parse(std::string_view source, const RenderLimits& limits) {
  if (source.size() > limits.max_source_bytes) {
    throw TemplateError(TemplateErrorKind::Limit, "template source is " + std::to_string(source.size()) +
                                                      " bytes, more than the limit of " + std::to_string(limits.max_source_bytes));
  }
  std::shared_ptr<Template> t(new Template());
  t->limits_ = limits;
  t->parsed_ = std::make_unique<ParsedTemplate>(parse_template(source, limits.max_depth));
  return t;
}

namespace {

template <typename J>
std::string render_with(const ParsedTemplate& parsed, const RenderLimits& limits, const J& context) {
  auto root = std::make_shared<Scope>();
  if (context.is_object()) {
    root->vars.reserve(context.size());
    const Value all = Value::from_json(context);  // one conversion: keys shared across members
    for (const auto& [k, v] : all.dict().entries) root->vars.emplace_back(k.str(), v);
  } else if (!context.is_null()) {
    throw TemplateError(TemplateErrorKind::Runtime, "the template context must be a JSON object");
  }
  Renderer r(parsed, limits);
  return r.render(std::move(root));
}

}  // namespace

std::string Template::render(const nlohmann::json& context) const { return render_with(*parsed_, limits_, context); }
std::string Template::render(const nlohmann::ordered_json& context) const { return render_with(*parsed_, limits_, context); }

std::shared_ptr<const Template> parse_cached(std::string_view source) {
  // LRU over at most kEntries templates and kBytes of source: a server sees few distinct templates, but a hostile
  // client must not be able to grow the cache without bound.
  constexpr size_t kEntries = 64;
  constexpr size_t kBytes = size_t{32} << 20;
  struct Cache {
    std::mutex mu;
    std::list<std::pair<std::string, std::shared_ptr<const Template>>> lru;  // front = most recent
    std::unordered_map<std::string_view, decltype(lru)::iterator> index;
    size_t bytes = 0;
  };
  static Cache cache;
  {
    std::lock_guard lock(cache.mu);
    if (auto it = cache.index.find(source); it != cache.index.end()) {
      cache.lru.splice(cache.lru.begin(), cache.lru, it->second);
      return it->second->second;
    }
  }
  // Parse outside the lock: a slow parse must not block renders of other templates.
  std::shared_ptr<const Template> t = Template::parse(source);
  std::lock_guard lock(cache.mu);
  if (auto it = cache.index.find(source); it != cache.index.end()) return it->second->second;
  cache.lru.emplace_front(std::string(source), t);
  cache.index.emplace(std::string_view(cache.lru.front().first), cache.lru.begin());
  cache.bytes += source.size();
  while (cache.lru.size() > kEntries || (cache.bytes > kBytes && cache.lru.size() > 1)) {
    auto& last = cache.lru.back();
    cache.bytes -= last.first.size();
    cache.index.erase(std::string_view(last.first));
    cache.lru.pop_back();
  }
  return t;
}

}  // namespace ninfer::jinja
