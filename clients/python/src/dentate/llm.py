"""An OpenAI-compatible chat-completions callable (standard library only).

Any ``messages -> str`` callable works as the ``llm`` of ``dentate.agents``; this one
talks to ``POST {base_url}/chat/completions`` (OpenAI, vLLM, llama.cpp server, Ollama, …).
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Callable, Dict, List, Optional, Sequence

#: A chat message: ``{"role": "system" | "user" | "assistant", "content": str}``.
Message = Dict[str, str]
#: What the agents call: chat messages in, the model's reply text out.
LLM = Callable[[List[Message]], str]


def openai_chat(
    base_url: Optional[str] = None,
    api_key: Optional[str] = None,
    model: Optional[str] = None,
    temperature: float = 0.0,
    max_tokens: int = 1024,
    stop: Optional[Sequence[str]] = None,
    timeout: float = 120.0,
) -> LLM:
    """Returns a ``messages -> str`` callable for an OpenAI-compatible endpoint.

    Unset arguments come from the environment: ``OPENAI_BASE_URL`` (default
    ``https://api.openai.com/v1``), ``OPENAI_API_KEY`` (may be empty for local servers),
    ``OPENAI_MODEL`` (required).
    """
    base = (base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1").rstrip("/")
    key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
    name = model or os.environ.get("OPENAI_MODEL")
    if not name:
        raise ValueError("no model: pass model= or set OPENAI_MODEL")

    def chat(messages: List[Message]) -> str:
        body: Dict[str, object] = {
            "model": name,
            "messages": messages,
            "temperature": temperature,
            "max_tokens": max_tokens,
        }
        if stop:
            body["stop"] = list(stop)
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        request = urllib.request.Request(
            base + "/chat/completions", data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=timeout) as reply:
                payload = json.loads(reply.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            detail = error.read().decode("utf-8", "replace")[:500]
            raise RuntimeError(f"chat endpoint {base} answered HTTP {error.code}: {detail}") from error
        return payload["choices"][0]["message"].get("content") or ""

    return chat


__all__ = ["Message", "LLM", "openai_chat"]
