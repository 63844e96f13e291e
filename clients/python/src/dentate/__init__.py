"""Python client for Dentate, a local search daemon for personal files.

- ``Client(grpc_addr)``: typed wrapper of the gRPC API (``search``, ``retrieve``,
  ``list_files``, ``get_text``, ``get_metadata``, ``stats``) returning dataclasses.
- ``HttpClient(base_url)``: ``retrieve`` against the HippoCamp-compatible
  ``POST /retrieve`` (standard library only).
- ``dentate.agents``: ``rag_answer`` and ``react_answer`` over any ``messages -> str`` LLM;
  ``dentate.llm.openai_chat`` is such a callable for OpenAI-compatible endpoints.
- ``dentate.hippocamp``: HippoCamp's embedder, vector store, full-text store, reranker
  and generator interfaces over the HTTP routes, so its strategies run on Dentate.
"""

from .client import Client, DentateError, HttpClient
from .types import (
    FileHit,
    FileInfo,
    FileList,
    FileText,
    RetrievedUnit,
    RetrieveResult,
    SearchResult,
    Stats,
    TextSegment,
    UnitHit,
    format_locator,
    plain_snippet,
)

__version__ = "0.1.0"

__all__ = [
    "Client",
    "HttpClient",
    "DentateError",
    "FileHit",
    "FileInfo",
    "FileList",
    "FileText",
    "RetrievedUnit",
    "RetrieveResult",
    "SearchResult",
    "Stats",
    "TextSegment",
    "UnitHit",
    "format_locator",
    "plain_snippet",
]
