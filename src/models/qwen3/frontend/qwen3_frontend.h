// The Qwen chat frontend (DESIGN.md section 6): tools, output start, the output grammar and the
// output parser. docs/chat-frontend.md describes the language.
#pragma once

#include "models/qwen3/frontend/chat_format.h"
#include "models/qwen3/frontend/chat_output_parser.h"
#include "models/qwen3/frontend/output_language.h"
#include "models/qwen3/frontend/output_start.h"
#include "models/qwen3/frontend/tool_definitions.h"
#include "ninfer/engine.h"
