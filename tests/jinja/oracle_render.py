#!/usr/bin/env python3
"""The rendering oracle: Python Jinja2 configured exactly as Hugging Face transformers' apply_chat_template
configures it (ImmutableSandboxedEnvironment, trim_blocks, lstrip_blocks, loopcontrols, HF's tojson,
raise_exception, strftime_now, keep_trailing_newline off).

Reads JSON lines {"template": SOURCE} or {"bundled": NAME} plus "context": {...} (variables, in order) and writes one
JSON line per input: {"ok": TEXT} or {"error": KIND, "message": TEXT}, KIND one of syntax, raised, runtime, limit.

usage: oracle_render.py TEMPLATES_DIR < corpus.jsonl > results.jsonl
"""
import json
import sys
from datetime import datetime

import jinja2
from jinja2.exceptions import SecurityError, TemplateError, TemplateSyntaxError
from jinja2.sandbox import ImmutableSandboxedEnvironment


class RaisedError(Exception):
    pass


def raise_exception(message):
    raise RaisedError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(format):
    return datetime.now().strftime(format)


def make_environment():
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    return env


def error_kind(error):
    if isinstance(error, RaisedError):
        return "raised"
    if isinstance(error, TemplateSyntaxError):
        return "syntax"
    if isinstance(error, (RecursionError, MemoryError, OverflowError)):
        return "limit"
    return "runtime"


def main():
    templates_dir = sys.argv[1] if len(sys.argv) > 1 else "."
    env = make_environment()
    compiled = {}
    out = sys.stdout
    for line in sys.stdin:
        if not line.strip():
            continue
        case = json.loads(line)
        if "bundled" in case:
            with open(f"{templates_dir}/{case['bundled']}.jinja", encoding="utf-8") as f:
                source = f.read()
        else:
            source = case["template"]
        context = case.get("context", {})
        try:
            if source not in compiled:
                try:
                    compiled[source] = env.from_string(source)
                except Exception as error:  # noqa: BLE001 - every failure is a result to compare
                    compiled[source] = error
            template = compiled[source]
            if isinstance(template, Exception):
                raise template
            result = {"ok": template.render(**context)}
        except Exception as error:  # noqa: BLE001
            result = {"error": error_kind(error), "message": str(error.args[0]) if isinstance(error, RaisedError) else str(error)}
        out.write(json.dumps(result, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
