"""HippoCamp's and Search-R1's own request shapes against the HTTP gateway, with `requests`
(what the benchmark's baselines use)."""

from __future__ import annotations

import requests

from support import BUSINESS_PLAN, INVOICE, Daemon

F02 = "Hartcliffe invoice balance due after deposit"
F05 = "what share of sales were children's books in 2023"


def test_hippocamp_query_top_k(daemon: Daemon) -> None:
    reply = requests.post(f"{daemon.http_url}/retrieve", json={"query": F02, "top_k": 3}, timeout=30)
    assert reply.status_code == 200
    body = reply.json()
    assert body["query"] == F02 and body["reranked"] is False
    assert "result" not in body  # only with "queries"
    results = body["results"]
    assert 1 <= len(results) <= 3
    for r in results:
        assert {"id", "text", "score", "metadata"} <= r.keys()
        assert {"file_path", "file_name", "file_type", "modality"} <= r["metadata"].keys()
    top = results[0]
    assert top["metadata"]["file_path"] == INVOICE
    assert top["metadata"]["file_name"] == INVOICE.rsplit("/", 1)[1]
    assert top["metadata"]["file_type"] == "pdf" and top["metadata"]["page"] == 2
    assert "Balance due £3,046.80" in top["text"]
    assert [r["score"] for r in results] == sorted((r["score"] for r in results), reverse=True)


def test_search_r1_queries_topk(daemon: Daemon) -> None:
    reply = requests.post(f"{daemon.http_url}/retrieve", json={"queries": [F02, F05], "topk": 2}, timeout=30)
    assert reply.status_code == 200
    body = reply.json()
    assert body["results"][0]["metadata"]["file_path"] == INVOICE  # first query, HippoCamp shape
    result = body["result"]
    assert len(result) == 2 and all(1 <= len(hits) <= 2 for hits in result)
    first, second = result[0][0], result[1][0]
    assert first["document"]["file_path"] == INVOICE and first["score"] > 0
    assert first["document"]["contents"].startswith(INVOICE + "\n")
    assert second["document"]["file_path"] == BUSINESS_PLAN
    assert second["document"]["page"] == 5 and second["document"]["page_label"] == "2"


def test_search_alias_and_errors(daemon: Daemon) -> None:
    alias = requests.post(f"{daemon.http_url}/search", json={"query": F02, "top_k": 1}, timeout=30)
    assert alias.status_code == 200 and alias.json()["results"][0]["metadata"]["file_path"] == INVOICE
    for bad in ({}, {"query": "x", "queries": ["y"]}, {"query": "x", "mode": "semantic"}):
        reply = requests.post(f"{daemon.http_url}/retrieve", json=bad, timeout=30)
        assert reply.status_code == 400 and reply.json()["error"], bad
    health = requests.get(f"{daemon.http_url}/health", timeout=30).json()
    assert health["status"] == "ok" and health["files"] >= 40
