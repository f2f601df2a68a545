#include "models/qwen3/frontend/output_language.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <set>

#include "grammar/grammar_splice.h"
#include "models/qwen3/frontend/chat_format.h"
#include "models/qwen3/frontend/tool_contract.h"
#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"
#include "text/constraint_compiler.h"
#include "text/ir_builder.h"
#include "text/json_schema_compiler.h"
#include "text/json_string_automaton.h"
#include "text/automaton_memo.h"
#include "text/text_excluding.h"

namespace ninfer::qwen3 {
namespace {

namespace ir = text::ir;
using text::CharAutomaton;

// Tool arguments in JSON: the template renders them with tojson (", " and ": "), so one
// whitespace byte is allowed between tokens.
JsonFormatOptions argument_format() { return {JsonWhitespace::Flexible, 1}; }

bool has_tools(const OutputLanguage& lang) { return lang.tools && !lang.tools->empty(); }

// allowed_names narrower than every declared tool.
bool names_narrowed(const OutputLanguage& lang) {
  if (lang.choice.allowed_names.empty()) return false;
  for (const auto& t : *lang.tools)
    if (std::find(lang.choice.allowed_names.begin(), lang.choice.allowed_names.end(), t.name) ==
        lang.choice.allowed_names.end())
      return true;
  return false;
}

std::u32string u32(std::string_view s) { return text::utf8_to_u32(s); }

// The fixed text languages, built once per process (thread-safe statics).
const CharAutomaton& thinking_text() {
  static const CharAutomaton a = text::text_excluding({std::string(kThinkOpen), std::string(kThinkEndTag)});
  return a;
}
const CharAutomaton& body_text(bool with_tools) {
  static const CharAutomaton plain = thinking_text();
  static const CharAutomaton tools =
      text::text_excluding({std::string(kThinkOpen), std::string(kThinkEndTag), std::string(kToolCallOpen)});
  return with_tools ? tools : plain;
}
// Raw XML values: any text without the terminator.
const CharAutomaton& raw_text() {
  static const CharAutomaton a = text::text_excluding({std::string(kXmlValueEnd)});
  return a;
}
// Names inside "<function=" / "<parameter=": one or more characters, no '>' and no newline.
const CharAutomaton& any_name() {
  static const CharAutomaton a = text::text_excluding({">", "\n"}).intersect(CharAutomaton::length_between(1, UINT32_MAX));
  return a;
}

// Lowered argument grammars by (format, strict, parameters): requests that share tools lower each
// one once. Bounded; cleared whole when full (cheap to rebuild, and it keeps no request alive).
class ArgumentGrammarCache {
 public:
  static constexpr size_t kMaxEntries = 512;
  std::shared_ptr<const grammar::Grammar> find(const std::string& key) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = map_.find(key);
    return it == map_.end() ? nullptr : it->second;
  }
  void clear() {
    std::lock_guard<std::mutex> lock(mu_);
    map_.clear();
  }
  void insert(const std::string& key, std::shared_ptr<const grammar::Grammar> g) {
    std::lock_guard<std::mutex> lock(mu_);
    if (map_.size() >= kMaxEntries) map_.clear();
    map_.emplace(key, std::move(g));
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const grammar::Grammar>> map_;
};

ArgumentGrammarCache& argument_cache() {
  static ArgumentGrammarCache cache;
  return cache;
}

class Builder {
 public:
  explicit Builder(const OutputLanguage& lang) : lang_(lang) {}

  // A tool's arguments alone (JSON: the object; XML: the parameter sequence) as a grammar.
  grammar::Grammar build_arguments(ToolContract& c) {
    const int32_t body = lang_.format == ToolCallFormat::Xml ? xml_parameters(c) : json_arguments(c);
    g_.root = rule("arguments", body);
    return std::move(g_);
  }

  grammar::Grammar build() {
    const int32_t after_thinking = ir::rule_ref(g_, rule("output", body_part()));
    int32_t root = after_thinking;
    if (lang_.start == OutputStart::Thinking) {
      root = ir::seq(g_, {thinking(), after_thinking});
    } else if (lang_.start == OutputStart::OptionalThinking) {
      const int32_t block = ir::seq(g_, {ir::literal(g_, std::string(kThinkOpen)), thinking()});
      root = ir::seq(g_, {ir::repeat(g_, block, 0, 1), after_thinking});
    }
    g_.root = rule("root", root);
    return std::move(g_);
  }

 private:
  const OutputLanguage& lang_;
  grammar::Grammar g_;
  int spliced_ = 0;

  int32_t rule(const std::string& name, int32_t body) {
    g_.rules.push_back({name, body, -1, {}});
    const auto r = static_cast<int32_t>(g_.rules.size() - 1);
    g_.label(r, name);
    return r;
  }
  int32_t lit(std::string_view s) { return ir::literal(g_, std::string(s)); }
  int32_t automaton_rule(const std::string& name, const CharAutomaton& a) {
    return ir::rule_ref(g_, rule(name, a.to_ir(g_, text::Encoding::Raw)));
  }
  int32_t splice(const grammar::Grammar& sub, const std::string& prefix) {
    return ir::rule_ref(g_, grammar::splice_grammar(g_, sub, prefix + std::to_string(spliced_++) + ":"));
  }

  // Free reasoning (no <think> or </think>), then the canonical close. EOS cannot come inside.
  int32_t thinking() {
    const int32_t text = automaton_rule("thinking", thinking_text());
    return ir::seq(g_, {text, lit(kThinkClose)});
  }

  // Free body text: never the thinking tags; with tools never "<tool_call>" either.
  int32_t free_text() {
    if (free_text_ < 0) free_text_ = automaton_rule("text", body_text(has_tools(lang_)));
    return free_text_;
  }

  int32_t free_text_ = -1;

  int32_t body() {
    if (!lang_.body) return free_text();
    text::LoweredConstraint lowered = text::lower_constraint(*lang_.body);
    return splice(lowered.grammar, "body/");
  }

  int32_t body_part() {
    if (!has_tools(lang_)) return body();
    // Tools that enforce nothing (Automatic) still shape the grammar when one is built anyway (a
    // body constraint, a thinking budget): calls then take any name and any arguments.
    switch (lang_.choice.mode) {
      case ToolChoiceMode::None:
        return body();
      case ToolChoiceMode::Required:
        return calls();
      case ToolChoiceMode::Auto:
        break;
    }
    const int32_t seq = calls();
    if (lang_.body) return ir::choice(g_, {body(), seq});  // decided at the first byte
    return ir::seq(g_, {free_text(), ir::repeat(g_, seq, 0, 1)});
  }

  // One or more calls (one when parallel is off), one newline between two.
  int32_t calls() {
    const int32_t one = ir::rule_ref(g_, rule("call", call_alternatives()));
    if (!lang_.choice.parallel) return one;
    const int32_t more = ir::repeat(g_, ir::seq(g_, {lit(kCallSeparator), one}), 0, grammar::kUnbounded);
    return ir::rule_ref(g_, rule("calls", ir::seq(g_, {one, more})));
  }

  int32_t call_alternatives() {
    const auto& tools = *lang_.tools;
    const bool narrowed = names_narrowed(lang_);
    const bool enforce_names = lang_.choice.enforcement == ToolEnforcement::Basic || narrowed;
    for (size_t n = 0; n < lang_.choice.allowed_names.size(); ++n) {
      const std::string& name = lang_.choice.allowed_names[n];
      if (std::none_of(tools.begin(), tools.end(), [&](const ToolDefinition& t) { return t.name == name; }))
        throw RequestError(RequestErrorKind::InvalidTools, "tool_choice names '" + name + "', which is not a declared tool")
            .at_param(lang_.choice.allowed_names.size() == 1 ? "tool_choice.function.name" : "tool_choice");
    }
    std::vector<int32_t> alternatives;
    std::vector<std::string> declared;
    for (size_t i = 0; i < tools.size(); ++i) {
      declared.push_back(tools[i].name);
      if (!lang_.choice.allowed_names.empty() &&
          std::find(lang_.choice.allowed_names.begin(), lang_.choice.allowed_names.end(), tools[i].name) ==
              lang_.choice.allowed_names.end())
        continue;
      ToolContract c = read_tool_contract(tools[i], static_cast<int>(i));
      alternatives.push_back(lang_.format == ToolCallFormat::Xml ? xml_call(c) : json_call(c));
    }
    if (!enforce_names) alternatives.push_back(lang_.format == ToolCallFormat::Xml ? xml_any_call(declared) : json_any_call(declared));
    return ir::choice(g_, alternatives);
  }

  // ---- JSON format ------------------------------------------------------------------------------

  int32_t json_arguments(const ToolContract& c) {
    const ToolDefinition& t = *c.definition;
    if (!t.strict) return any_json_object();
    const std::string schema = t.parameters.empty() ? R"({"type":"object","additionalProperties":false})" : t.parameters;
    try {
      text::LoweredSchema l = text::json_schema_grammar(schema, argument_format());
      return splice(l.grammar, "tool" + std::to_string(c.index) + "/");
    } catch (ConstraintError& e) {
      throw e.in_tool(c.index);
    }
  }

  int32_t any_json_object() {
    if (any_object_ < 0) any_object_ = splice(text::json_object_grammar(argument_format()).grammar, "object/");
    return any_object_;
  }
  int32_t any_object_ = -1;

  // Through the argument cache (strict tools; a non-strict one shares the any-object rule).
  int32_t arguments(ToolContract& c) {
    if (!c.definition->strict) return lang_.format == ToolCallFormat::Xml ? xml_parameters(c) : json_arguments(c);
    const std::string key = std::string(lang_.format == ToolCallFormat::Xml ? "xml|" : "json|") + c.definition->parameters;
    std::shared_ptr<const grammar::Grammar> sub = argument_cache().find(key);
    if (!sub) {
      sub = std::make_shared<const grammar::Grammar>(Builder(lang_).build_arguments(c));
      argument_cache().insert(key, sub);
    }
    return splice(*sub, "tool" + std::to_string(c.index) + "/");
  }

  int32_t json_call(ToolContract& c) {
    const std::string head = std::string(kJsonCallHead) + c.definition->name + std::string(kJsonCallMiddle);
    return ir::seq(g_, {lit(head), arguments(c), lit(kJsonCallTail)});
  }

  int32_t json_any_call(const std::vector<std::string>& declared) {
    const int32_t name = ir::automaton(g_, text::json_string_content_except(declared));
    return ir::seq(g_, {lit(kJsonCallHead), name, lit(kJsonCallMiddle), any_json_object(), lit(kJsonCallTail)});
  }

  // ---- XML format -------------------------------------------------------------------------------

  int32_t raw_value() {
    if (raw_value_ < 0) raw_value_ = automaton_rule("raw value", raw_text());
    return raw_value_;
  }
  int32_t raw_value_ = -1;

  // A parameter name: no '>' and no newline, not one of `taken`.
  int32_t parameter_name(const std::vector<std::string>& taken) {
    if (taken.empty()) {
      if (any_name_ < 0) any_name_ = automaton_rule("name", any_name());
      return any_name_;
    }
    CharAutomaton excluded;
    for (const auto& t : taken) excluded = excluded.unite(CharAutomaton::literal(u32(t)));
    return automaton_rule("name", any_name().intersect(excluded.complement()));
  }

  int32_t any_name_ = -1;

  // Any number of parameters, any names except `taken`, raw values.
  int32_t free_parameters(const std::vector<std::string>& taken) {
    const int32_t one =
        ir::seq(g_, {lit(kXmlParameterOpen), parameter_name(taken), lit(">\n"), raw_value(), lit(kXmlParameterClose)});
    return ir::repeat(g_, one, 0, grammar::kUnbounded);
  }

  int32_t xml_value(const ToolContract& c, const XmlParameter& p) {
    try {
      if (p.kind != XmlValueKind::Json) {
        // The value's language depends only on the parameter's schema (its own root for $ref) and
        // kind: built once per process for equal parameters (text/automaton_memo.h).
        const std::string memo_key = "xmlraw:" + std::to_string(int(p.kind)) + ":" + p.schema.dump();
        if (auto known = text::AutomatonMemo::shared().find(memo_key))
          return ir::rule_ref(g_, rule("value " + p.name, ir::automaton(g_, std::move(known))));
        const CharAutomaton own = xml_string_language(p);
        if (p.kind == XmlValueKind::RawString && own == CharAutomaton::any_string()) return raw_value();
        CharAutomaton lang = own.intersect(raw_text());
        if (p.kind == XmlValueKind::RawStringOrNull) lang = lang.unite(CharAutomaton::literal(U"null")).unite(CharAutomaton::literal(U"None"));
        const int32_t body = lang.to_ir(g_, text::Encoding::Raw);
        if (g_.exprs[body].kind == grammar::ExprKind::Automaton)
          text::AutomatonMemo::shared().put(memo_key, g_.exprs[body].automaton);
        return ir::rule_ref(g_, rule("value " + p.name, body));
      }
      text::LoweredSchema l = text::json_schema_grammar(p.schema.dump(), argument_format());
      std::vector<int32_t> alternatives{splice(l.grammar, "tool" + std::to_string(c.index) + "/" + p.name + "/")};
      if (p.python_true) alternatives.push_back(lit("True"));
      if (p.python_false) alternatives.push_back(lit("False"));
      if (p.python_none) alternatives.push_back(lit("None"));
      return ir::choice(g_, alternatives);
    } catch (ConstraintError& e) {
      // The property's own document: pointers outside $defs / definitions are under its property.
      const std::string& ptr = e.pointer();
      const bool shared = ptr.rfind("/$defs", 0) == 0 || ptr.rfind("/definitions", 0) == 0;
      if (!shared && ptr.rfind(p.pointer, 0) != 0) e.at_pointer(p.pointer + ptr);
      throw e.in_tool(c.index);
    }
  }

  int32_t xml_parameters(ToolContract& c) {
    const ToolDefinition& t = *c.definition;
    if (!t.strict) return free_parameters({});
    plan_xml_parameters(c);
    std::vector<int32_t> items;
    std::vector<std::string> declared;
    for (const XmlParameter& p : c.xml_parameters) {
      declared.push_back(p.name);
      const int32_t one = ir::seq(g_, {lit(std::string(kXmlParameterOpen) + p.name + ">\n"), xml_value(c, p), lit(kXmlParameterClose)});
      items.push_back(p.required ? one : ir::repeat(g_, one, 0, 1));
    }
    if (c.xml_additional) items.push_back(free_parameters(declared));
    return ir::seq(g_, items);
  }

  int32_t xml_call(ToolContract& c) {
    return ir::seq(g_, {lit(std::string(kXmlCallHead) + c.definition->name + ">\n"), arguments(c), lit(kXmlFunctionEnd)});
  }

  int32_t xml_any_call(const std::vector<std::string>& declared) {
    return ir::seq(g_, {lit(kXmlCallHead), parameter_name(declared), lit(">\n"), free_parameters({}), lit(kXmlFunctionEnd)});
  }
};

}  // namespace

bool tool_rules_enforced(const OutputLanguage& lang) {
  if (!has_tools(lang)) return false;
  const ToolChoice& c = lang.choice;
  if (c.enforcement == ToolEnforcement::Basic || c.mode != ToolChoiceMode::Auto || !c.parallel || names_narrowed(lang))
    return true;
  return std::any_of(lang.tools->begin(), lang.tools->end(), [](const ToolDefinition& t) { return t.strict; });
}

bool needs_grammar(const OutputLanguage& lang, bool force) {
  return force || lang.body != nullptr || tool_rules_enforced(lang);
}

std::string output_language_key(const OutputLanguage& lang) {
  auto field = [](const std::string& s) { return std::to_string(s.size()) + ":" + s; };
  std::string key = "qwen3-output|";
  key += "start=" + std::to_string(static_cast<int>(lang.start));  // the names live in the runtime library
  key += "|body=" + (lang.body ? field(lang.body->cache_key()) : std::string("-"));
  if (has_tools(lang)) {
    key += "|format=";
    key += lang.format == ToolCallFormat::Xml ? "xml" : "json";
    key += "|mode=" + std::to_string(static_cast<int>(lang.choice.mode));
    key += "|parallel=" + std::to_string(lang.choice.parallel);
    key += "|enforcement=" + std::to_string(static_cast<int>(lang.choice.enforcement));
    key += "|allowed=";
    for (const auto& n : lang.choice.allowed_names) key += field(n);
    key += "|tools=";
    for (const auto& t : *lang.tools) key += field(t.name) + (t.strict ? "S" : "N") + field(t.parameters);
  } else {
    key += "|no-tools";
  }
  return key;
}

grammar::Grammar output_language_grammar(const OutputLanguage& lang) { return Builder(lang).build(); }

void clear_argument_grammar_cache() { argument_cache().clear(); }

}  // namespace ninfer::qwen3
