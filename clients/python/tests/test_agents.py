"""The RAG and ReAct loops against a real daemon, with scripted policies instead of a model."""

from __future__ import annotations

import re
from typing import Callable, List

import dentate
from dentate.agents import parse_react, rag_answer, react_answer
from dentate.llm import Message

from support import INVOICE, PITCH


class Scripted:
    """An ``llm`` that replays a list of functions (one per call) and records every call."""

    def __init__(self, *turns: Callable[[List[Message]], str]) -> None:
        self.turns = list(turns)
        self.calls: List[List[Message]] = []

    def __call__(self, messages: List[Message]) -> str:
        self.calls.append(messages)
        return self.turns[len(self.calls) - 1](messages)


def _listed_file(observation: str, needle: str) -> str:
    """The path on the ``[n] path`` line of an observation that contains ``needle``."""
    for line in observation.splitlines():
        match = re.match(r"\[\d+\] (.+)$", line)
        if match and needle in match.group(1):
            return match.group(1)
    raise AssertionError(f"no file containing {needle!r} in:\n{observation}")


def test_react_search_then_finish(client: dentate.Client) -> None:
    def finish_from_observation(messages: List[Message]) -> str:
        observation = messages[-1]["content"]
        assert messages[-1]["role"] == "user" and observation.startswith("Observation:")
        path = _listed_file(observation, "INV-2291")
        amount = re.search(r"Balance due (£[\d,.]+)", observation)
        assert amount, observation
        return f"Thought: the invoice's page 2 says it.\nAction: finish[{amount.group(1)} is due, per {path} page 2]"

    policy = Scripted(
        lambda m: "Thought: I need the invoice.\nAction: search[Hartcliffe invoice balance due]",
        finish_from_observation,
    )
    outcome = react_answer(client, "How much is still owed to Hartcliffe Joinery?", policy, max_steps=4)

    assert outcome.finished
    assert outcome.searches == ["Hartcliffe invoice balance due"]
    assert len(policy.calls) == 2
    first = policy.calls[0]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "Action: search[" in first[0]["content"] and "Hartcliffe Joinery" in first[1]["content"]
    observation = outcome.steps[0].observation
    assert f"[1] {INVOICE}" in observation  # best file first
    assert "page 2:" in observation and "Balance due £3,046.80" in observation
    assert "<b>" not in observation
    assert policy.calls[1][-1]["content"] == observation
    assert policy.calls[1][-2] == {
        "role": "assistant",
        "content": "Thought: I need the invoice.\nAction: search[Hartcliffe invoice balance due]",
    }
    assert outcome.answer == f"£3,046.80 is due, per {INVOICE} page 2"
    assert outcome.cited_files == [INVOICE]
    assert outcome.steps[0].thought == "I need the invoice."
    assert outcome.steps[0].result is not None and outcome.steps[0].result.paths[0] == INVOICE


def test_react_refines_an_empty_search(client: dentate.Client) -> None:
    policy = Scripted(
        lambda m: "Thought: try a code word.\nAction: search[xyzzy frobnicate]",
        lambda m: "Thought: nothing; rephrase.\nAction: search[grant refused overdraft pitch notes]\n"
        "Observation: (the model must not write this)",
        lambda m: f"Thought: slide 3 notes.\nAction: finish[The overdraft covers it until summer "
        f"({_listed_file(m[-1]['content'], 'pitch').rsplit('/', 1)[-1]}, slide 3 notes)]",
    )
    outcome = react_answer(client, "What if the grant is refused?", policy, max_steps=5, top_k=3)

    assert outcome.searches == ["xyzzy frobnicate", "grant refused overdraft pitch notes"]
    assert outcome.steps[0].observation.startswith('Observation: no files matched "xyzzy frobnicate"')
    assert "the model must not write this" not in policy.calls[2][-2]["content"]
    second = outcome.steps[1].observation
    assert f"[1] {PITCH}" in second and "slide 3:" in second and "overdraft" in second
    assert outcome.finished and outcome.cited_files == [PITCH]  # cited by file name
    assert PITCH in outcome.observed_files


def test_react_gives_up_after_max_steps(client: dentate.Client) -> None:
    policy = Scripted(*[lambda m: "I am not following the format."] * 3)
    outcome = react_answer(client, "anything", policy, max_steps=3)
    assert not outcome.finished and outcome.answer == "" and outcome.cited_files == []
    assert [s.action for s in outcome.steps] == ["invalid"] * 3
    assert "could not read an action" in outcome.steps[0].observation
    assert "One step left" in outcome.steps[1].observation
    assert outcome.searches == []


def test_parse_react() -> None:
    assert parse_react("Thought: a\nb\nAction: search[x [y] z]") == ("a\nb", "search", "x [y] z")
    assert parse_react("Action: FINISH[done]\nObservation: junk]") == ("", "finish", "done")
    assert parse_react("Thought: hm")[1] == "invalid"


def test_rag_cites_numbered_evidence(client: dentate.Client) -> None:
    def answer(messages: List[Message]) -> str:
        prompt = messages[-1]["content"]
        header = re.search(r"^\[(\d+)\] " + re.escape(INVOICE) + r" \(page 2\)$", prompt, re.M)
        assert header, prompt
        return f"The balance due is £3,046.80 [{header.group(1)}]."

    llm = Scripted(answer)
    outcome = rag_answer(client, "Hartcliffe invoice balance due after deposit", llm, top_k=4)

    assert len(llm.calls) == 1
    system, user = llm.calls[0]
    assert system["role"] == "system" and "[n]" in system["content"]
    assert user["content"].startswith("Evidence:") and "Question: Hartcliffe invoice" in user["content"]
    assert "Balance due £3,046.80" in " ".join(user["content"].split())
    assert 1 <= len(outcome.evidence) <= 4
    assert outcome.cited_files == [INVOICE]
    assert outcome.cited[0].locator == {"page": 2}
    assert outcome.answer.startswith("The balance due is £3,046.80 [")
    assert outcome.messages[-1] == {"role": "assistant", "content": outcome.answer}


def test_rag_ignores_citations_out_of_range(client: dentate.Client) -> None:
    outcome = rag_answer(client, "Hartcliffe", lambda m: "See [99] and [1, 2].", top_k=2)
    assert [u.unit_id for u in outcome.cited] == [u.unit_id for u in outcome.evidence[:2]]
