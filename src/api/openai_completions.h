// OpenAI (legacy) Completions: POST /v1/completions. A raw prompt (no chat template) continued
// under the request's sampling, stop strings and body constraint (response_format or
// structured_outputs, as vLLM accepts them), answered as a `text_completion` object or its stream.
#pragma once

#include <memory>

#include "api/api_exchange.h"

namespace ninfer::api {

// `prompt`: a string, an array of one string, an array of token ids, or an array of one such array
// (one choice per request: n = 1). max_tokens defaults to 16, as OpenAI's does.
std::unique_ptr<ApiExchange> map_openai_completions_request(const Json& body, const ChatRequestDefaults& defaults);

}  // namespace ninfer::api
