"""Retrieval quality of the embedders on our own set (npc_lab/retrieval_set.py): each query's ten
nearest memory lines by cosine similarity against the lines a person judged relevant. recall@10 is
the share of a query's relevant lines among its ten nearest (averaged over queries), MRR the mean of
1 / the rank of its first relevant line. A bag of words (tf-idf over the lines' words) is the floor:
an embedder that does not beat it understands nothing the words do not already say.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
import math
import re

import numpy as np

from npc_lab.retrieval_set import MEMORIES, QUERIES

Embed = Callable[[Sequence[str]], np.ndarray]
TOP = 10


def bag_of_words(corpus: Sequence[str]) -> Embed:
    """tf-idf vectors over the corpus's lowercased words (idf from the corpus), unit length."""
    words = [re.findall(r"[a-z']+", line.lower()) for line in corpus]
    df = Counter(w for line in words for w in set(line))
    index = {w: i for i, w in enumerate(sorted(df))}
    idf = np.array([math.log((1 + len(corpus)) / (1 + df[w])) + 1 for w in sorted(df)], dtype=np.float32)

    def embed(texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), len(index)), dtype=np.float32)
        for row, text in enumerate(texts):
            for w in re.findall(r"[a-z']+", text.lower()):
                if w in index:
                    out[row, index[w]] += 1
        out *= idf
        return out / np.clip(np.linalg.norm(out, axis=1, keepdims=True), 1e-12, None)

    return embed


def quality(embed: Embed) -> dict[str, float]:
    """recall@10 and MRR of one embedder over the set's queries."""
    keys = list(MEMORIES)
    lines = embed([MEMORIES[k] for k in keys])
    queries = embed([q for q, _ in QUERIES])
    recalls, reciprocal = [], []
    for (_, relevant), scores in zip(QUERIES, queries @ lines.T, strict=True):
        ranked = [keys[i] for i in np.argsort(-scores, kind="stable")]
        recalls.append(len(set(ranked[:TOP]) & set(relevant)) / len(relevant))
        reciprocal.append(1 / (1 + min(ranked.index(k) for k in relevant)))
    return {"recall_at_10": round(float(np.mean(recalls)), 3), "mrr": round(float(np.mean(reciprocal)), 3)}


def retrieval_quality(embedders: dict[str, Embed]) -> dict[str, dict[str, float]]:
    """Each embedder's figures, the bag of words last (the floor)."""
    results = {name: quality(embed) for name, embed in embedders.items()}
    results["bag of words (tf-idf)"] = quality(bag_of_words(list(MEMORIES.values())))
    return results
