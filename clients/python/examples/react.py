#!/usr/bin/env python3
"""A ReAct agent over Dentate: the model alternates Thought / Action: search[query] and
reads Observations (top files, locators, snippets) until Action: finish[answer].

    export OPENAI_BASE_URL=http://localhost:11434/v1 OPENAI_MODEL=qwen2.5:7b   # any OpenAI-compatible server
    export OPENAI_API_KEY=...                                                 # if the server wants one
    python examples/react.py --verbose "What would happen if the grant were refused?"
"""

from __future__ import annotations

import argparse
import sys

from dentate import Client
from dentate.agents import react_answer
from dentate.llm import openai_chat


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("question")
    parser.add_argument("--grpc", default="127.0.0.1:50051", help="Dentate gRPC address (default %(default)s)")
    parser.add_argument("--max-steps", type=int, default=6, help="model calls at most (default %(default)s)")
    parser.add_argument("--top-k", type=int, default=5, help="files per search (default %(default)s)")
    parser.add_argument("--verbose", "-v", action="store_true", help="print every thought, action and observation")
    args = parser.parse_args()

    # Stop before the model invents its own observation.
    llm = openai_chat(stop=["\nObservation:"])  # OPENAI_BASE_URL / OPENAI_API_KEY / OPENAI_MODEL
    with Client(args.grpc) as client:
        outcome = react_answer(client, args.question, llm, max_steps=args.max_steps, top_k=args.top_k)

    if args.verbose:
        for n, step in enumerate(outcome.steps, 1):
            print(f"--- step {n}\nThought: {step.thought}\nAction: {step.action}[{step.argument}]")
            if step.observation:
                print(step.observation)
        print("---")
    if not outcome.finished:
        print(f"No answer within {args.max_steps} steps. Searched: {outcome.searches}")
        return 1
    print(outcome.answer)
    print("\nCited files:" if outcome.cited_files else "\nFiles seen:")
    for path in outcome.cited_files or outcome.observed_files:
        print(f"  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
