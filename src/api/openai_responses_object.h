// GenerationResult -> OpenAI Responses `response` object, and the output items it holds. The items
// are separate so that the stream (openai_responses_stream.h) announces, fills and closes the same
// items and ends with the same object.
//
// Output order: a reasoning item (when the turn thought), a message item (when it wrote content, or
// when it produced nothing at all), then one function_call item per call. Item ids are the response
// id's random part with the item's position (msg_<hex>0001), so that a streamed response and its
// final object name each item alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "api/api_error.h"
#include "api/chat_request.h"
#include "api/openai_responses_request.h"
#include "api/request_field.h"

namespace ninfer::api {

struct ResponseIds {
  std::string id;          // "resp_<32 hex>"
  int64_t created_at = 0;  // Unix seconds
};
// A fresh id created now.
ResponseIds new_response_ids();
// "rs_", "msg_" or "fc_" + the response id's random part + the position as 4 hex digits.
std::string output_item_id(std::string_view prefix, const ResponseIds& ids, size_t index);

struct ResponseItem {
  enum class Kind { Reasoning, Message, FunctionCall };
  enum class Status { InProgress, Completed, Incomplete };
  Kind kind = Kind::Message;
  std::string id;
  std::string text;           // reasoning text, message text, or the call's arguments JSON text
  std::string call_id, name;  // function calls
  Status status = Status::InProgress;
};

// The items of a finished chat turn; the last one is Incomplete when the result hit its token cap.
std::vector<ResponseItem> response_items(const GenerationResult& result, const ResponseIds& ids);
// One output item: in progress (as output_item.added announces it: no text yet) or done.
Json response_item_json(const ResponseItem& item);
// {type: "output_text", text, annotations: []} and {type: "reasoning_text", text}.
Json output_text_part(const std::string& text);
Json reasoning_text_part(const std::string& text);

enum class ResponseStatus { InProgress, Completed, Incomplete, Failed };
// {input_tokens, input_tokens_details, output_tokens, output_tokens_details, total_tokens}
Json responses_usage(const Usage& usage);

// The response object. `result` (null while in progress or failed) gives usage, the constraint report
// and completed_at; `error` (status Failed) gives the error member.
Json response_json(const ResponsesEcho& echo, const ResponseIds& ids, ResponseStatus status,
                   const std::vector<ResponseItem>& items, const GenerationResult* result,
                   const ApiError* error = nullptr);

// The non-streamed response: completed, or incomplete at max_output_tokens. An error or cancelled
// result throws the ApiError it maps to.
Json openai_response(const ResponsesRequest& request, const ResponseIds& ids, const GenerationResult& result);

// Completed or Incomplete for a finished result; an error or cancelled result throws its ApiError.
ResponseStatus finished_status(const GenerationResult& result, const ChatRequest& request);

}  // namespace ninfer::api
