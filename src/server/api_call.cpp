#include "server/api_call.h"

#include <iostream>

#include <boost/asio/post.hpp>

#include "api/engine_errors.h"
#include "api/random_id.h"
#include "api/result_json.h"

namespace ninfer::server {
namespace {

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string dump(const api::Json& j) { return j.dump(-1, ' ', false, api::Json::error_handler_t::replace); }

// 63 bits: prints the same as a signed or an unsigned integer.
uint64_t fresh_seed() { return api::random_u64() >> 1; }

// A list-form chat template has a `tool_use` entry for requests that declare tools.
void select_tools_template(api::ChatRequest& request, const api::ChatRequestDefaults& with_tools) {
  if (!request.prompt.chat_prompt || request.request_template) return;
  ChatPromptInput& chat = *request.prompt.chat_prompt;
  if (chat.template_source == with_tools.template_source) return;
  const auto context = nlohmann::json::parse(chat.context_json, nullptr, false);
  if (!context.is_object() || !context.contains("tools") || context["tools"].empty()) return;
  chat.template_source = with_tools.template_source;
  chat.bos_token = with_tools.bos_token;
  chat.eos_token = with_tools.eos_token;
}

}  // namespace

void append_sse(const api::SseEvent& event, std::string& out) {
  if (!event.event.empty()) out += "event: " + event.event + "\n";
  out += "data: ";
  out += event.data;
  out += "\n\n";
}

ApiCall::ApiCall(ServerContext& ctx, api::ApiProtocol protocol, std::string endpoint, std::string body,
                 Clock::time_point arrival)
    : ctx_(ctx), protocol_(protocol), endpoint_(std::move(endpoint)), body_(std::move(body)), arrival_(arrival) {}

ApiCall::~ApiCall() {
  if (handle_.valid() && !finished_) handle_.cancel();
  if (counted_pending_ && !finished_) (first_output_ ? ctx_.metrics.active : ctx_.metrics.pending)--;
}

bool ApiCall::admit() {
  Engine* engine = ctx_.engine.load();
  try {
    if (!engine) throw api::ApiError(503, "server_error", "The model is still loading; retry shortly.", "", "loading");
    if (ctx_.draining) throw api::ApiError(503, "server_error", "The server is shutting down.", "", "shutting_down");
    exchange_ = api::map_api_request(protocol_, body_, ctx_.defaults);
    std::string().swap(body_);  // the mapped request holds what it needs
    api::ChatRequest& request = exchange_->request();
    if (!request.model.empty() && request.model != ctx_.served_model)
      throw api::ApiError(404, "invalid_request_error",
                          "The model '" + request.model + "' does not exist; this server serves '" + ctx_.served_model +
                              "'.",
                          "model", "model_not_found");
    select_tools_template(request, ctx_.tools_defaults);
    // A seed of the server's choosing when the request gives none, and tool-call ids of their own
    // for every request (a fixed seed would repeat them turn after turn); the stream's ids are the
    // final result's.
    if (!request.options.sampling.seed) request.options.sampling.seed = fresh_seed();
    request.options.tool_call_id_seed = fresh_seed();
    if (request.options.constraint || request.options.tool_choice) request.options.phase_timings = true;
  } catch (const api::ApiError& e) {
    error_ = e;
  } catch (const std::exception& e) {
    error_ = api::ApiError(400, "invalid_request_error", e.what(), "", "invalid_request");
  }
  if (!error_) {
    api::ChatRequest& request = exchange_->request();
    try {
      prepared_ = engine->prepare(request.prompt);
      handle_ = engine->submit(prepared_, request.options);
    } catch (const std::exception& e) {
      error_ = api::from_exception(e, request);
    }
  }
  if (error_) {
    ctx_.metrics.count_request(endpoint_, error_->status);
    log_line(error_->status, nullptr);
    return false;
  }
  counted_pending_ = true;
  ctx_.metrics.pending++;
  if (streaming())
    streamer_ = std::make_unique<api::ResponseStreamer>(exchange_->stream(prepared_), prepared_,
                                                        exchange_->request().options);
  return true;
}

std::string ApiCall::error_body() const { return error_ ? dump(api::api_error_body(protocol_, *error_)) : ""; }

std::string ApiCall::take_events() {
  std::vector<api::SseEvent> events;
  if (streamer_ && !opened_) {
    streamer_->open(events);
    opened_ = true;
  }
  while (!finished_) {
    std::optional<StreamEvent> e = handle_.try_next();
    if (!e) break;
    const Clock::time_point now = Clock::now();
    if (!e->tokens.empty() || !e->text.empty()) {
      if (!first_output_) {
        first_output_ = true;
        ttft_s_ = seconds(now - arrival_);
        ctx_.metrics.time_to_first_token.observe(*ttft_s_);
        ctx_.metrics.pending--;
        ctx_.metrics.active++;
      } else {
        ctx_.metrics.inter_token_latency.observe(seconds(now - last_output_));
      }
      last_output_ = now;
    }
    if (streamer_) streamer_->text(e->text, events);
    if (e->done) {
      const GenerationResult result = handle_.wait();  // ready: the final event was published
      on_result(result);
      if (streamer_) streamer_->done(result, exchange_->request(), events);
    }
  }
  std::string out;
  for (const api::SseEvent& e : events) append_sse(e, out);
  return out;
}

void ApiCall::on_result(const GenerationResult& result) {
  finished_ = true;
  (first_output_ ? ctx_.metrics.active : ctx_.metrics.pending)--;
  ServerMetrics& m = ctx_.metrics;
  m.prompt_tokens += uint64_t(result.usage.prompt_tokens);
  m.completion_tokens += uint64_t(result.usage.completion_tokens);
  m.queue_time.observe(result.queue_s);
  m.end_to_end.observe(seconds(Clock::now() - arrival_));
  if (result.constraint && result.constraint->timed) {
    m.constraint_compile.observe(result.constraint->prepare_cpu_s);
    if (result.constraint->masked_positions > 0)
      m.mask_per_step.observe(result.constraint->mask_cpu_s / double(result.constraint->masked_positions));
  }
  int status = 200;
  if (!streamer_) {
    try {
      final_body_ = dump(exchange_->response(prepared_, result));
    } catch (const api::ApiError& e) {
      status = e.status;
      final_body_ = dump(api::api_error_body(protocol_, e));
    }
    final_status_ = status;
  }
  if (result.finish_reason == FinishReason::Cancelled) status = 499;
  m.count_request(endpoint_, status);
  log_line(status, &result);
}

void ApiCall::cancel_for_disconnect() {
  if (!handle_.valid() || finished_ || disconnected_) return;
  disconnected_ = true;
  handle_.cancel();
  ctx_.metrics.cancelled++;
}

void ApiCall::detach(const std::shared_ptr<ApiCall>& call) {
  call->cancel_for_disconnect();
  std::weak_ptr<ApiCall> weak = call;
  ServerContext* ctx = &call->ctx_;
  call->handle_.set_notify([weak, ctx] {
    boost::asio::post(ctx->admission, [weak, ctx] {
      std::shared_ptr<ApiCall> c = weak.lock();
      if (!c) return;
      std::lock_guard<std::mutex> lock(c->detached_mu_);
      if (c->finished_) return;
      c->take_events();
      if (!c->finished_) return;
      std::lock_guard<std::mutex> calls(ctx->calls_mu);
      ctx->calls.erase(c);
    });
  });
}

void ApiCall::log_line(int status, const GenerationResult* result) {
  if (!ctx_.options.log_requests) return;
  api::Json line = {{"event", "request"},
                    {"time", api::unix_seconds_now()},
                    {"endpoint", endpoint_},
                    {"status", status},
                    {"stream", exchange_ ? api::Json(exchange_->request().stream) : api::Json(nullptr)},
                    {"model", ctx_.served_model}};
  if (error_) {
    line["error"] = {{"type", error_->type}, {"code", error_->code}, {"param", error_->param}};
  }
  if (result) {
    line["finish_reason"] = finish_reason_name(result->finish_reason);
    if (result->error) line["error"] = {{"kind", request_error_kind_name(*result->error)}};
    line["seed"] = result->seed;
    line["prompt_tokens"] = result->usage.prompt_tokens;
    line["completion_tokens"] = result->usage.completion_tokens;
    line["queue_s"] = result->queue_s;
    line["ttft_s"] = ttft_s_ ? api::Json(*ttft_s_) : api::Json(nullptr);
    line["total_s"] = seconds(Clock::now() - arrival_);
    line["cancelled_by_client"] = disconnected_;
    line["constraint"] = result->constraint ? api::Json(api::constraint_report_json(*result->constraint)) : api::Json(nullptr);
  }
  const std::string text = dump(line);
  std::lock_guard<std::mutex> lock(ctx_.log_mu);
  std::cerr << text << '\n';
}

}  // namespace ninfer::server
