#!/usr/bin/env python3
"""Renders a batch of (template, context) pairs with Python's Jinja2, configured as Hugging Face
transformers' apply_chat_template configures it: the environment of the rendering oracle,
tests/jinja/oracle_render.py (../shared/data/templates/README.md).

Input on stdin: {"templates": {NAME: SOURCE, ...}, "cases": [{"template": NAME, "context": {...}}, ...]}
Output on stdout: a JSON array, one {"text": ...} or {"error": ...} per case, in order.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "jinja"))
from oracle_render import make_environment  # noqa: E402


def main():
    request = json.load(sys.stdin, object_pairs_hook=dict)
    env = make_environment()
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
