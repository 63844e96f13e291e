"""The typed clients against a real daemon (facts from samples/FACTS.md)."""

from __future__ import annotations

import pytest

import dentate
from dentate import format_locator, plain_snippet

from support import BUSINESS_PLAN, INVOICE, PITCH, TAKINGS, Daemon


def test_stats(client: dentate.Client, daemon: Daemon) -> None:
    stats = client.stats()
    assert stats.files_indexed >= 40
    assert stats.files_failed == 0
    assert stats.units >= stats.files_indexed
    assert stats.units_by_kind["page"] > 0
    assert sum(stats.files_by_modality.values()) == stats.files_indexed
    assert stats.dense_status  # --no-dense: the daemon says why dense retrieval is off
    assert stats.index_dir.rstrip("/").endswith("index")


def test_search_groups_units_by_file(client: dentate.Client) -> None:
    result = client.search("Hartcliffe invoice balance due after deposit", top_k=3)  # F02
    assert 1 <= len(result) <= 3
    top = result.files[0]
    assert top.path == INVOICE and top.file.extension == "pdf" and top.file.modality == "document"
    best = top.units[0]
    assert best.path == INVOICE
    assert best.locator == {"page": 2}
    assert "<b>" in best.snippet and "Balance due £3,046.80" in plain_snippet(best.snippet)
    assert best.score > 0 and best.kind == "page"
    assert result.paths[0] == INVOICE
    assert [f.score for f in result] == sorted((f.score for f in result), reverse=True)


def test_search_filters_and_modes(client: dentate.Client) -> None:
    mail = client.search("Hartcliffe Joinery quote", top_k=10, path_prefixes=["Mail"], mode="lexical")
    assert mail.files and all(p.startswith("Mail/") for p in mail.paths)
    csv = client.search("Hartcliffe", extensions=["csv"])
    assert csv.files and all(p.endswith(".csv") for p in csv.paths)
    one_unit = client.search("Hartcliffe", top_k=2, units_per_file=1, explain=True)
    assert all(len(f.units) == 1 for f in one_unit)
    assert one_unit.files[0].units[0].explain  # per-signal scores
    with pytest.raises(ValueError):
        client.search("x", mode="semantic")
    with pytest.raises(TypeError):
        client.search("x", no_such_field=1)


def test_retrieve_returns_flat_units_with_text(client: dentate.Client) -> None:
    units = client.retrieve("what share of sales were children's books in 2023", top_k=3).units  # F05
    assert len(units) == 3
    assert units[0].path == BUSINESS_PLAN
    assert units[0].locator == {"page": 5, "page_label": "2"}
    assert format_locator(units[0].locator) == "page 5 (printed 2)"
    assert "18% of 2023 sales" in units[0].text

    rows = client.retrieve("takings on Valentine's day blind date book promotion", top_k=3).units  # F13
    sheet_units = [u for u in rows if u.path == TAKINGS]
    assert sheet_units and sheet_units[0].locator["sheet"] == "Daily takings"
    assert sheet_units[0].locator["row_start"] <= 13 <= sheet_units[0].locator["row_end"]
    assert "1284.5" in sheet_units[0].text


def test_rerank_without_the_text_model_keeps_the_retrieval_order(client: dentate.Client) -> None:
    # The test daemon runs without models (--no-dense): rerank is asked for, says it did
    # not run, and the units are the plain ones.
    query = "what share of sales were children's books in 2023"
    plain = client.retrieve(query, top_k=3)
    asked = client.retrieve(query, top_k=3, rerank=True, explain=True)
    assert plain.reranked is False and asked.reranked is False
    assert [u.unit_id for u in asked.units] == [u.unit_id for u in plain.units]
    assert any(n.startswith("rerank: the text model is not available") for n in asked.notes)


def test_list_files(client: dentate.Client) -> None:
    pdfs = client.list_files("**/*.pdf")
    assert INVOICE in pdfs.paths and BUSINESS_PLAN in pdfs.paths
    assert all(p.endswith(".pdf") for p in pdfs.paths)
    assert not pdfs.truncated
    limited = client.list_files("", limit=3)
    assert len(limited) == 3 and limited.truncated
    assert all(f.path.startswith("Mail/") for f in client.list_files("Mail/**"))


def test_get_text_and_metadata(client: dentate.Client) -> None:
    text = client.get_text(INVOICE)
    assert text.file.path == INVOICE
    assert [s.locator.get("page") for s in text.segments] == [1, 2]
    assert "Balance due £3,046.80" in " ".join(text.segments[1].text.split())
    assert "INV-2291" in text.text

    meta = client.get_metadata(PITCH)
    assert meta.path == PITCH and meta.extension == "pptx" and meta.status == "indexed"
    assert meta.unit_count >= 3 and meta.size > 0 and meta.modified

    with pytest.raises(dentate.DentateError) as error:
        client.get_metadata("No/Such/file.pdf")
    assert error.value.code == "NOT_FOUND"


def test_http_client_retrieve(daemon: Daemon) -> None:
    http = dentate.HttpClient(daemon.http_url)
    hits = http.retrieve("Hartcliffe invoice balance due after deposit", top_k=2)
    assert 1 <= len(hits) <= 2
    assert hits[0].path == INVOICE and hits[0].metadata["page"] == 2
    assert "Balance due" in hits[0].text and hits[0].id
    filtered = http.retrieve("Hartcliffe", top_k=5, path_prefixes=["Mail"])
    assert filtered and all(h.path.startswith("Mail/") for h in filtered)
    with pytest.raises(dentate.DentateError) as error:
        http.retrieve("x", mode="semantic")
    assert error.value.code == "HTTP 400"


def test_cutoff_options(client: dentate.Client, daemon: Daemon) -> None:
    query = "Hartcliffe invoice balance due after deposit"  # F02
    full = client.search(query, top_k=10)
    cut = client.search(query, top_k=10, autocut=True, explain=True)
    # The cut-off only ever drops from the end of the same ranking.
    assert 1 <= len(cut) <= len(full)
    assert cut.paths == full.paths[: len(cut)]
    assert any(n.startswith("cutoff (autocut 1)") for n in cut.notes)
    assert client.search(query, top_k=10, min_score=1e9).files == []
    units = client.retrieve(query, top_k=10, autocut=2).units
    assert units and units[0].path == INVOICE
    with pytest.raises(ValueError):
        client.search(query, autocut=-1)
    with pytest.raises(dentate.DentateError) as error:
        client.search(query, autocut=1000)
    assert error.value.code == "INVALID_ARGUMENT"
    http = dentate.HttpClient(daemon.http_url)
    assert http.retrieve(query, top_k=5, min_score=1e9) == []
    assert http.retrieve(query, top_k=5, autocut=True)[0].path == INVOICE


def test_routine_timeline_and_activity(client: dentate.Client, daemon: Daemon) -> None:
    # The first run records each file's own times (the copy keeps modification times).
    routine = client.routine()
    assert routine["activity_available"] is True
    first_run = sum(int(n) for name, n in routine["activity_sources"].items() if name in ("birth", "mtime"))
    assert first_run >= 40
    grid = routine["activity"]
    assert len(grid["counts"]) == 168
    assert sum(int(c) for c in grid["counts"]) == int(grid["total"]) >= first_run
    over_http = dentate.HttpClient(daemon.http_url).routine()
    assert over_http["activity"]["total"] == int(grid["total"])

    timeline = client.timeline(range={"start": 0, "end": 4_102_444_800})
    assert int(timeline["activity_events"]) >= first_run
    assert any(day.get("activity") for day in timeline["days"])

    created = client.search("", top_k=100, activity={"kinds": ["created"]}, mode="lexical")
    assert len(created) >= 40
    with pytest.raises(dentate.DentateError):
        client.search("", activity={"kinds": ["teleported"]})


def test_format_locator_names_gathered_lines() -> None:
    assert format_locator({"line_start": 4, "line_end": 20}) == "lines 4-20"
    gathered = {"line_start": 26, "line_end": 178, "lines": [26, 51, 76, 102, 127, 152, 178]}
    assert format_locator(gathered) == "lines 26, 51, 76, 102, 127 (+2 more)"
    assert format_locator({"line_start": 5, "line_end": 58, "lines": [5, 6, 58]}) == "lines 5, 6, 58"


def test_gathered_log_records_come_with_their_lines(client: dentate.Client) -> None:
    log = "Code/till-sync/logs/sync-2024-03.log"
    result = client.search("nothing to upload shop closed", top_k=5, mode="lexical", extensions=["log"])
    units = [u for f in result for u in f.units if f.path == log]
    gathered = [u for u in units if u.locator.get("lines")]
    assert gathered, [u.locator for u in units]
    lines = gathered[0].locator["lines"]
    assert isinstance(lines, list) and all(isinstance(n, int) for n in lines)
    assert len(lines) == len(gathered[0].text.splitlines()) >= 3
    assert format_locator(gathered[0].locator).startswith(f"lines {lines[0]}, {lines[1]}")
