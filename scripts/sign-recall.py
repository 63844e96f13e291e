#!/usr/bin/env python3
"""How many sign-bit candidates keep the exact top 10 (`index::signs`, offline).

For a share of the rows as candidates, picked by the four-bit question against each
row's signs and then ranked by the exact dot product, prints recall@10 against the
exact top 10 — on random unit vectors (the hardest case) and, given an index, on its
stored MiniLM vectors with held-out vectors as questions. Needs numpy.

    python3 scripts/sign-recall.py random 1000000
    python3 scripts/sign-recall.py index /path/to/index   # reads manifest.sqlite
"""
import sqlite3
import sys

import numpy as np

SHARES = (0.005, 0.01, 0.02, 1 / 32, 0.04)


def recall(rows, questions, shares):
    signs = np.where(rows > 0, 1.0, -1.0).astype(np.float32)
    for share in shares:
        depth = int(len(rows) * share)
        found = 0
        for q in questions:
            exact = set(np.argpartition(-(rows @ q), 10)[:10])
            delta = 2 * np.abs(q).max() / 15
            q4 = delta * (np.clip(np.round(q / delta + 7.5), 0, 15) - 7.5)
            candidates = np.argpartition(-(signs @ q4), depth)[:depth]
            scores = rows[candidates] @ q
            top = candidates[np.argpartition(-scores, 10)[:10]]
            found += len(set(top) & exact)
        print(f"{len(rows)} rows, {share:.2%} as candidates ({depth}): "
              f"recall@10 {found / (10 * len(questions)):.4f}", flush=True)


def main():
    rng = np.random.default_rng(1)
    if sys.argv[1] == "random":
        n = int(sys.argv[2])
        rows = rng.standard_normal((n, 384), dtype=np.float32)
        rows /= np.linalg.norm(rows, axis=1, keepdims=True)
        questions = rng.standard_normal((40, 384), dtype=np.float32)
        questions /= np.linalg.norm(questions, axis=1, keepdims=True)
    else:
        db = sqlite3.connect(f"file:{sys.argv[2]}/manifest.sqlite?mode=ro", uri=True)
        rows = np.concatenate([
            np.frombuffer(blob, dtype="<f4").reshape(-1, 384)
            for (blob,) in db.execute("select vector from vectors")
        ]).astype(np.float32)
        order = rng.permutation(len(rows))
        questions, rows = rows[order[:200]], rows[order[200:]]
    recall(rows, questions, SHARES)


if __name__ == "__main__":
    main()
