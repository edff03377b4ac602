#!/usr/bin/env python3
"""Generate reference vectors for similarityRatio / matchingBlocks from Python's difflib.

Run from the package folder:  python3 scripts/gen-difflib-vectors.py
Writes test/fixtures/difflib-vectors.json: a list of
  {"a": str, "b": str, "ratio": float, "blocks": [[i, j, size], ...]}
where ratio = SequenceMatcher(None, a, b).ratio() and blocks = get_matching_blocks()
(autojunk left at its default, True). Deterministic: a fixed seed, stdlib only.
"""

import difflib
import json
import pathlib
import random
import sys

rng = random.Random(20260921)

CHINESE = [
    "同学们好，今天我们来讲线性代数的第三章。",
    "请大家把书翻到第四十二页。",
    "这个矩阵的秩是多少？张三你来回答一下。",
    "下周三之前要交作业，期末考试会考这一部分。",
    "我们先回顾一下上节课讲的特征值和特征向量。",
    "哪位同学愿意上来做一下这道题？",
    "注意这里的符号，很多同学在考试的时候会写错。",
    "好，那我们继续往下看。",
    "这个定理的证明比较长，大家课后自己看一下。",
    "有没有同学有问题？没有的话我们就下课。",
]
ENGLISH = [
    "Good morning everyone, today we will talk about eigenvalues.",
    "Please open your books to page forty-two.",
    "Who can tell me the rank of this matrix?",
    "The homework is due next Wednesday, and it will be on the final exam.",
    "Let's review what we covered in the last lecture.",
    "Any questions before we move on?",
    "Note the sign here; many students get it wrong in the exam.",
    "OK, let's continue.",
]
MIXED = [
    "我们今天用 Python 来实现 PCA 算法。",
    "这个 API 的 response 是一个 JSON object。",
    "请大家打开 Jupyter Notebook，运行第 3 个 cell。",
    "GPU 的 memory 不够的话，batch size 调小一点。",
    "Homework 3 的 deadline 是周五晚上 11:59。",
    "用 O(n log n) 的算法就可以了，比如 merge sort。",
]
ASTRAL = ["😀", "👍🏽", "𠀀", "𠮷", "𝒳", "🎓", "𩸽", "🇨🇳"]


def mutate(text: str, edits: int) -> str:
    chars = list(text)
    pool = list("的了是我你他们这那一不在有个上下来去说要就也和与及或abcdexyz ,.，。？！") + ASTRAL
    for _ in range(edits):
        op = rng.randrange(4)
        pos = rng.randrange(len(chars) + 1)
        if op == 0 and chars:
            del chars[min(pos, len(chars) - 1)]
        elif op == 1:
            chars.insert(pos, rng.choice(pool))
        elif op == 2 and chars:
            chars[min(pos, len(chars) - 1)] = rng.choice(pool)
        else:
            # duplicate a short run: the recogniser repeating itself
            if chars:
                start = rng.randrange(len(chars))
                run = chars[start : start + rng.randrange(1, 6)]
                chars[pos:pos] = run
    return "".join(chars)


def random_text(alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


pairs: list[tuple[str, str]] = [
    ("", ""),
    ("", "a"),
    ("a", ""),
    ("abc", "abc"),
    ("abcd", "bcde"),
    ("今天我们讲线性代数", "今天我们来讲线性代数"),
    ("今天我们讲线性代数。", "今天我们讲线性代数"),
    ("张三你来回答", "张珊你来回答"),
    ("private Thread currentThread;", "private volatile Thread currentThread;"),
    ("😀😀😀abc", "😀abc😀"),
    ("𠀀𠮷𩸽", "𠮷𩸽𠀀"),
    ("aaaa", "aa"),
    ("ab" * 150, "ba" * 150),
    ("的" * 250, "的" * 249 + "了"),
    # autojunk: '的' is popular in b, so no match can start on it (ratio 0, not 0.998).
    ("x" + "的" * 250, "的" * 250),
]

corpus = CHINESE + ENGLISH + MIXED
for sentence in corpus:
    pairs.append((sentence, sentence))
    for edits in (1, 2, 4, 8):
        pairs.append((sentence, mutate(sentence, edits)))
        pairs.append((mutate(sentence, edits), sentence))
    pairs.append((sentence, sentence + rng.choice(corpus)))
    pairs.append((sentence[: len(sentence) // 2], sentence))

for _ in range(60):
    a, b = rng.choice(corpus), rng.choice(corpus)
    pairs.append((a, b))

# Repeats: recognisers stuttering, whole sentences said twice.
for sentence in corpus[:10]:
    pairs.append((sentence * 2, sentence))
    pairs.append((sentence, sentence * 3))

# Long strings (>= 200 code points) where autojunk's popular-element rule changes the result.
for _ in range(40):
    length = rng.randrange(200, 600)
    a = "".join(rng.choice(corpus) for _ in range(length // 20 + 1))[:length]
    b = mutate(a, rng.randrange(1, 40))
    pairs.append((a, b))
    pairs.append((b, a))
for _ in range(20):
    pairs.append((random_text("ab ", rng.randrange(150, 450)), random_text("ab ", rng.randrange(150, 450))))
    pairs.append((random_text("的了是我你", rng.randrange(190, 420)), random_text("的了是我你", rng.randrange(190, 420))))

# Astral characters: Python indexes code points, JavaScript strings UTF-16 units.
for _ in range(30):
    a = "".join(rng.choice(ASTRAL + list("ab的了")) for _ in range(rng.randrange(1, 30)))
    pairs.append((a, mutate(a, rng.randrange(1, 6))))
for _ in range(10):
    a = "".join(rng.choice(ASTRAL + list("xyz的")) for _ in range(rng.randrange(200, 320)))
    pairs.append((a, mutate(a, rng.randrange(1, 10))))

vectors = []
autojunk_effective = 0
for a, b in pairs:
    matcher = difflib.SequenceMatcher(None, a, b)
    ratio = matcher.ratio()
    blocks = [list(block) for block in matcher.get_matching_blocks()]
    if len(b) >= 200 and difflib.SequenceMatcher(None, a, b, autojunk=False).ratio() != ratio:
        autojunk_effective += 1
    vectors.append({"a": a, "b": b, "ratio": ratio, "blocks": blocks})

out = pathlib.Path(__file__).resolve().parent.parent / "test" / "fixtures" / "difflib-vectors.json"
# One vector per line: readable diffs when the script changes.
lines = ",\n".join(json.dumps(vector, ensure_ascii=False) for vector in vectors)
out.write_text("[\n" + lines + "\n]\n", encoding="utf-8")
print(
    f"wrote {len(vectors)} vectors to {out} "
    f"({autojunk_effective} where autojunk changes the ratio; Python {sys.version.split()[0]})"
)
