"""The example scripts end to end, against a fake OpenAI-compatible chat endpoint."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, Iterator, List

import pytest

from support import INVOICE, REPO_ROOT, Daemon

EXAMPLES = REPO_ROOT / "clients" / "python" / "examples"


def _fake_model(messages: List[Dict[str, str]]) -> str:
    """Answers like a well-behaved model would, from what it was shown."""
    last = messages[-1]["content"]
    if last.startswith("Evidence:"):  # rag.py
        n = re.search(r"^\[(\d+)\] " + re.escape(INVOICE) + " ", last, re.M)
        return f"£3,046.80 is due [{n.group(1) if n else 1}]."
    if last.startswith("Question:"):  # react.py, first turn
        return "Thought: find the invoice.\nAction: search[Hartcliffe invoice balance due]"
    path = re.search(r"^\[1\] (.+)$", last, re.M)
    return f"Thought: found it.\nAction: finish[£3,046.80, see {path.group(1) if path else '?'}]"


class _Handler(BaseHTTPRequestHandler):
    requests: List[Dict[str, Any]] = []

    def do_POST(self) -> None:  # noqa: N802
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _Handler.requests.append({"path": self.path, "auth": self.headers.get("Authorization"), **body})
        reply = json.dumps({"choices": [{"message": {"role": "assistant", "content": _fake_model(body["messages"])}}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(reply.encode())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture()
def chat_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _Handler.requests = []
    yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()
    server.server_close()


def _run(script: str, daemon: Daemon, chat_url: str, *args: str) -> str:
    env = dict(os.environ, OPENAI_BASE_URL=chat_url, OPENAI_API_KEY="sk-test", OPENAI_MODEL="fake-model")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), "--grpc", daemon.grpc_addr, *args],
        env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_rag_example(daemon: Daemon, chat_server: str) -> None:
    out = _run("rag.py", daemon, chat_server, "How much is still owed to Hartcliffe Joinery?")
    assert out.startswith("£3,046.80 is due [")
    assert f"{INVOICE} (page 2)" in out.split("Cited files:")[1]
    (request,) = _Handler.requests
    assert request["path"] == "/v1/chat/completions" and request["model"] == "fake-model"
    assert request["auth"] == "Bearer sk-test"


def test_react_example(daemon: Daemon, chat_server: str) -> None:
    out = _run("react.py", daemon, chat_server, "--verbose", "How much is still owed to Hartcliffe Joinery?")
    assert "Action: search[Hartcliffe invoice balance due]" in out
    assert "Observation: " in out and "page 2:" in out
    assert f"£3,046.80, see {INVOICE}" in out
    assert out.rstrip().endswith(f"Cited files:\n  {INVOICE}")
    assert len(_Handler.requests) == 2 and _Handler.requests[0]["stop"] == ["\nObservation:"]
