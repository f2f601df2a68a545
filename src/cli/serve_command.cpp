#include "cli/serve_command.h"

#include <memory>

#include "cli/option_checks.h"
#include "cli/prompt_attention_flag.h"
#include "cli/speculative_flags.h"
#include "server/http_server.h"

namespace ninfer::cli {

void register_serve_command(CLI::App& app, int& status) {
  auto o = std::make_shared<server::ServerOptions>();
  o->engine.max_batch_rows = 16;
  auto drain_ms = std::make_shared<int>(30'000);
  auto keep_alive_s = std::make_shared<int>(300);
  auto read_timeout_ms = std::make_shared<int>(30'000);
  CLI::App* cmd = app.add_subcommand(
      "serve", "HTTP server: OpenAI Chat / Completions / Responses and Anthropic Messages, with SSE streaming");
  cmd->add_option("--model", o->engine.model, "HF folder or GGUF file (default: the generated default model)");
  cmd->add_option("--host", o->host, "address to listen on")->capture_default_str();
  cmd->add_option("--port", o->port, "TCP port (0 = any free port, printed on stderr)")
      ->check(CLI::Range(0, 65535))
      ->capture_default_str();
  cmd->add_option("--api-key", o->api_key, "require this key (Authorization: Bearer, or x-api-key for /v1/messages)");
  cmd->add_option("--served-model-name", o->served_model_name, "the model name clients use (default: the model's name)");
  cmd->add_option("--chat-template", o->chat_template, "bundled name (qwen3, qwen3_5, qwen3_coder) or template file");
  cmd->add_flag("--allow-request-template", o->allow_request_template,
                "accept a request's own `chat_template` (off by default: clients are untrusted)");
  cmd->add_option("--max-batch", o->engine.max_batch_rows, "rows decoded together")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--max-context", o->engine.max_context, "positions per request")
      ->check(integer_option<int>(16))
      ->capture_default_str();
  cmd->add_option("--max-outstanding", o->engine.max_outstanding, "submitted but unfinished requests (503 beyond)")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--max-step-tokens", o->engine.max_step_tokens, "positions one forward step may hold (prompt chunks and decode rows)")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--prefill-tokens-while-decoding", o->engine.prefill_tokens_while_decoding,
                  "at most this many prompt positions per step while other rows decode")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--max-decode-slowdown", o->engine.max_decode_slowdown,
                  "size prompt chunks so that a step beside decoding rows takes about this many times a decode-only "
                  "step (0 = fixed --prefill-tokens-while-decoding)")
      ->capture_default_str();
  auto prefix_cache_mib = std::make_shared<size_t>(o->engine.prefix_cache_bytes >> 20);
  cmd->add_option("--prefix-cache-mib", *prefix_cache_mib, "memory for the exact prefix cache (0 = off)")->capture_default_str();
  cmd->add_option("--threads", o->engine.threads, "model threads (0 = all cores)")->check(integer_option<int>(0));
  cmd->add_flag_callback("--no-huge-pages", [o] { o->engine.huge_pages = false; },
                         "map the weights from the file (shared, nothing copied) instead of copying them into huge pages");
  add_speculative_flags(*cmd, o->engine);
  add_prompt_attention_flag(*cmd, o->engine.prompt_attention);
  cmd->add_option("--io-threads", o->io_threads, "threads that run all connections")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--admission-threads", o->admission_threads, "threads that map, render and compile requests")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--default-max-tokens", o->default_max_tokens, "max_tokens of chat requests that give none")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--max-body-bytes", o->max_body_bytes, "largest request body (413 beyond)")->capture_default_str();
  cmd->add_option("--max-header-bytes", o->max_header_bytes, "largest request head (431 beyond)")->capture_default_str();
  cmd->add_option("--keep-alive-timeout", *keep_alive_s, "seconds an idle connection stays open")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--request-timeout-ms", *read_timeout_ms, "a request's head and body must arrive within this (408)")
      ->check(integer_option<int>(1))
      ->capture_default_str();
  cmd->add_option("--drain-timeout-ms", *drain_ms, "SIGTERM: how long requests in flight may finish")
      ->check(integer_option<int>(0))
      ->capture_default_str();
  cmd->add_flag("!--no-request-log", o->log_requests, "no JSON line per finished request on stderr");
  cmd->callback([o, drain_ms, keep_alive_s, read_timeout_ms, prefix_cache_mib, &status] {
    o->engine.prefix_cache_bytes = *prefix_cache_mib << 20;
    o->request_read_timeout = std::chrono::milliseconds(*read_timeout_ms);
    o->drain_timeout = std::chrono::milliseconds(*drain_ms);
    o->keep_alive_timeout = std::chrono::seconds(*keep_alive_s);
    status = server::run_server(*o);
  });
}

}  // namespace ninfer::cli
