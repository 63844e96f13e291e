#!/usr/bin/env python3
"""Single-pass RAG over Dentate: retrieve the top units, answer with numbered citations.

    export OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5:7b   # any OpenAI-compatible server
    export OPENAI_API_KEY=...                                                 # if the server wants one
    python examples/rag.py "How much is still owed on the Hartcliffe Joinery invoice?"
"""

from __future__ import annotations

import argparse
import sys

from dentate import Client, format_locator
from dentate.agents import rag_answer
from dentate.llm import openai_chat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question")
    parser.add_argument("--grpc", default="127.0.0.1:50051", help="Dentate gRPC address (default %(default)s)")
    parser.add_argument("--top-k", type=int, default=8, help="units retrieved as evidence (default %(default)s)")
    parser.add_argument("--mode", choices=["lexical", "hybrid", "dense"], help="retrieval mode (server default)")
    args = parser.parse_args()

    llm = openai_chat()  # OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL
    with Client(args.grpc) as client:
        outcome = rag_answer(client, args.question, llm, top_k=args.top_k, mode=args.mode)

    print(outcome.answer)
    print("\nCited files:" if outcome.cited else "\nNo citations; evidence given to the model:")
    for n, unit in enumerate(outcome.evidence, 1):
        if outcome.cited and unit not in outcome.cited:
            continue
        loc = format_locator(unit.locator)
        print(f"  [{n}] {unit.path}" + (f" ({loc})" if loc else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
