"""Dentate's MCP server through the official Python SDK (``mcp``), over both transports:
``dentate-searchd --mcp-stdio`` and Streamable HTTP at ``/mcp`` of a listening daemon.

The index is the sample profile with text embeddings when the models are there
(``embedded_profile`` in conftest.py; lexical otherwise). Answers are checked against
samples/FACTS.md: F05 (the business plan, physical page 5, printed "2") and F02 (the
joinery invoice, page 2). The SDK also checks every successful tool reply's structured
content against the tool's output schema, so each call below tests that too.

HTTP only: a foreign ``Origin`` gets 403; a daemon with a key file (two keys made by
``dentate-searchd new-key``) and two profiles answers the SDK with a key, 401 without
one or with a wrong one, 403 for a key that does not open the profile, and
``/p/NAME/mcp`` from the named profile.

Needs the SDK: scripts/test installs ``mcp==2.3.0`` (its 2.x API: snake_case result
fields, ``streamable_http_client`` with an ``httpx2`` client for headers).
"""

from __future__ import annotations

import base64
import subprocess
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator, Callable, Dict, Iterator, List, Optional, Tuple

import httpx2
import pytest
import requests
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import ClientSession, MCPError, StdioServerParameters, types
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

from conftest import _bin, index_profile, serve_searchd
from support import BUSINESS_PLAN, INVOICE, IndexedProfile

TOOLS = ["search", "get_text", "list_files", "get_metadata", "render", "timeline", "routine"]
CHOIR = "Notes/choir.md"  # F32: line 9
HERONS = "Notes/heron-count.md"  # only in the second profile of the guarded daemon

# A JSON-RPC initialize request, for the raw HTTP checks.
INITIALIZE = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "test_mcp", "version": "0"}},
}
MCP_ACCEPT = {"Accept": "application/json, text/event-stream"}


# --- a synchronous handle on an SDK session -------------------------------------------


class Mcp:
    """An initialized ``ClientSession``, driven from plain (synchronous) tests: its event
    loop runs in an anyio portal thread for as long as the session is open."""

    def __init__(self, portal: BlockingPortal, session: ClientSession) -> None:
        self._portal, self.session = portal, session

    def list_tools(self) -> List[types.Tool]:
        return self._portal.call(self.session.list_tools).tools

    def call(self, name: str, arguments: Optional[Dict[str, Any]] = None) -> types.CallToolResult:
        result = self._portal.call(self.session.call_tool, name, arguments)
        assert isinstance(result, types.CallToolResult)
        return result


@asynccontextmanager
async def _initialized(open_transport: Callable[[], Any]) -> AsyncIterator[ClientSession]:
    async with open_transport() as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=60) as session:
            await session.initialize()
            yield session


@contextmanager
def connect(open_transport: Callable[[], Any]) -> Iterator[Mcp]:
    """Opens a transport, initializes an MCP session over it and closes both after."""
    with start_blocking_portal() as portal:
        with portal.wrap_async_context_manager(_initialized(open_transport)) as session:
            yield Mcp(portal, session)


def http_transport(url: str, headers: Optional[Dict[str, str]] = None,
                   statuses: Optional[List[int]] = None) -> Callable[[], Any]:
    """The SDK's Streamable HTTP transport to ``url`` with extra request headers; the
    status of every HTTP response is appended to ``statuses``."""

    async def record(response: httpx2.Response) -> None:
        if statuses is not None:
            statuses.append(response.status_code)

    @asynccontextmanager
    async def open_transport() -> AsyncIterator[Any]:
        async with httpx2.AsyncClient(
            headers=headers or {}, timeout=httpx2.Timeout(30, read=60),
            event_hooks={"response": [record]},
        ) as http:
            async with streamable_http_client(url, http_client=http) as streams:
                yield streams

    return open_transport


def stdio_transport(shop: IndexedProfile, errlog: Any) -> Callable[[], Any]:
    """The SDK's stdio transport to ``dentate-searchd --mcp-stdio`` over ``shop``'s index."""
    args = ["--index", str(shop.index), "--mcp-stdio"] + ([] if shop.dense else ["--no-dense"])
    server = StdioServerParameters(command=str(_bin("dentate-searchd")), args=args)
    return lambda: stdio_client(server, errlog=errlog)


def text_of(result: types.CallToolResult) -> str:
    """The reply's text blocks, joined."""
    return "\n".join(block.text for block in result.content if isinstance(block, types.TextContent))


def assert_tool_error(result: types.CallToolResult, *reason: str) -> None:
    """A tool error (``isError``) whose text names the reason."""
    assert result.is_error is True, result
    assert result.structured_content is None, result
    message = text_of(result)
    for part in reason:
        assert part in message, message


def mcp_error(excinfo: pytest.ExceptionInfo[BaseException]) -> MCPError:
    """The MCPError in what ``connect`` raised (possibly wrapped in an exception group)."""
    pending: List[BaseException] = [excinfo.value]
    while pending:
        error = pending.pop()
        if isinstance(error, MCPError):
            return error
        pending.extend(getattr(error, "exceptions", ()))
        pending.extend(e for e in (error.__cause__, error.__context__) if e is not None)
    raise AssertionError(f"no MCPError in {excinfo.value!r}")


# --- fixtures ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shop(embedded_profile: IndexedProfile) -> IndexedProfile:
    return embedded_profile


@pytest.fixture(scope="module")
def http_base(shop: IndexedProfile, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A listening daemon over the sample profile: ``http://127.0.0.1:PORT``."""
    log = tmp_path_factory.mktemp("mcp-http") / "searchd.stderr"
    with serve_searchd(["--index", str(shop.index)] + ([] if shop.dense else ["--no-dense"]), log) as addrs:
        yield "http://" + addrs["http"]


@pytest.fixture(scope="module", params=["stdio", "http"])
def mcp(request: pytest.FixtureRequest, shop: IndexedProfile,
        tmp_path_factory: pytest.TempPathFactory) -> Iterator[Mcp]:
    """One SDK session per transport, shared by the module's tests."""
    if request.param == "stdio":
        log = tmp_path_factory.mktemp("mcp-stdio") / "searchd.stderr"
        with open(log, "w") as errlog, connect(stdio_transport(shop, errlog)) as session:
            yield session
    else:
        base = request.getfixturevalue("http_base")
        with connect(http_transport(base + "/mcp")) as session:
            yield session


@dataclass(frozen=True)
class Guarded:
    """A daemon with a key file serving two profiles: ``shop`` (the first) and ``notes``."""

    base: str
    key_all: str  # opens every profile
    key_notes: str  # opens only ``notes``


def _new_key(name: str, profiles: str) -> Tuple[str, str]:
    """``dentate-searchd new-key``: the key and its ``[[key]]`` table."""
    made = subprocess.run([str(_bin("dentate-searchd")), "new-key", name, "--profiles", profiles],
                          capture_output=True, text=True, timeout=30, check=True)
    first, _, table = made.stdout.partition("\n")
    assert first.startswith("# key") and "[[key]]" in table, made.stdout
    return first.rsplit(": ", 1)[1].strip(), table


@pytest.fixture(scope="module")
def guarded(shop: IndexedProfile, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Guarded]:
    root = tmp_path_factory.mktemp("mcp-guarded")
    notes, notes_index = root / "notes", root / "notes-index"
    (notes / "Notes").mkdir(parents=True)
    (notes / HERONS).write_text("# Heron count\n\nSunday at Snuff Mills: seven grey herons on the weir.\n")
    (notes / "Notes" / "packing.txt").write_text("Tent, stove, two mugs, the blue rucksack.\n")
    index_profile(notes, notes_index, "--no-embed")
    key_all, table_all = _new_key("all-profiles", "*")
    key_notes, table_notes = _new_key("notes-only", "notes")
    keys = root / "keys.toml"
    keys.write_text(table_all + "\n" + table_notes)
    args = ["--profile", f"shop={shop.index}", "--profile", f"notes={notes_index}",
            "--keys", str(keys), "--no-dense"]
    with serve_searchd(args, root / "searchd.stderr") as addrs:
        yield Guarded(base="http://" + addrs["http"], key_all=key_all, key_notes=key_notes)


def bearer(key: str) -> Dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


# --- both transports --------------------------------------------------------------------


def test_tools_are_listed_with_both_schemas(mcp: Mcp) -> None:
    tools = mcp.list_tools()
    assert [t.name for t in tools] == TOOLS
    for tool in tools:
        assert tool.description, tool.name
        assert tool.input_schema["type"] == "object", tool.name
        assert tool.output_schema is not None and tool.output_schema["type"] == "object", tool.name
    search = tools[0]
    assert search.input_schema["required"] == ["query"]
    assert {"query", "top_k", "mode", "path_prefixes", "when"} <= set(search.input_schema["properties"])
    assert set(tools[1].input_schema["properties"]) >= {"path", "page", "line_start", "max_chars"}
    assert {"files", "query", "took_ms"} <= set(search.output_schema["properties"])
    info = mcp.session.initialize_result
    assert info is not None and info.server_info.name == "dentate"
    assert info.capabilities.tools is not None
    assert info.instructions and "search" in info.instructions


def test_search_finds_the_file_and_its_page(mcp: Mcp) -> None:
    question = "what share of sales were children's books in 2023"  # F05
    result = mcp.call("search", {"query": question, "top_k": 3})
    assert result.is_error is False
    reply = result.structured_content
    assert reply is not None and reply["query"] == question and reply["took_ms"] >= 0
    assert 1 <= len(reply["files"]) <= 3
    top = reply["files"][0]
    assert top["path"] == BUSINESS_PLAN and top["file_type"] == "pdf"
    assert top["page"] == 5 and top["locator"] == "p. 5 (2)"  # physical page 5, printed "2"
    assert "18%" in top["snippet"] and "**" in top["snippet"]
    scores = [f["score"] for f in reply["files"]]
    assert scores == sorted(scores, reverse=True)
    text = text_of(result)
    assert text.startswith(f"1. {BUSINESS_PLAN} (p. 5 (2))\n"), text

    invoice = mcp.call("search", {"query": "Hartcliffe invoice balance due after deposit", "top_k": 3})  # F02
    top = invoice.structured_content["files"][0]
    assert (top["path"], top["page"], top["locator"]) == (INVOICE, 2, "p. 2")
    assert "£3,046.80" in top["snippet"]
    assert f"1. {INVOICE} (p. 2)" in text_of(invoice)


def test_search_modes_and_filters(mcp: Mcp, shop: IndexedProfile) -> None:
    question = {"query": "what share of sales were children's books in 2023", "top_k": 3, "mode": "dense"}
    dense = mcp.call("search", question)
    if shop.dense:  # the server loaded the text model: meaning alone finds the page
        top = dense.structured_content["files"][0]
        assert (top["path"], top["page"]) == (BUSINESS_PLAN, 5)
    else:
        assert_tool_error(dense, "dense retrieval is unavailable")
    mail = mcp.call("search", {"query": "Hartcliffe Joinery quote", "mode": "lexical",
                               "path_prefixes": ["Mail"], "top_k": 5}).structured_content
    assert mail["files"] and all(f["path"].startswith("Mail/") for f in mail["files"])
    nothing = mcp.call("search", {"query": "Hartcliffe", "path_prefixes": ["No/Such/Folder"]})
    assert nothing.is_error is False and nothing.structured_content["files"] == []
    assert text_of(nothing) == "No file matches."


def test_get_text_whole_file_and_one_page(mcp: Mcp) -> None:
    whole = mcp.call("get_text", {"path": BUSINESS_PLAN})
    assert whole.is_error is False
    reply = whole.structured_content
    assert reply["path"] == BUSINESS_PLAN and reply["file_type"] == "pdf"
    assert reply["total_units"] == 7 and [u["page"] for u in reply["units"]] == list(range(1, 8))
    assert reply["truncated"] is False
    assert "Children's books were 18% of 2023 sales (£33,552)" in " ".join(u["text"] for u in reply["units"])

    page = mcp.call("get_text", {"path": BUSINESS_PLAN, "page": 5})
    reply = page.structured_content
    assert [(u["page"], u["locator"]) for u in reply["units"]] == [(5, "p. 5 (2)")]
    assert "Children's books were 18% of 2023 sales (£33,552)" in " ".join(reply["units"][0]["text"].split())
    assert reply["total_units"] == 7
    text = text_of(page)
    assert text.startswith(f"{BUSINESS_PLAN} (pdf, 1 of 7 units)\n[p. 5 (2)] "), text

    cut = mcp.call("get_text", {"path": BUSINESS_PLAN, "max_chars": 40}).structured_content
    assert cut["truncated"] is True and sum(len(u["text"]) for u in cut["units"]) <= 41  # 40 and "…"

    lines = mcp.call("get_text", {"path": CHOIR, "line_start": 9, "line_end": 9}).structured_content
    assert len(lines["units"]) == 1
    unit = lines["units"][0]
    assert unit["line_start"] <= 9 <= unit["line_end"]
    assert "Saturday 27 April 2024, 7pm, St Agnes Church" in unit["text"]  # F32


def test_list_files_with_a_glob(mcp: Mcp) -> None:
    shop = mcp.call("list_files", {"pattern": "Documents/Shop/*.pdf"})
    assert shop.is_error is False
    reply = shop.structured_content
    assert [f["path"] for f in reply["files"]] == [BUSINESS_PLAN] and reply["truncated"] is False
    listed = reply["files"][0]
    assert listed["file_type"] == "pdf" and listed["size"] > 0 and listed["units"] == 7 and listed["modified"]
    assert text_of(shop).strip() == BUSINESS_PLAN

    pdfs = mcp.call("list_files", {"pattern": "*.pdf"}).structured_content
    paths = [f["path"] for f in pdfs["files"]]
    assert {BUSINESS_PLAN, INVOICE} <= set(paths) and all(p.endswith(".pdf") for p in paths)

    first = mcp.call("list_files", {"pattern": "*.pdf", "limit": 1})
    assert len(first.structured_content["files"]) == 1 and first.structured_content["truncated"] is True
    assert "more files match" in text_of(first)


def test_get_metadata(mcp: Mcp) -> None:
    result = mcp.call("get_metadata", {"path": BUSINESS_PLAN})
    assert result.is_error is False
    meta = result.structured_content
    assert meta["path"] == BUSINESS_PLAN and meta["file_type"] == "pdf"
    assert meta["extra"]["page_count"] == "7" and meta["unit_count"] == 7
    assert meta["author"] == "Rosalind Achterberg"
    assert text_of(result).startswith(f"{BUSINESS_PLAN}: pdf, ")


def test_render_a_pdf_page(mcp: Mcp) -> None:
    result = mcp.call("render", {"path": BUSINESS_PLAN, "page": 5})
    assert result.is_error is False, text_of(result)
    images = [b for b in result.content if isinstance(b, types.ImageContent)]
    assert len(images) == 1 and images[0].mime_type == "image/jpeg"
    jpeg = base64.b64decode(images[0].data, validate=True)
    assert jpeg[:2] == b"\xff\xd8" and len(jpeg) > 1000
    assert result.structured_content == {"path": BUSINESS_PLAN, "mime_type": "image/jpeg", "bytes": len(jpeg)}
    assert text_of(result) == f"page 5 of {BUSINESS_PLAN} as image/jpeg"


def test_timeline_and_routine(mcp: Mcp) -> None:
    march = mcp.call("timeline", {"when": "March 2024"})
    assert march.is_error is False, text_of(march)
    reply = march.structured_content
    assert reply["units_matched"] > 0 and reply["days"]
    assert all(day["date"].startswith("2024-03") for day in reply["days"])
    routine = mcp.call("routine", {"top": 3})
    assert routine.is_error is False and isinstance(routine.structured_content, dict)
    assert text_of(routine).startswith("routine")


def test_errors_are_tool_results_and_the_session_goes_on(mcp: Mcp, shop: IndexedProfile) -> None:
    cases = [
        ("get_text", {"path": "Documents/No such report.pdf"}, ["no file", "No such report.pdf"]),
        ("get_metadata", {"path": "Nope/missing.txt"}, ["no file"]),
        ("get_text", {"path": "../profile/" + CHOIR}, ['must not contain ".."']),
        ("get_text", {"path": "Documents/../../../etc/passwd"}, ['must not contain ".."']),
        ("render", {"path": "../" + BUSINESS_PLAN}, ['must not contain ".."']),
        ("get_text", {"path": "/etc/passwd"}, ["must be relative to the profile root"]),
        ("render", {"path": "/etc/passwd"}, ["must be relative to the profile root"]),
        # The profile's own files, named by their absolute path, are refused the same way.
        ("get_metadata", {"path": str(shop.profile / CHOIR)}, ["must be relative to the profile root"]),
        ("search", {"query": 3}, ["search: bad arguments", "invalid type"]),
        ("search", {"query": "vet", "topk": 3}, ["search: bad arguments", "unknown field `topk`"]),
        ("search", {}, ["missing field `query`"]),
        ("search", {"query": "   "}, ["query is empty"]),
        ("search", {"query": "vet", "mode": "semantic"}, ["semantic"]),
        ("search", {"query": "vet", "when": "the twelfth of never"}, ["no date range understood"]),
        ("get_text", {"path": BUSINESS_PLAN, "page": "five"}, ["get_text: bad arguments", "invalid type"]),
        ("get_text", {"path": BUSINESS_PLAN, "pages": 5}, ["unknown field `pages`"]),
        ("list_files", {"pattern": "*.pdf", "limit": -1}, ["list_files: bad arguments"]),
        ("render", {"path": BUSINESS_PLAN, "page": 50}, ["out of range"]),
        ("render", {"path": "Documents/Shop/Takings Feb-Mar 2024.xlsx"}, ["cannot render"]),
        ("timeline", {"after": "yesterday"}, ["after", "YYYY-MM-DD"]),
    ]
    for name, arguments, reason in cases:
        assert_tool_error(mcp.call(name, arguments), *reason)
    # An unknown tool is a protocol error (JSON-RPC invalid params), not a tool result.
    with pytest.raises(MCPError) as unknown:
        mcp.call("delete_everything", {})
    assert unknown.value.code == -32602 and "the tools are search" in unknown.value.message
    # The session still answers.
    after = mcp.call("list_files", {"pattern": "Documents/Shop/*.pdf"})
    assert after.is_error is False and [f["path"] for f in after.structured_content["files"]] == [BUSINESS_PLAN]
    assert [t.name for t in mcp.list_tools()] == TOOLS


def test_timeline_errors_name_the_tools_own_fields(mcp: Mcp) -> None:
    for arguments in ({}, {"when": "March 2024", "after": "2024-03-01"}):
        result = mcp.call("timeline", arguments)
        assert_tool_error(result, "after")
        assert "start" not in text_of(result) and "Unix seconds" not in text_of(result), text_of(result)


# --- HTTP only --------------------------------------------------------------------------


def test_foreign_origin_is_refused(http_base: str) -> None:
    foreign = requests.post(http_base + "/mcp", json=INITIALIZE, timeout=30,
                            headers={**MCP_ACCEPT, "Origin": "http://evil.example"})
    assert foreign.status_code == 403, foreign.text
    assert "jsonrpc" not in foreign.text
    own = requests.post(http_base + "/mcp", json=INITIALIZE, timeout=30,
                        headers={**MCP_ACCEPT, "Origin": http_base})
    assert own.status_code == 200, own.text
    assert own.json()["result"]["serverInfo"]["name"] == "dentate"


def test_a_key_opens_the_mcp_endpoint(guarded: Guarded) -> None:
    statuses: List[int] = []
    with connect(http_transport(guarded.base + "/mcp", bearer(guarded.key_all), statuses)) as mcp:
        assert [t.name for t in mcp.list_tools()] == TOOLS
        found = mcp.call("search", {"query": "what share of sales were children's books in 2023"})
        top = found.structured_content["files"][0]
        assert (top["path"], top["page"]) == (BUSINESS_PLAN, 5)
    assert statuses and 401 not in statuses and 403 not in statuses


@pytest.mark.parametrize("authorization", [None, "Bearer dnt_not-a-key", "Basic dXNlcjpwYXNz", "wrong-key-plus"])
def test_no_key_or_a_wrong_key_is_401(guarded: Guarded, authorization: Optional[str]) -> None:
    if authorization == "wrong-key-plus":  # the right key with a character more
        authorization = f"Bearer {guarded.key_all}x"
    headers = {"Authorization": authorization} if authorization else {}
    statuses: List[int] = []
    with pytest.raises(Exception) as raised:
        with connect(http_transport(guarded.base + "/mcp", headers, statuses)):
            pass
    mcp_error(raised)  # the SDK says the server refused the initialize request
    assert statuses and set(statuses) == {401}, statuses

    raw = requests.post(guarded.base + "/mcp", json=INITIALIZE, headers={**MCP_ACCEPT, **headers}, timeout=30)
    assert raw.status_code == 401, raw.text
    assert raw.headers.get("WWW-Authenticate", "").startswith("Bearer")


def test_a_key_for_another_profile_is_403(guarded: Guarded) -> None:
    for path in ("/mcp", "/p/shop/mcp"):
        raw = requests.post(guarded.base + path, json=INITIALIZE, timeout=30,
                            headers={**MCP_ACCEPT, **bearer(guarded.key_notes)})
        assert raw.status_code == 403, (path, raw.status_code, raw.text)
    with connect(http_transport(guarded.base + "/p/notes/mcp", bearer(guarded.key_notes))) as mcp:
        listed = mcp.call("list_files", {}).structured_content
        assert sorted(f["path"] for f in listed["files"]) == [HERONS, "Notes/packing.txt"]


def test_profile_endpoints_answer_from_their_profile(guarded: Guarded) -> None:
    with connect(http_transport(guarded.base + "/p/notes/mcp", bearer(guarded.key_all))) as notes:
        found = notes.call("search", {"query": "how many herons on the weir"}).structured_content["files"]
        assert found and found[0]["path"] == HERONS and found[0]["locator"].startswith("line")
        assert notes.call("search", {"query": "children's books share of 2023 sales"}).structured_content["files"] == []
        assert_tool_error(notes.call("get_text", {"path": BUSINESS_PLAN}), "no file")
        text = notes.call("get_text", {"path": HERONS}).structured_content
        assert "seven grey herons" in text["units"][0]["text"]
    for path in ("/mcp", "/p/shop/mcp"):
        with connect(http_transport(guarded.base + path, bearer(guarded.key_all))) as shop:
            assert shop.call("list_files", {"pattern": "heron-count.md"}).structured_content["files"] == []
            assert_tool_error(shop.call("get_metadata", {"path": HERONS}), "no file")
            plan = shop.call("list_files", {"pattern": "Documents/Shop/*.pdf"}).structured_content["files"]
            assert [f["path"] for f in plan] == [BUSINESS_PLAN]
