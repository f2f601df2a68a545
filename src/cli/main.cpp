// `ninfer` command line: subcommands register themselves here.
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/bench_decode_command.h"
#include "cli/chat_commands.h"
#include "cli/generate_command.h"
#include "cli/grammar_commands.h"
#include "cli/model_commands.h"
#include "cli/serve_command.h"

int main(int argc, char** argv) {
  CLI::App app{"NInfer: LLM inference with guaranteed structured output"};
  app.require_subcommand(1);
  int status = 0;
  ninfer::cli::register_grammar_commands(app, status);
  ninfer::cli::register_generate_command(app, status);
  ninfer::cli::register_bench_commands(app, status);
  ninfer::cli::register_model_commands(app, status);
  ninfer::cli::register_chat_commands(app, status);
  ninfer::cli::register_serve_command(app, status);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  return status;
}
