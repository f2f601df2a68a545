// Engine errors -> ApiError, located in the request that caused them: a tool's schema error names
// tools[i].function.parameters down to the keyword, a body-constraint error names the field the
// constraint came from, a template or context error names what the Engine reports.
// Status: 400 for what the request can fix, 503 while the engine is overloaded or draining (a retry
// may pass), 500 for faults of the engine or the model.
#pragma once

#include "api/api_error.h"
#include "api/chat_request.h"
#include "ninfer/constraint_error.h"
#include "ninfer/engine.h"

namespace ninfer::api {

ApiError from_constraint_error(const ConstraintError& error, const ChatRequest& request);
ApiError from_request_error(const RequestError& error, const ChatRequest& request);
// A result that finished with FinishReason::Error (the request failed during generation).
ApiError from_result_error(const GenerationResult& result, const ChatRequest& request);
// Any exception out of prepare/submit: ConstraintError, RequestError, ApiError; anything else is a 500.
ApiError from_exception(const std::exception& error, const ChatRequest& request);

}  // namespace ninfer::api
