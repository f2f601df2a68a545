// The sampling fields OpenAI's Chat Completions and Responses bodies share (temperature, top_p), with
// vLLM's top_k and min_p and the seed, read into SamplingOptions with OpenAI's ranges.
#pragma once

#include "api/request_field.h"
#include "ninfer/engine.h"

namespace ninfer::api {

// Reads each field the body holds; the others keep their SamplingOptions defaults.
void map_openai_sampling(const Field& body, SamplingOptions& sampling);

}  // namespace ninfer::api
