#!/usr/bin/env python3
"""Writes the seed corpora of api_mapping_fuzz and http_request_fuzz (deterministic, no dependencies).

fuzz/corpus/api_mapping/: one valid body per feature of each protocol, prefixed by the protocol byte
('0' Chat Completions, '1' Completions, '2' Responses, '3' Messages: the target takes byte % 4).
fuzz/corpus/http_request/: four piece-size bytes, then HTTP/1.1 requests carrying some of those
bodies (pipelined, chunked, with a query, keep-alive and close, a wrong method, an unknown path,
a body and a head over the target's limits).
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer", "minimum": 0}},
          "required": ["name", "age"], "additionalProperties": False}
CHAT_TOOLS = [{"type": "function", "function": {"name": "get_weather", "description": "d", "strict": True,
               "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}]
CONVERSATION = [
    {"role": "system", "content": "You are terse."},
    {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "text", "text": "in Paris"}]},
    {"role": "assistant", "content": None, "reasoning_content": "call the tool",
     "tool_calls": [{"id": "call_1", "type": "function",
                     "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
    {"role": "tool", "tool_call_id": "call_1", "content": "sunny"},
    {"role": "user", "content": "and tomorrow?"},
]
USER = [{"role": "user", "content": "hi"}]

CHAT = {
    "minimal": {"messages": USER},
    "full": {"model": "qwen", "messages": CONVERSATION, "tools": CHAT_TOOLS,
             "tool_choice": {"type": "function", "function": {"name": "get_weather"}}, "parallel_tool_calls": False,
             "response_format": {"type": "json_schema", "json_schema": {"name": "w", "strict": True, "schema": SCHEMA}},
             "max_completion_tokens": 100, "temperature": 0.7, "top_p": 0.9, "top_k": 20, "min_p": 0.1, "seed": 7,
             "presence_penalty": 0.5, "frequency_penalty": 0.5, "n": 1, "stream": True,
             "stream_options": {"include_usage": True}, "chat_template_kwargs": {"enable_thinking": True},
             "add_generation_prompt": True, "thinking_token_budget": 50, "tool_enforcement": "basic",
             "tool_call_format": "xml", "user": "u", "metadata": {"a": "b"}},
    "json_object": {"messages": USER, "response_format": {"type": "json_object"}, "max_tokens": 10},
    "stop": {"messages": USER, "stop": ["\n", "END"], "logprobs": False},
    "regex": {"messages": USER, "structured_outputs": {"regex": "[a-z]+(,[a-z]+)*"}},
    "choice": {"messages": USER, "structured_outputs": {"choice": ["yes", "no", "maybe"]}, "tools": CHAT_TOOLS, "tool_choice": "none"},
    "grammar": {"messages": USER, "structured_outputs": {"grammar": "root ::= \"a\" | \"b\" root"}},
    "template": {"messages": USER, "chat_template": "{% for m in messages %}{{ m.content }}{% endfor %}",
                 "continue_final_message": False},
    "required_tools": {"messages": USER, "tools": CHAT_TOOLS, "tool_choice": "required"},
}
COMPLETIONS = {
    "minimal": {"prompt": "Hello"},
    "full": {"model": "qwen", "prompt": "Once upon a time", "max_tokens": 16, "temperature": 0.2, "top_p": 0.95,
             "top_k": 40, "min_p": 0.05, "n": 1, "stream": True, "stream_options": {"include_usage": True},
             "stop": ["\n"], "seed": 3, "presence_penalty": 0.1, "frequency_penalty": 0.1, "user": "u",
             "ignore_eos": False},
    "schema": {"prompt": "A person:", "response_format": {"type": "json_schema",
                                                          "json_schema": {"name": "p", "schema": SCHEMA}}},
    "choice": {"prompt": "Answer:", "structured_outputs": {"choice": ["yes", "no"]}},
    "json": {"prompt": "{", "structured_outputs": {"json": SCHEMA}},
    "stop": {"prompt": "{", "stop": "}", "echo": False},
}
RESPONSES_TOOLS = [{"type": "function", "name": "get", "description": "look up",
                    "parameters": {"type": "object", "properties": {"x": {"type": "string"}}}, "strict": True}]
RESPONSES = {
    "minimal": {"input": "hi"},
    "instructions_schema": {"model": "qwen", "input": "Describe a person.", "instructions": "be brief",
                            "text": {"format": {"type": "json_schema", "name": "person", "strict": True,
                                                "schema": SCHEMA}, "verbosity": "medium"},
                            "max_output_tokens": 77, "temperature": 0.5, "top_p": 0.9, "stream": True,
                            "store": False, "metadata": {"k": "v"}, "reasoning": {"effort": "none"}},
    "items_tools": {"input": [
        {"role": "developer", "content": "rules"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "weather?"}]},
        {"type": "message", "role": "assistant", "content": "checking"},
        {"type": "function_call", "id": "fc_1", "call_id": "call_a", "name": "get",
         "arguments": "{\"x\":\"Paris\"}", "status": "completed"},
        {"type": "function_call_output", "call_id": "call_a", "output": "sunny"},
        {"type": "function_call_output", "call_id": "call_b", "output": [{"type": "input_text", "text": "rain"}]}],
        "tools": RESPONSES_TOOLS, "tool_choice": {"type": "function", "name": "get"},
        "parallel_tool_calls": False},
    "allowed_tools": {"input": "hi", "tools": RESPONSES_TOOLS,
                      "tool_choice": {"type": "allowed_tools", "mode": "required",
                                      "tools": [{"type": "function", "name": "get"}]}},
    "json_object": {"input": "hi", "text": {"format": {"type": "json_object"}}},
    "regex": {"input": "hi", "structured_outputs": {"regex": "[0-9]{3}"},
              "reasoning": {"effort": "high", "summary": "auto"}},
}
ANTHROPIC_TOOLS = [{"name": "get_weather", "description": "d", "strict": True,
                    "input_schema": {"type": "object", "properties": {"z": {"type": "string"}, "a": {"type": "integer"}},
                                     "required": ["z"]}},
                   {"name": "search", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}]
ANTHROPIC = {
    "minimal": {"model": "claude-x", "max_tokens": 100, "messages": USER},
    "stop": {"model": "m", "max_tokens": 5, "messages": USER, "stop_sequences": ["END"], "service_tier": "auto"},
    "conversation": {"model": "m", "max_tokens": 50, "system": "sys", "messages": [
        {"role": "user", "content": [{"type": "text", "text": "weather?"}, {"type": "text", "text": "in Paris"}]},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "need a tool", "signature": "sig"},
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"z": "Paris", "a": 1}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "sunny"}],
             "is_error": False},
            {"type": "text", "text": "thanks"}]}],
        "tools": ANTHROPIC_TOOLS, "tool_choice": {"type": "tool", "name": "get_weather"}},
    "thinking_format": {"model": "m", "max_tokens": 2048, "messages": USER,
                        "thinking": {"type": "enabled", "budget_tokens": 1024},
                        "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
                        "temperature": 0.5, "top_p": 0.9, "top_k": 40, "stream": True,
                        "metadata": {"user_id": "u1"}},
    "system_blocks": {"model": "m", "max_tokens": 10, "system": [{"type": "text", "text": "be terse"}],
                      "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Sure,"}],
                      "tool_choice": {"type": "auto"}, "tools": ANTHROPIC_TOOLS,
                      "thinking": {"type": "disabled"}},
}
PROTOCOLS = [("chat", "0", CHAT, "/v1/chat/completions"), ("completions", "1", COMPLETIONS, "/v1/completions"),
             ("responses", "2", RESPONSES, "/v1/responses"), ("messages", "3", ANTHROPIC, "/v1/messages")]


def write(folder, name, data):
    path = os.path.join(HERE, "corpus", folder)
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, name), "wb") as f:
        f.write(data)


def body_text(body):
    return json.dumps(body, separators=(",", ":"), ensure_ascii=False)


def post(path, body, extra=""):
    data = body.encode()
    return (f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n{extra}"
            f"Content-Length: {len(data)}\r\n\r\n").encode() + data


def chunked(path, body):
    data = body.encode()
    pieces = [data[:7], data[7:40], data[40:]]
    out = f"POST {path} HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n".encode()
    for p in pieces:
        if p:
            out += f"{len(p):x}\r\n".encode() + p + b"\r\n"
    return out + b"0\r\n\r\n"


def main():
    for name, byte, bodies, _ in PROTOCOLS:
        for key, body in bodies.items():
            write("api_mapping", f"{name}_{key}.json", byte.encode() + body_text(body).encode())

    sizes = {"whole": b"\xff\xff\xff\xff", "bytes": b"\x00\x00\x00\x00", "mixed": b"\x06\x0f\x00\x40"}
    minimal = {path: body_text(bodies["minimal"]) for _, _, bodies, path in PROTOCOLS}
    write("http_request", "post_each_protocol", sizes["mixed"] + b"".join(
        post(path, body) for path, body in minimal.items()))
    for name, _, bodies, path in PROTOCOLS:
        full = body_text(next(iter(b for k, b in bodies.items() if k != "minimal")))
        write("http_request", f"post_{name}", sizes["whole"] + post(path, full, "Authorization: Bearer k\r\n"))
    write("http_request", "chunked_messages", sizes["bytes"] + chunked("/v1/messages", minimal["/v1/messages"]))
    write("http_request", "query_and_close", sizes["mixed"] + post(
        "/v1/responses?stream=false", minimal["/v1/responses"], "Connection: close\r\n") + post(
        "/v1/chat/completions", minimal["/v1/chat/completions"]))
    write("http_request", "gets", sizes["mixed"] + b"GET /health HTTP/1.1\r\nHost: x\r\n\r\n"
          b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /v1/models?x=1 HTTP/1.1\r\nHost: x\r\n\r\n"
          b"GET /v1/chat/completions HTTP/1.1\r\nHost: x\r\n\r\n"
          b"DELETE /v1/unknown/path HTTP/1.1\r\nHost: x\r\n\r\n")
    write("http_request", "http10_keepalive", sizes["whole"] + b"GET /health HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
          + post("/v1/completions", minimal["/v1/completions"]).replace(b"HTTP/1.1", b"HTTP/1.0"))
    write("http_request", "body_over_limit", sizes["mixed"] + b"POST /v1/messages HTTP/1.1\r\nHost: x\r\n"
          b"Content-Length: 5000\r\n\r\n{}")
    write("http_request", "head_over_limit", sizes["whole"] + b"GET /health HTTP/1.1\r\nHost: x\r\nX-Pad: "
          + b"a" * 2100 + b"\r\n\r\n")
    write("http_request", "malformed", sizes["bytes"] + b"POST /v1/messages HTTP/1.1\r\nContent-Length: 2\r\n"
          b"Content-Length: 3\r\n\r\n{}")


if __name__ == "__main__":
    main()
