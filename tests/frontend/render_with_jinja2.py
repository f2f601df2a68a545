#!/usr/bin/env python3
"""Renders a batch of (template, context) pairs with Python's Jinja2, configured as Hugging Face
transformers' apply_chat_template configures it (../shared/data/templates/README.md).

Input on stdin: {"templates": {NAME: SOURCE, ...}, "cases": [{"template": NAME, "context": {...}}, ...]}
Output on stdout: a JSON array, one {"text": ...} or {"error": ...} per case, in order.
"""
import json
import sys
from datetime import datetime

from jinja2.exceptions import TemplateError
from jinja2.sandbox import ImmutableSandboxedEnvironment


def raise_exception(message):
    raise TemplateError(message)


def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


def strftime_now(fmt):
    return datetime.now().strftime(fmt)


def main():
    request = json.load(sys.stdin)
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=["jinja2.ext.loopcontrols"])
    env.filters["tojson"] = tojson
    env.globals["raise_exception"] = raise_exception
    env.globals["strftime_now"] = strftime_now
    compiled = {name: env.from_string(source) for name, source in request["templates"].items()}
    out = []
    for case in request["cases"]:
        try:
            out.append({"text": compiled[case["template"]].render(**case["context"])})
        except Exception as e:  # a template error is a result, not a crash of the batch
            out.append({"error": str(e)})
    json.dump(out, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main()
