#include "api/openai_responses_stream.h"

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/utf8_text.h"

namespace ninfer::api {
namespace {

using Kind = ResponseItem::Kind;
using Status = ResponseItem::Status;

// The length of the end of `s` that is the start of a UTF-8 character whose other bytes are still
// to come (0 when `s` ends on a whole character or on bytes that can never become one).
size_t unfinished_utf8_tail(std::string_view s) {
  for (size_t back = 1; back <= 3 && back <= s.size(); ++back) {
    const auto c = static_cast<unsigned char>(s[s.size() - back]);
    if ((c & 0xC0) == 0x80) continue;  // a continuation byte: look further back for the lead
    const size_t need = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return c >= 0xC2 && c <= 0xF4 && need > back ? back : 0;
  }
  return 0;
}

class ResponsesStream final : public ProtocolStream {
 public:
  ResponsesStream(std::shared_ptr<const ResponsesRequest> request, ResponseIds ids)
      : request_(std::move(request)), ids_(std::move(ids)) {}

  void open(std::vector<SseEvent>& out) override {
    const Json response = response_json(request_->echo, ids_, ResponseStatus::InProgress, {}, nullptr);
    emit(out, "response.created", {{"response", response}});
    emit(out, "response.in_progress", {{"response", response}});
  }

  void delta(const qwen3::ChatDelta& d, std::vector<SseEvent>& out) override {
    switch (d.kind) {
      case qwen3::ChatDelta::Kind::Reasoning:
        if (d.text.empty()) return;
        if (!open_item_is(Kind::Reasoning)) open_item(Kind::Reasoning, "rs_", out);
        append(*open_, d.text, out);
        return;
      case qwen3::ChatDelta::Kind::Content:
        if (d.text.empty()) return;
        if (!open_item_is(Kind::Message)) open_item(Kind::Message, "msg_", out);
        append(*open_, d.text, out);
        return;
      case qwen3::ChatDelta::Kind::ToolCallBegin: open_item(Kind::FunctionCall, "fc_", out, &d); return;
      case qwen3::ChatDelta::Kind::ToolCallArguments: {
        if (d.text.empty()) return;
        // The parser sends a call's arguments right after its begin, so the call is the open item;
        // looked up by index all the same.
        for (const auto& [call, index] : calls_)
          if (call == d.index) return append(index, d.text, out);
        return;  // arguments of a call never begun: nothing to attach them to
      }
    }
  }

  void finish(const GenerationResult& result, std::vector<SseEvent>& out) override {
    ResponseStatus status;
    try {
      status = finished_status(result, request_->chat);
    } catch (const ApiError& e) {
      fail(e, out);
      return;
    }
    // A turn that produced nothing still answers with an (empty) message, as the final object does.
    if (items_.empty()) open_item(Kind::Message, "msg_", out);
    close_open_item(status == ResponseStatus::Incomplete ? Status::Incomplete : Status::Completed, out);
    const Json response = response_json(request_->echo, ids_, status, items_, &result);
    emit(out, status == ResponseStatus::Incomplete ? "response.incomplete" : "response.completed",
         {{"response", response}});
  }

  void fail(const ApiError& error, std::vector<SseEvent>& out) override {
    if (open_) items_[*open_].status = Status::Incomplete;
    open_.reset();
    const Json response = response_json(request_->echo, ids_, ResponseStatus::Failed, items_, nullptr, &error);
    emit(out, "response.failed", {{"response", response}});
    emit(out, "error",
         {{"code", error.code.empty() ? Json(nullptr) : Json(error.code)},
          {"message", error.message},
          {"param", error.param.empty() ? Json(nullptr) : Json(error.param)}});
  }

 private:
  void emit(std::vector<SseEvent>& out, const char* type, const Json& fields) {
    Json data = {{"type", type}, {"sequence_number", sequence_++}};
    for (const auto& [key, value] : fields.items()) data[key] = value;
    out.push_back({type, data.dump()});
  }

  bool open_item_is(Kind kind) const { return open_ && items_[*open_].kind == kind; }

  // Closes the open item and announces a new one (with its content part, for text items).
  void open_item(Kind kind, const char* prefix, std::vector<SseEvent>& out,
                          const qwen3::ChatDelta* call = nullptr) {
    close_open_item(Status::Completed, out);
    ResponseItem item;
    item.kind = kind;
    item.id = output_item_id(prefix, ids_, items_.size());
    if (call) {
      item.call_id = call->id;
      item.name = call->name;
      calls_.emplace_back(call->index, items_.size());
    }
    items_.push_back(std::move(item));
    pending_.emplace_back();
    open_ = items_.size() - 1;
    const ResponseItem& added = items_.back();
    emit(out, "response.output_item.added", {{"output_index", *open_}, {"item", response_item_json(added)}});
    if (kind == Kind::Reasoning)
      emit(out, "response.content_part.added",
           {{"item_id", added.id}, {"output_index", *open_}, {"content_index", 0}, {"part", reasoning_text_part("")}});
    else if (kind == Kind::Message)
      emit(out, "response.content_part.added",
           {{"item_id", added.id}, {"output_index", *open_}, {"content_index", 0}, {"part", output_text_part("")}});
  }

  // Adds text to item `index` and sends the delta event of its kind. A character cut between two
  // pieces is held back until it is whole, so that every delta is valid UTF-8 and the deltas add up
  // to the valid_utf8 text of the .done events.
  void append(size_t index, const std::string& text, std::vector<SseEvent>& out) {
    items_[index].text += text;
    std::string& pending = pending_[index];
    pending += text;
    const size_t whole = pending.size() - unfinished_utf8_tail(pending);
    send_delta(index, valid_utf8(std::string_view(pending).substr(0, whole)), out);
    pending.erase(0, whole);
  }

  void send_delta(size_t index, const std::string& delta, std::vector<SseEvent>& out) {
    if (delta.empty()) return;
    const ResponseItem& item = items_[index];
    Json fields = {{"item_id", item.id}, {"output_index", index}};
    if (item.kind != Kind::FunctionCall) fields["content_index"] = 0;
    fields["delta"] = delta;
    if (item.kind == Kind::Message) fields["logprobs"] = Json::array();
    emit(out,
         item.kind == Kind::Reasoning ? "response.reasoning_text.delta"
         : item.kind == Kind::Message ? "response.output_text.delta"
                                      : "response.function_call_arguments.delta",
         fields);
  }

  // The .done events of the open item, ending with output_item.done (the item whole).
  void close_open_item(Status status, std::vector<SseEvent>& out) {
    if (!open_) return;
    const size_t index = *open_;
    open_.reset();
    ResponseItem& item = items_[index];
    item.status = status;
    send_delta(index, valid_utf8(pending_[index]), out);  // a cut character ends as U+FFFD
    pending_[index].clear();
    const Json where = {{"item_id", item.id}, {"output_index", index}};
    auto with = [&](Json extra) {
      Json j = where;
      for (const auto& [key, value] : extra.items()) j[key] = value;
      return j;
    };
    switch (item.kind) {
      case Kind::Reasoning:
        emit(out, "response.reasoning_text.done", with({{"content_index", 0}, {"text", valid_utf8(item.text)}}));
        emit(out, "response.content_part.done", with({{"content_index", 0}, {"part", reasoning_text_part(item.text)}}));
        break;
      case Kind::Message:
        emit(out, "response.output_text.done",
             with({{"content_index", 0}, {"text", valid_utf8(item.text)}, {"logprobs", Json::array()}}));
        emit(out, "response.content_part.done", with({{"content_index", 0}, {"part", output_text_part(item.text)}}));
        break;
      case Kind::FunctionCall:
        emit(out, "response.function_call_arguments.done",
             with({{"name", valid_utf8(item.name)}, {"arguments", valid_utf8(item.text)}}));
        break;
    }
    emit(out, "response.output_item.done", {{"output_index", index}, {"item", response_item_json(item)}});
  }

  std::shared_ptr<const ResponsesRequest> request_;
  ResponseIds ids_;
  std::vector<ResponseItem> items_;
  std::vector<std::string> pending_;  // per item: the start of a character still to come
  std::optional<size_t> open_;                      // the item deltas go to
  std::vector<std::pair<size_t, size_t>> calls_;    // call index in the turn -> position in items_
  int64_t sequence_ = 0;
};

}  // namespace

std::unique_ptr<ProtocolStream> make_openai_responses_stream(std::shared_ptr<const ResponsesRequest> request,
                                                             ResponseIds ids) {
  return std::make_unique<ResponsesStream>(std::move(request), std::move(ids));
}

}  // namespace ninfer::api
