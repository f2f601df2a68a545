// The OpenAI Responses stream: response.created and response.in_progress first (the response in
// progress, no output), then for each output item, in the order the turn writes them:
//   response.output_item.added (the item in progress) before any event that names the item,
//   reasoning: response.content_part.added, response.reasoning_text.delta..., .done, content_part.done
//   message:   response.content_part.added, response.output_text.delta..., .done, content_part.done
//   call:      response.function_call_arguments.delta..., .done
//   response.output_item.done (the item whole),
// and response.completed or response.incomplete carrying the whole response (the same object the
// non-streamed request gets, with its `constraint` report). Every event has `type` (also the SSE
// event name) and a `sequence_number` counting from 0. A failure after the stream opened sends
// response.failed (the output so far, the error) and then an `error` event, on which the SDKs throw.
#pragma once

#include <memory>

#include "api/openai_responses_object.h"
#include "api/openai_responses_request.h"
#include "api/protocol_stream.h"

namespace ninfer::api {

std::unique_ptr<ProtocolStream> make_openai_responses_stream(std::shared_ptr<const ResponsesRequest> request,
                                                             ResponseIds ids);

}  // namespace ninfer::api
