#!/usr/bin/env python3
"""HippoCamp's own standard_rag (or hybrid_rag) over a Dentate daemon, on a question file
in HippoCamp's format, printing file-level hits per question and P / R / F1 / MRR at k.

HippoCamp's strategy code is loaded at run time from a checkout or the bare git snapshot
(``--hippocamp``, default ``$HCPEER_MIRROR`` or ``.mirror/Savannah-yz+HippoCamp/repo``
beside a parent folder of this script) and runs unchanged with ``dentate.hippocamp``'s
embedder and stores. The metrics are ``/work/shared/hcpeer/run_eval.py``'s: the distinct
files of the returned chunks in rank order, cut at k; MRR over all of them. To compare
with the official Qdrant store (hcpeer's table), keep its settings: ``--top-k 60``,
``rerank_top_k`` = top_k, no reranker (the defaults here), and ``--keep-instruction``
for its primary rows (the Qwen3 query prefix embedded) or not for its "raw query" rows.

    # a daemon over the corpus, e.g.
    target/release/dentate-index ../shared/corpus/persona/home --index /tmp/persona-index
    target/release/dentate-searchd --index /tmp/persona-index --http-addr 127.0.0.1:8080
    python clients/python/examples/hippocamp_standard_rag.py --questions ../shared/corpus/persona/qa_dev.json
    python clients/python/examples/hippocamp_standard_rag.py --questions … --strategy hybrid_rag --k 10,5
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

from dentate import hippocamp as dh


def _norm(path: str) -> str:
    return path.replace("\\", "/").lstrip("./")


def _files(chunks: List[Any]) -> List[str]:
    out: List[str] = []
    for chunk in chunks:
        meta = chunk.metadata or {}
        path = _norm(str((meta.get("file_info") or {}).get("file_path") or meta.get("file_path") or ""))
        if path and path not in out:
            out.append(path)
    return out


def _score(files: List[str], gold: List[str], k: int) -> Dict[str, float]:
    gold_set = {_norm(p) for p in gold}
    top = files[:k]
    inter = gold_set & set(top)
    p = len(inter) / len(top) if top else 0.0
    r = len(inter) / len(gold_set) if gold_set else 0.0
    rr = next((1.0 / i for i, f in enumerate(files, 1) if f in gold_set), 0.0)
    return {"p": p, "r": r, "f1": 2 * p * r / (p + r) if p + r else 0.0, "rr": rr}


def _provider(hc: Any, args: argparse.Namespace) -> Any:
    http = dh.DentateHttp(args.url, args.api_key, timeout=120)
    strip = not args.keep_instruction
    if args.embedder == "dense":
        embedder: Any = dh.DentateDenseEmbedder(http=http, strip_instruction=strip)
    elif args.embedder == "hybrid":
        embedder = dh.DentateHybridEmbedder(http=http, strip_instruction=strip)
    else:  # the question's text alone: the daemon embeds it (and fuses with BM25)
        embedder = dh.DentateSparseEmbedder(strip_instruction=strip)
    store = dh.DentateVectorStore(http=http, mode=args.mode)
    params = {"top_k": args.top_k, "use_reranker": False, "rerank_top_k": args.top_k}
    config = hc.ProviderConfig(name=args.strategy, params=params)
    if args.strategy == "standard_rag":
        return hc.StandardRAGProvider(config=config, embedder=embedder, vector_store=store, reranker=None)
    params.update({"top_k_dense": 100, "top_k_bm25": 100, "rrf_k": 60})
    return hc.HybridRAGProvider(config=config, embedder=embedder, vector_store=store, reranker=None,
                                fts_store=dh.DentateFtsStore(http=http), keyword_llm=None)


async def _run(provider: Any, questions: List[Dict[str, Any]], top_k: int) -> List[Dict[str, Any]]:
    rows = []
    for q in questions:
        start = time.perf_counter()
        result = await provider.retrieve(q["question"], top_k=top_k)
        rows.append({"id": q.get("id"), "files": _files(result.chunks), "gold": q.get("file_path", []),
                     "ms": (time.perf_counter() - start) * 1000})
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--questions", required=True, help="HippoCamp-format JSON list (question, file_path, …)")
    ap.add_argument("--url", default=None, help="daemon HTTP URL (default $DENTATE_URL or http://127.0.0.1:8080)")
    ap.add_argument("--api-key", default=None, help="Bearer key (default $DENTATE_API_KEY)")
    ap.add_argument("--strategy", choices=["standard_rag", "hybrid_rag"], default="standard_rag")
    ap.add_argument("--embedder", choices=["dense", "hybrid", "text"], default="dense",
                    help="dense: vectors from /api/embed (as HippoCamp's dense embedders); hybrid: also the "
                         "question's text, so each store query is Dentate's hybrid search; text: the text alone")
    ap.add_argument("--mode", choices=["hybrid", "dense", "lexical"], default=None,
                    help="/retrieve mode when the question's text is sent (--embedder hybrid or text); "
                         "dense with --embedder hybrid: the vector's ranking with Dentate's query planner")
    ap.add_argument("--k", default="10,5", help="cut-offs, comma-separated")
    ap.add_argument("--top-k", type=int, default=60, help="chunks retrieved per question (hcpeer: 60)")
    ap.add_argument("--keep-instruction", action="store_true",
                    help="embed HippoCamp's Qwen3 query prefix too (hcpeer's primary rows)")
    ap.add_argument("--hippocamp", default=None, help="HippoCamp checkout or bare git snapshot")
    ap.add_argument("--json", default=None, help="also write every question's files and scores here")
    ap.add_argument("--quiet", action="store_true", help="summary only")
    ap.add_argument("--verbose", action="store_true", help="HippoCamp's log messages too")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.ERROR)

    source = Path(args.hippocamp) if args.hippocamp else dh.find_hippocamp(Path(__file__))
    if source is None:
        print("no HippoCamp snapshot found: pass --hippocamp PATH (a checkout or a bare git snapshot of "
              "github.com/Savannah-yz/HippoCamp) or set HCPEER_MIRROR", file=sys.stderr)
        return 2
    questions = json.loads(Path(args.questions).read_text())
    ks = [int(k) for k in args.k.split(",") if k]
    with tempfile.TemporaryDirectory(prefix="hippocamp-") as tmp:
        hc = dh.load_hippocamp(dh.export_hippocamp(source, tmp), strategies=[args.strategy])
        cls = {"standard_rag": "StandardRAGProvider", "hybrid_rag": "HybridRAGProvider"}[args.strategy]
        if cls in hc.missing:
            print(f"could not import HippoCamp's {args.strategy}: {hc.missing[cls]}", file=sys.stderr)
            return 1
        print(f"# HippoCamp {hc.commit or source}: {args.strategy}, embedder {args.embedder}, mode {args.mode or '-'}, "
              f"top_k {args.top_k}, "
              f"{'with' if args.keep_instruction else 'without'} the Qwen3 query prefix, over {args.url or 'default URL'}")
        rows = asyncio.run(_run(_provider(hc, args), questions, args.top_k))

    for row in rows:
        row["scores"] = {k: _score(row["files"], row["gold"], k) for k in ks}
        if not args.quiet:
            gold = {_norm(p) for p in row["gold"]}
            rank = next((i for i, f in enumerate(row["files"], 1) if f in gold), None)
            hits = len(gold & set(row["files"][: ks[0]]))
            print(f"{row['id']}\thit {hits}/{len(gold)} @{ks[0]}\trank {rank or '-'}\t"
                  + " | ".join(("*" if f in gold else "") + f for f in row["files"][:5]))
            for missed in sorted(gold - set(row["files"][: ks[0]])):
                print(f"\tmissed: {missed}")
    ms = [r["ms"] for r in rows]
    label = args.embedder + (f", {args.mode}" if args.mode else "") + (", prefix" if args.keep_instruction else "")
    print("\n| strategy | k | P | R (hit) | F1 | MRR | p50 ms |\n|---|---|---|---|---|---|---|")
    for k in ks:
        agg = {m: statistics.mean(r["scores"][k][m] for r in rows) for m in ("p", "r", "f1", "rr")}
        print(f"| {args.strategy} over Dentate ({label}) | {k} | {agg['p']:.3f} | {agg['r']:.3f} | "
              f"{agg['f1']:.3f} | {agg['rr']:.3f} | {statistics.median(ms):.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
