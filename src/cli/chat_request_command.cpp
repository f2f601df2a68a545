#include "cli/chat_request_command.h"

#include <filesystem>
#include <iostream>

#include "api/engine_errors.h"
#include "api/openai_chat_request.h"
#include "api/openai_chat_response.h"
#include "cli/constraint_flags.h"
#include "jinja/chat_template.h"
#include "ninfer/engine.h"

namespace ninfer::cli {
namespace {

int print_error(const api::ApiError& e, int exit_status) {
  std::cout << api::openai_error_json(e).dump(-1, ' ', false, api::Json::error_handler_t::replace) << std::endl;
  return exit_status;
}

}  // namespace

api::ChatRequestDefaults chat_template_defaults(const std::string& spec, bool has_tools) {
  api::ChatRequestDefaults d;
  if (spec.empty()) return d;
  const jinja::ChatTemplateSource t = jinja::load_chat_template(spec, has_tools);
  d.template_source = t.source;
  d.bos_token = t.bos_token;
  d.eos_token = t.eos_token;
  return d;
}

int run_chat_request(const std::string& request_path, const std::string& model, const std::string& chat_template_spec,
                     const ChatRequestCommandOptions& options) {
  api::ChatRequest request;
  try {
    // Mapped before the model loads: a bad request fails fast.
    request = api::map_openai_chat_request(std::string_view(read_file(request_path)),
                                           chat_template_defaults(chat_template_spec, false));
    // A list-form template chooses its `tool_use` entry when the request declares tools.
    ChatPromptInput& chat = *request.prompt.chat_prompt;
    if (!chat_template_spec.empty() && !request.request_template) {
      const auto context = nlohmann::json::parse(chat.context_json, nullptr, false);
      if (context.is_object() && context.contains("tools") && !context["tools"].empty()) {
        const api::ChatRequestDefaults with_tools = chat_template_defaults(chat_template_spec, true);
        chat.template_source = with_tools.template_source;
        chat.bos_token = with_tools.bos_token;
        chat.eos_token = with_tools.eos_token;
      }
    }
  } catch (const api::ApiError& e) {
    return print_error(e, 2);
  } catch (const std::exception& e) {
    return print_error(api::ApiError(400, "invalid_request_error", e.what(), "", "invalid_input"), 2);
  }

  std::unique_ptr<Engine> engine;
  try {
    EngineOptions eo;
    eo.model = model;
    eo.max_batch_rows = 1;
    eo.threads = options.threads;
    eo.max_context = options.max_context;
    engine = std::make_unique<Engine>(eo);
  } catch (const std::exception& e) {
    return print_error(api::ApiError(500, "server_error", e.what(), "", "model_load_failed"), 2);
  }

  try {
    PreparedPrompt prepared = engine->prepare(request.prompt);
    RequestHandle handle = engine->submit(prepared, request.options);
    const GenerationResult result = handle.wait();
    const api::CompletionIds ids =
        api::new_completion_ids(request.model.empty() ? engine->model_description() : request.model);
    try {
      const api::Json response = api::openai_chat_completion(request, prepared, result, ids);
      std::cout << response.dump(-1, ' ', false, api::Json::error_handler_t::replace) << std::endl;
      return 0;
    } catch (const api::ApiError& e) {
      return print_error(e, 3);
    }
  } catch (const std::exception& e) {
    return print_error(api::from_exception(e, request), 2);
  }
}

}  // namespace ninfer::cli
