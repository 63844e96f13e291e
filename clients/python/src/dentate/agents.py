"""Two retrieval agents over Dentate, independent of any LLM vendor.

``llm`` is any callable taking chat messages (``[{"role", "content"}]``) and returning
the reply text: ``dentate.llm.openai_chat()`` for a real model, or a scripted function
in tests.

- ``rag_answer``: single pass. Retrieve the top units, number them as evidence (file
  path + locator), ask the model to answer citing ``[n]``.
- ``react_answer``: a ReAct loop. The model writes ``Thought: …`` then
  ``Action: search[query]`` (we run Dentate ``Search`` and reply ``Observation: …`` with
  the top files, locators and snippets) or ``Action: finish[answer]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, List, Optional, Tuple

from .client import Client
from .llm import LLM, Message
from .types import SearchResult, UnitHit, format_locator, plain_snippet

# --- single-pass RAG ---------------------------------------------------------------

RAG_SYSTEM = (
    "You answer questions about the user's personal files (documents, e-mail, calendar, "
    "spreadsheets, notes, …) using only the numbered evidence you are given. Cite the "
    "evidence you use as [n] right after each claim. If the evidence does not contain the "
    "answer, say that you could not find it."
)


@dataclass
class RagAnswer:
    """The outcome of ``rag_answer``."""

    answer: str
    #: The retrieved units, in prompt order (evidence [1] is ``evidence[0]``).
    evidence: List[UnitHit]
    #: The evidence units the answer cites with ``[n]``, in order of first citation.
    cited: List[UnitHit]
    messages: List[Message]

    @property
    def cited_files(self) -> List[str]:
        """Paths of the cited files, deduplicated, in order of first citation."""
        return list(dict.fromkeys(u.path for u in self.cited))


def format_evidence(units: List[UnitHit], max_chars: int = 1500) -> str:
    """Numbered evidence blocks: ``[n] path (locator)`` then the unit's text."""
    blocks = []
    for n, unit in enumerate(units, 1):
        text = unit.text or plain_snippet(unit.snippet)
        if len(text) > max_chars:
            text = text[:max_chars].rstrip() + " …"
        loc = format_locator(unit.locator)
        blocks.append(f"[{n}] {unit.path}" + (f" ({loc})" if loc else "") + f"\n{text.strip()}")
    return "\n\n".join(blocks)


_CITATION = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def _citations(answer: str, count: int) -> List[int]:
    seen: List[int] = []
    for group in _CITATION.findall(answer):
        for number in group.split(","):
            n = int(number)
            if 1 <= n <= count and n not in seen:
                seen.append(n)
    return seen


def rag_answer(
    client: Client, question: str, llm: LLM, top_k: int = 8, max_chars: int = 1500, **retrieve_options: Any
) -> RagAnswer:
    """Answers ``question`` in one pass: ``client.retrieve(question, top_k)``, one prompt
    with numbered evidence citing file path + locator, one ``llm`` call.
    ``retrieve_options`` go to ``Client.retrieve`` (``mode``, ``path_prefixes``, …)."""
    units = client.retrieve(question, top_k=top_k, **retrieve_options).units
    messages: List[Message] = [
        {"role": "system", "content": RAG_SYSTEM},
        {
            "role": "user",
            "content": f"Evidence:\n\n{format_evidence(units, max_chars) or '(nothing was found)'}"
            f"\n\nQuestion: {question}\nAnswer (cite evidence as [n]):",
        },
    ]
    answer = llm(list(messages)).strip()
    cited = [units[n - 1] for n in _citations(answer, len(units))]
    return RagAnswer(answer=answer, evidence=units, cited=cited, messages=messages + [
        {"role": "assistant", "content": answer}
    ])


# --- ReAct -------------------------------------------------------------------------

REACT_SYSTEM = """You answer questions about the user's personal files (documents, e-mail, \
calendar, spreadsheets, notes, photos, recordings) by searching them with a search engine.
Work one step at a time. Each reply must be exactly:
Thought: <what you know so far and what to do next>
Action: search[<search query>]
or, once you can answer:
Thought: <why the evidence answers the question>
Action: finish[<the answer, naming the file(s) it comes from>]
After each search you receive an Observation listing the best matching files, where in \
each file the match is (page, slide, sheet rows, lines, message, event) and a snippet. \
Use different words if a search finds nothing useful."""


@dataclass
class ReactStep:
    """One turn of the loop."""

    thought: str
    #: ``"search"``, ``"finish"`` or ``"invalid"``.
    action: str
    #: The search query or the final answer (the raw reply for ``invalid``).
    argument: str
    #: What was sent back to the model (empty after ``finish``).
    observation: str = ""
    result: Optional[SearchResult] = None


@dataclass
class ReactAnswer:
    """The outcome of ``react_answer``."""

    #: The ``finish[...]`` argument; empty when the step budget ran out.
    answer: str
    finished: bool
    steps: List[ReactStep]
    messages: List[Message]
    #: Files seen in observations that the answer names (by path or file name).
    cited_files: List[str] = field(default_factory=list)

    @property
    def searches(self) -> List[str]:
        """The queries searched, in order."""
        return [s.argument for s in self.steps if s.action == "search"]

    @property
    def observed_files(self) -> List[str]:
        """Every file path shown to the model, deduplicated, in order of first appearance."""
        paths = [p for s in self.steps if s.result for p in s.result.paths]
        return list(dict.fromkeys(paths))


_ACTION = re.compile(r"Action\s*:\s*(search|finish)\s*\[(.*)\]", re.IGNORECASE | re.DOTALL)
_THOUGHT = re.compile(r"Thought\s*:\s*(.*?)(?=\n\s*Action\s*:|\Z)", re.IGNORECASE | re.DOTALL)


def parse_react(reply: str) -> Tuple[str, str, str]:
    """``(thought, action, argument)`` of a model reply; ``action`` is ``"search"``,
    ``"finish"`` or ``"invalid"``. Anything after a hallucinated ``Observation:`` is dropped."""
    reply = re.split(r"\n\s*Observation\s*:", reply, maxsplit=1)[0]
    thought_match = _THOUGHT.search(reply)
    thought = thought_match.group(1).strip() if thought_match else ""
    action_match = _ACTION.search(reply)
    if not action_match:
        return thought, "invalid", reply.strip()
    return thought, action_match.group(1).lower(), action_match.group(2).strip()


def format_observation(query: str, result: SearchResult, snippet_chars: int = 300) -> str:
    """The ``Observation:`` text for one search: files, locators and plain snippets."""
    if not result.files:
        return f'Observation: no files matched "{query}". Try other words.'
    lines = [f'Observation: {len(result.files)} files for "{query}":']
    for n, hit in enumerate(result.files, 1):
        lines.append(f"[{n}] {hit.path}")
        for unit in hit.units:
            snippet = " ".join(plain_snippet(unit.snippet or unit.text).split())
            if len(snippet) > snippet_chars:
                snippet = snippet[:snippet_chars].rstrip() + " …"
            loc = format_locator(unit.locator) or unit.kind
            lines.append(f"    - {loc}: {snippet}")
    return "\n".join(lines)


def _mentioned(answer: str, paths: List[str]) -> List[str]:
    lowered = answer.lower()
    found = []
    for path in paths:
        name = re.split(r"[/#]", path)[-1]
        if path.lower() in lowered or (name and name.lower() in lowered):
            found.append(path)
    return found


def react_answer(
    client: Client,
    question: str,
    llm: LLM,
    max_steps: int = 6,
    top_k: int = 5,
    units_per_file: int = 2,
    **search_options: Any,
) -> ReactAnswer:
    """Runs the ReAct loop for at most ``max_steps`` model calls.

    Each ``search[q]`` runs ``client.search(q, top_k, units_per_file=…, **search_options)``
    and appends the model's turn and an ``Observation:`` user message; ``finish[a]`` ends
    the loop. ``llm`` receives a copy of the conversation so far.
    """
    messages: List[Message] = [
        {"role": "system", "content": REACT_SYSTEM},
        {"role": "user", "content": f"Question: {question}"},
    ]
    steps: List[ReactStep] = []
    for step in range(max_steps):
        reply = llm([dict(m) for m in messages])
        thought, action, argument = parse_react(reply)
        if action == "search" and not argument:
            action = "invalid"
        turn = re.split(r"\n\s*Observation\s*:", reply, maxsplit=1)[0].strip()
        messages.append({"role": "assistant", "content": turn})
        if action == "finish":
            steps.append(ReactStep(thought, action, argument))
            seen = list(dict.fromkeys(p for s in steps if s.result for p in s.result.paths))
            return ReactAnswer(argument, True, steps, messages, _mentioned(argument, seen))
        result: Optional[SearchResult] = None
        if action == "search":
            result = client.search(argument, top_k=top_k, units_per_file=units_per_file, **search_options)
            observation = format_observation(argument, result)
        else:
            observation = (
                "Observation: I could not read an action. Reply with 'Thought: …' and then "
                "'Action: search[query]' or 'Action: finish[answer]'."
            )
        if step == max_steps - 2:
            observation += "\n(One step left: reply with Action: finish[answer] now.)"
        messages.append({"role": "user", "content": observation})
        steps.append(ReactStep(thought, action, argument, observation, result))
    return ReactAnswer("", False, steps, messages, [])


__all__ = [
    "RagAnswer",
    "rag_answer",
    "format_evidence",
    "ReactStep",
    "ReactAnswer",
    "react_answer",
    "parse_react",
    "format_observation",
    "RAG_SYSTEM",
    "REACT_SYSTEM",
]
