#include "api/openai_request_common.h"

#include <climits>

#include "api/one_constraint_source.h"
#include "api/sampling_fields.h"

namespace ninfer::api {

void map_openai_request_options(const Field& body, const ChatRequestDefaults& defaults, RequestOptions& ro) {
  SamplingOptions& s = ro.sampling;
  map_openai_sampling(body, s);
  if (auto f = body.optional_member("presence_penalty")) s.presence_penalty = static_cast<float>(f->number(-2, 2));
  if (auto f = body.optional_member("frequency_penalty")) s.frequency_penalty = static_cast<float>(f->number(-2, 2));

  const auto max_tokens = body.optional_member("max_tokens");
  const auto max_completion = body.optional_member("max_completion_tokens");
  ro.max_tokens = defaults.max_tokens;
  if (max_completion) ro.max_tokens = static_cast<int>(max_completion->integer(1, INT_MAX));
  if (max_tokens) {
    const int v = static_cast<int>(max_tokens->integer(1, INT_MAX));
    if (max_completion && v != ro.max_tokens)
      max_tokens->fail("Invalid value for 'max_tokens': it differs from 'max_completion_tokens'; give one of them "
                       "('max_tokens' is deprecated).",
                       "conflicting_parameters");
    ro.max_tokens = v;
  }

  if (auto f = body.optional_member("stop")) {
    if (f->json().is_string()) {
      ro.stop.push_back(f->string());
    } else if (f->json().is_array()) {
      if (f->json().size() > 4)
        f->fail("Invalid 'stop': array too long. Expected an array with at most 4 strings.", "array_above_max_length");
      for (size_t i = 0; i < f->json().size(); ++i) ro.stop.push_back(f->element(i).string());
    } else {
      f->fail_type("a string or an array of strings");
    }
    for (size_t i = 0; i < ro.stop.size(); ++i)
      if (ro.stop[i].empty())
        (f->json().is_array() ? f->element(i) : *f).fail("Invalid value for 'stop': a stop string may not be empty.");
  }
  if (auto f = body.optional_member("ignore_eos")) ro.ignore_eos = f->boolean();
  if (auto f = body.optional_member("thinking_token_budget"))
    ro.thinking_token_budget = static_cast<int>(f->integer(1, INT_MAX));
}

void map_openai_stream(const Field& body, ChatRequest& req) {
  if (auto f = body.optional_member("stream")) req.stream = f->boolean();
  if (auto f = body.optional_member("stream_options")) {
    if (!req.stream)
      f->fail("Invalid value for 'stream_options': 'stream_options' is only allowed when 'stream' is true.");
    f->object();
    f->only_members({"include_usage", "include_obfuscation"});
    if (auto u = f->optional_member("include_usage")) req.include_usage = u->boolean();
    if (auto o = f->optional_member("include_obfuscation")) o->boolean();  // no obfuscation here
  }
}

std::optional<BodyConstraint> map_openai_body_constraint(const Field& body) {
  return one_constraint_source(body, {{"response_format", map_openai_response_format},
                                      {"structured_outputs", map_structured_outputs}});
}

}  // namespace ninfer::api
