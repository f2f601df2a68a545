#!/usr/bin/env python3
"""Writes the seed corpora of gguf_fuzz and safetensors_fuzz (fuzz/corpus/{gguf,safetensors}/):
small but complete Qwen3 GGUF files with a byte-level BPE tokenizer, a metadata-only GGUF, small
safetensors files and a config.json. Deterministic; run from the repository root."""
import json
import os
import struct

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")

# GGUF value types
U8, I8, U16, I16, U32, I32, F32, BOOL, STRING, ARRAY, U64, I64, F64 = range(13)
GGML = {"f32": 0, "f16": 1, "q8_0": 8, "bf16": 30}


def byte_symbols():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\u00a1"), ord("\u00ac") + 1)) + list(range(ord("\u00ae"), ord("\u00ff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for _, c in sorted(zip(bs, cs))]


def gstr(s):
    b = s.encode("utf-8")
    return struct.pack("<Q", len(b)) + b


def gvalue(t, v):
    if t == STRING:
        return gstr(v)
    if t == ARRAY:
        et, items = v
        out = struct.pack("<IQ", et, len(items))
        for x in items:
            out += gvalue(et, x)
        return out
    fmt = {U8: "<B", I8: "<b", U16: "<H", I16: "<h", U32: "<I", I32: "<i", F32: "<f", BOOL: "<?", U64: "<Q", I64: "<q", F64: "<d"}[t]
    return struct.pack(fmt, v)


def f16(x):
    return struct.pack("<e", x)


def bf16(x):
    return struct.pack("<f", x)[2:]


def encode(values, kind, cols):
    if kind == "f32":
        return b"".join(struct.pack("<f", v) for v in values)
    if kind == "f16":
        return b"".join(f16(v) for v in values)
    if kind == "bf16":
        return b"".join(bf16(v) for v in values)
    out = b""
    for i in range(0, len(values), 32):
        block = values[i:i + 32]
        amax = max(abs(v) for v in block)
        d = amax / 127
        out += f16(d) + bytes((round(v / d) if d else 0) & 0xFF for v in block)
    return out


def values(n, seed):
    x = seed * 2654435761 % 2**32
    out = []
    for _ in range(n):
        x = (x * 1103515245 + 12345) % 2**31
        out.append((x / 2**31 - 0.5) * 0.2)
    return out


def gguf(metadata, tensors, alignment=32):
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(metadata))
    for k, (t, v) in metadata.items():
        out += gstr(k) + struct.pack("<I", t) + gvalue(t, v)
    offset = 0
    datas = []
    for name, kind, shape, data in tensors:
        out += gstr(name) + struct.pack("<I", len(shape))
        for d in reversed(shape):
            out += struct.pack("<Q", d)
        out += struct.pack("<IQ", GGML[kind], offset)
        datas.append((offset, data))
        offset = (offset + len(data) + alignment - 1) // alignment * alignment
    out += b"\0" * (-len(out) % alignment)
    base = len(out)
    for off, data in datas:
        out += b"\0" * (base + off - len(out)) + data
    return out


def qwen3_gguf(matrix_kind, embed_kind, tied):
    syms = byte_symbols()
    tokens = syms + ["\u0120t", "he", "<|im_end|>", "<think>"]
    types = [1] * 258 + [3, 4]
    vocab, hidden, ff = len(tokens), 32, 32
    meta = {
        "general.architecture": (STRING, "qwen3"),
        "qwen3.block_count": (U32, 1),
        "qwen3.context_length": (U32, 256),
        "qwen3.embedding_length": (U32, hidden),
        "qwen3.feed_forward_length": (U32, ff),
        "qwen3.attention.head_count": (U32, 1),
        "qwen3.attention.head_count_kv": (U32, 1),
        "qwen3.attention.key_length": (U32, 32),
        "qwen3.attention.value_length": (U32, 32),
        "qwen3.rope.freq_base": (F32, 1000000.0),
        "qwen3.attention.layer_norm_rms_epsilon": (F32, 1e-6),
        "tokenizer.ggml.model": (STRING, "gpt2"),
        "tokenizer.ggml.pre": (STRING, "qwen2"),
        "tokenizer.ggml.tokens": (ARRAY, (STRING, tokens)),
        "tokenizer.ggml.token_type": (ARRAY, (I32, types)),
        "tokenizer.ggml.merges": (ARRAY, (STRING, ["\u0120 t", "h e"])),
        "tokenizer.ggml.eos_token_id": (U32, 258),
        "tokenizer.ggml.add_bos_token": (BOOL, False),
    }
    tensors = [("token_embd.weight", embed_kind, [vocab, hidden])]
    layer = [("attn_norm", [hidden]), ("attn_q", [32, hidden]), ("attn_k", [32, hidden]), ("attn_v", [32, hidden]),
             ("attn_output", [hidden, 32]), ("attn_q_norm", [32]), ("attn_k_norm", [32]), ("ffn_norm", [hidden]),
             ("ffn_gate", [ff, hidden]), ("ffn_up", [ff, hidden]), ("ffn_down", [hidden, ff])]
    for name, shape in layer:
        tensors.append(("blk.0." + name + ".weight", "f32" if len(shape) == 1 else matrix_kind, shape))
    tensors.append(("output_norm.weight", "f32", [hidden]))
    if not tied:
        tensors.append(("output.weight", matrix_kind, [vocab, hidden]))
    out = []
    for i, (name, kind, shape) in enumerate(tensors):
        n = shape[0] * (shape[1] if len(shape) == 2 else 1)
        v = [1.0 + x for x in values(n, i)] if len(shape) == 1 else values(n, i)
        out.append((name, kind, shape, encode(v, kind, shape[-1])))
    return gguf(meta, out)


def safetensors(tensors, metadata=None):
    header = {}
    if metadata:
        header["__metadata__"] = metadata
    data = b""
    for name, kind, shape in tensors:
        n = 1
        for d in shape:
            n *= d
        blob = encode(values(n, len(data)), kind, shape[-1] if shape else 1)
        header[name] = {"dtype": kind.upper(), "shape": shape, "data_offsets": [len(data), len(data) + len(blob)]}
        data += blob
    text = json.dumps(header, separators=(",", ":"))
    text += " " * (-(8 + len(text)) % 8)
    return struct.pack("<Q", len(text)) + text.encode() + data


def write(path, data):
    with open(os.path.join(OUT, path), "wb") as f:
        f.write(data)


def main():
    write("gguf/qwen3_q8_0_tied.gguf", qwen3_gguf("q8_0", "q8_0", True))
    write("gguf/qwen3_f16_untied.gguf", qwen3_gguf("f16", "bf16", False))
    write("gguf/metadata_only.gguf", gguf({"general.architecture": (STRING, "qwen3"), "general.alignment": (U32, 64),
                                            "a.u8": (U8, 7), "a.i16": (I16, -3), "a.f64": (F64, 0.5), "a.i64": (I64, -1),
                                            "a.list": (ARRAY, (F32, [1.0, 2.0])), "a.bools": (ARRAY, (BOOL, [True, False]))}, []))
    write("safetensors/three_dtypes.safetensors",
          safetensors([("a", "f32", [4, 8]), ("b", "bf16", [8]), ("c", "f16", [2, 2])], {"format": "pt"}))
    write("safetensors/qwen3_layer.safetensors",
          safetensors([("model.layers.0.self_attn.q_proj.weight", "bf16", [8, 8]), ("model.norm.weight", "f32", [8]),
                       ("scalar", "f32", []), ("empty", "f16", [0, 3])]))
    config = {"architectures": ["Qwen3ForCausalLM"], "model_type": "qwen3", "vocab_size": 260, "hidden_size": 32,
              "intermediate_size": 32, "num_hidden_layers": 1, "num_attention_heads": 1, "num_key_value_heads": 1,
              "head_dim": 32, "rope_theta": 1000000.0, "rms_norm_eps": 1e-6, "tie_word_embeddings": True,
              "max_position_embeddings": 256, "hidden_act": "silu", "rope_scaling": None}
    write("safetensors/config.json", json.dumps(config, indent=2).encode())


if __name__ == "__main__":
    main()
