"""Writes a tiny embedding model in the real Model2Vec format for the
semantic tests: a word-level tokenizer over the given words and a table
that gives words of one meaning the same direction, so that "car" and
"automobile" are close and finding by meaning needs no downloaded model.

Usage: tiny_model.py DIR DIM WORD=MEANING...
(stdlib only; the end-to-end tests depend on no Weft crate.)
"""

import json
import os
import struct
import sys


def main(folder, dim, pairs):
    os.makedirs(folder, exist_ok=True)
    vocab = {"[UNK]": 0}
    table = [0.0] * dim
    for i, pair in enumerate(pairs):
        word, meaning = pair.split("=")
        vocab[word] = i + 1
        v = [0.0] * dim
        v[int(meaning) % dim] = 1.0
        v[(int(meaning) + 1 + i % 2) % dim] += 0.05
        table.extend(v)
    tokenizer = {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [{"id": 0, "content": "[UNK]", "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}],
        "normalizer": {"type": "Lowercase"},
        "pre_tokenizer": {"type": "Whitespace"},
        "post_processor": None,
        "decoder": None,
        "model": {"type": "WordLevel", "vocab": vocab, "unk_token": "[UNK]"},
    }
    with open(os.path.join(folder, "tokenizer.json"), "w") as f:
        json.dump(tokenizer, f)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump({"normalize": True}, f)
    data = struct.pack(f"<{len(table)}f", *table)
    header = json.dumps({"embeddings": {"dtype": "F32", "shape": [len(pairs) + 1, dim],
                                        "data_offsets": [0, len(data)]}}).encode()
    with open(os.path.join(folder, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(header)) + header + data)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), sys.argv[3:])
