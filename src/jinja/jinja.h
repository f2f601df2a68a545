// The template language in one include: Template / parse_cached / RenderLimits / TemplateError (template.h) and
// where chat templates come from (chat_template.h).
#pragma once

#include "jinja/chat_template.h"
#include "jinja/template.h"
#include "jinja/template_error.h"
