"""HippoCamp's retrieval interfaces over a running Dentate daemon.

HippoCamp's in-process strategies (``benchmark/src/providers/retrieval/``: standard_rag,
hybrid_rag, hyde_rag, ircot_rag, …) talk to an embedder, a vector store, a reranker and,
for HyDE and IRCoT, a generator. The classes here implement those interfaces by duck
typing (HippoCamp is never imported by this module) over two HTTP routes:

- ``POST /api/embed`` ``{"texts": [...]}`` → ``{"model", "dimension", "normalized",
  "vectors"}``: the embedders;
- ``POST /retrieve`` with ``"vector"`` (and ``"query"`` when the question's text is
  known): the vector store; ``"mode": "lexical"``: the full-text store of hybrid_rag.

| HippoCamp | here |
|---|---|
| ``BaseDenseEmbedder`` | :class:`DentateDenseEmbedder` |
| ``BaseSparseEmbedder`` | :class:`DentateSparseEmbedder` (its "sparse embedding" carries the question's text) |
| ``HybridEmbedder`` | :class:`DentateHybridEmbedder` (dense + text in one call) |
| ``BaseVectorStore`` | :class:`DentateVectorStore` (read-only: Dentate's indexer builds the index) |
| ``SqliteFtsStore`` (hybrid_rag's BM25 side) | :class:`DentateFtsStore` |
| ``BaseReranker`` | :class:`DentateReranker` (pass-through, or best sentence by ``/api/embed``) |
| ``BaseGenerator`` / the strategies' ``generator`` | :class:`ChatGenerator` / :class:`StrategyGenerator` over any ``messages -> str`` callable |
| ``SharedServiceFactory`` (for ``ProviderFactory``) | :class:`DentateServices` |

:func:`find_hippocamp`, :func:`export_hippocamp` and :func:`load_hippocamp` load
HippoCamp's own strategy code from a checkout or a bare git snapshot at run time (it is
never copied into this package). Standard library only; numpy is used when installed
(HippoCamp's embedders return ``np.ndarray``), never required.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import importlib.machinery
import importlib.util
import logging
import math
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .client import DentateError, HttpClient

logger = logging.getLogger(__name__)

#: ``POST /api/embed`` takes at most this many texts per request.
EMBED_BATCH = 256
#: … and texts of at most this many characters (the model reads its first 256 tokens).
EMBED_MAX_CHARS = 20_000
#: ``/retrieve``'s largest ``top_k``.
MAX_TOP_K = 1000

# HippoCamp's providers embed queries as "Instruct: <task>\nQuery: <question>" (the
# Qwen3-Embedding convention, ``src/providers/utils.py``). Dentate's MiniLM was not
# trained with it: the embedders strip it by default (``strip_instruction``).
_INSTRUCTION = re.compile(r"\AInstruct: [^\n]*\nQuery: ", re.S)


def strip_instruction(text: str) -> str:
    """The question inside HippoCamp's ``"Instruct: …\\nQuery: <question>"`` form (the
    text itself when it has no such prefix)."""
    return _INSTRUCTION.sub("", text, count=1)


# --- transport -------------------------------------------------------------------------


class DentateHttp(HttpClient):
    """JSON over HTTP to one daemon (or one profile: ``http://host:port/p/NAME``):
    :class:`dentate.HttpClient` with defaults from the environment and an async ``post``.

    ``base_url`` defaults to ``$DENTATE_URL`` or ``http://127.0.0.1:8080``; ``api_key``
    (sent as ``Authorization: Bearer``) to ``$DENTATE_API_KEY``. Failures raise
    :class:`dentate.DentateError` with ``code`` ``"HTTP <status>"`` and the daemon's
    ``error`` message.
    """

    def __init__(self, base_url: Optional[str] = None, api_key: Optional[str] = None, timeout: float = 60.0) -> None:
        super().__init__(
            base_url or os.environ.get("DENTATE_URL") or "http://127.0.0.1:8080",
            timeout,
            api_key if api_key is not None else (os.environ.get("DENTATE_API_KEY") or None),
        )

    async def apost(self, path: str, body: Mapping[str, Any]) -> Dict[str, Any]:
        """:meth:`post` in a worker thread, so concurrent strategy steps overlap."""
        return await asyncio.to_thread(self.post, path, body)


def _http(base_url: Optional[str], api_key: Optional[str], timeout: float, http: Optional[DentateHttp]) -> DentateHttp:
    return http if http is not None else DentateHttp(base_url, api_key, timeout)


# --- embeddings -----------------------------------------------------------------------


@dataclass
class EmbeddingResult:
    """HippoCamp's ``EmbeddingResult`` (``src/rag/embedding/base.py``), field for field."""

    dense_embeddings: Any  # [N, dimension]: np.ndarray when numpy is installed, else lists
    sparse_embeddings: Optional[List[Dict[str, float]]] = None


class QueryText(dict):
    """A "sparse embedding" that carries the question's text.

    HippoCamp's strategies hand the embedder's sparse output to the vector store
    unchanged; :class:`DentateVectorStore` sends :attr:`text` as ``/retrieve``'s
    ``query`` beside the dense ``vector``, so Dentate fuses its own BM25 list with the
    vector's. As a dict it holds term → count (lower-cased words), so code that reads
    sparse embeddings as ``token -> weight`` still gets one.
    """

    def __init__(self, text: str) -> None:
        counts: Dict[str, float] = {}
        for word in re.findall(r"\w+", text.lower()):
            counts[word] = counts.get(word, 0.0) + 1.0
        super().__init__(counts)
        self.text = text

    def __repr__(self) -> str:
        return f"QueryText({self.text!r})"


def query_text_of(sparse_embedding: Any) -> Optional[str]:
    """The question's text carried by a sparse embedding (a :class:`QueryText`, an object
    with a ``text`` attribute, or a plain string), else ``None``."""
    if sparse_embedding is None:
        return None
    if isinstance(sparse_embedding, str):
        return sparse_embedding or None
    text = getattr(sparse_embedding, "text", None)
    return text if isinstance(text, str) and text.strip() else None


def _as_matrix(vectors: List[List[float]], as_numpy: Optional[bool]) -> Any:
    if as_numpy is False:
        return vectors
    try:
        import numpy as np  # optional: HippoCamp's embedders return np.ndarray
    except ImportError:
        if as_numpy:
            raise
        return vectors
    return np.asarray(vectors, dtype=np.float32).reshape(len(vectors), -1)


class DentateDenseEmbedder:
    """HippoCamp's ``BaseDenseEmbedder`` over ``POST /api/embed``.

    Texts are embedded by the daemon's text model (all-MiniLM-L6-v2, 384 dimensions,
    unit length), the model its index was built with, so the vectors fit
    :class:`DentateVectorStore`. HippoCamp's query prefix (``Instruct: …\\nQuery: ``) is
    stripped unless ``strip_instruction=False``. ``embed_dense`` returns an
    ``np.ndarray`` [N, dimension] when numpy is installed (``as_numpy=False``: lists).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        strip_instruction: bool = True,
        as_numpy: Optional[bool] = None,
        http: Optional[DentateHttp] = None,
    ) -> None:
        self.http = _http(base_url, api_key, timeout, http)
        self.strip_instruction = strip_instruction
        self.as_numpy = as_numpy
        self._model: Optional[str] = None
        self._dimension: Optional[int] = None

    def _prepare(self, text: str) -> str:
        text = strip_instruction(text) if self.strip_instruction else text
        return text[:EMBED_MAX_CHARS] if text.strip() else " "

    def encode(self, texts: Sequence[str]) -> List[List[float]]:
        """The texts' vectors as lists of floats (synchronous)."""
        vectors: List[List[float]] = []
        texts = [self._prepare(t) for t in texts]
        for start in range(0, len(texts), EMBED_BATCH):
            reply = self.http.post("/api/embed", {"texts": texts[start : start + EMBED_BATCH]})
            self._model, self._dimension = reply.get("model"), reply.get("dimension")
            vectors.extend(reply["vectors"])
        return vectors

    async def embed_dense(self, texts: List[str]) -> Any:
        vectors = await asyncio.to_thread(self.encode, list(texts)) if texts else []
        return _as_matrix(vectors, self.as_numpy)

    async def embed(self, texts: List[str], return_sparse: bool = False) -> EmbeddingResult:
        return EmbeddingResult(dense_embeddings=await self.embed_dense(texts), sparse_embeddings=None)

    def embed_queries(self, queries: Sequence[str]) -> List[List[float]]:
        """Questions → vectors (synchronous; the same model as documents)."""
        return self.encode(queries)

    def embed_documents(self, documents: Sequence[str]) -> List[List[float]]:
        """Passages → vectors (synchronous)."""
        return self.encode(documents)

    def _probe(self) -> None:
        if self._dimension is None or self._model is None:
            self.encode(["dimension"])

    def get_dimension(self) -> int:
        self._probe()
        return int(self._dimension or 0)

    def get_model_name(self) -> str:
        self._probe()
        return str(self._model)

    async def aclose(self) -> None:
        pass


class DentateSparseEmbedder:
    """HippoCamp's ``BaseSparseEmbedder`` whose embeddings carry the question's text
    (:class:`QueryText`), for :class:`DentateVectorStore` to send as ``query``: the
    strategies' "dense + sparse" search becomes Dentate's hybrid search (its BM25 list
    fused with the vector's list). No request is made. Used as the strategies' only
    embedder (``embed`` returns no dense vectors), the store sends the question alone
    and the daemon embeds it itself."""

    def __init__(self, *, strip_instruction: bool = True) -> None:
        self.strip_instruction = strip_instruction

    async def embed_sparse(self, texts: List[str]) -> List[QueryText]:
        return [QueryText(strip_instruction(t) if self.strip_instruction else t) for t in texts]

    async def embed(self, texts: List[str], return_sparse: bool = True) -> EmbeddingResult:
        return EmbeddingResult(dense_embeddings=None, sparse_embeddings=await self.embed_sparse(texts))

    def get_dimension(self) -> Optional[int]:
        return None

    def get_model_name(self) -> str:
        return "dentate-query-text"

    async def aclose(self) -> None:
        pass


class DentateHybridEmbedder:
    """HippoCamp's ``HybridEmbedder`` (dense + sparse) in one object: dense vectors from
    ``/api/embed`` and :class:`QueryText` sparse embeddings, so a strategy's vector store
    query becomes Dentate's hybrid search. Same as HippoCamp's own
    ``HybridEmbedder(DentateDenseEmbedder(), DentateSparseEmbedder())``."""

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        strip_instruction: bool = True,
        as_numpy: Optional[bool] = None,
        http: Optional[DentateHttp] = None,
    ) -> None:
        self.dense_embedder = DentateDenseEmbedder(
            base_url, api_key, timeout=timeout, strip_instruction=strip_instruction, as_numpy=as_numpy, http=http
        )
        self.sparse_embedder = DentateSparseEmbedder(strip_instruction=strip_instruction)

    async def embed(self, texts: List[str], return_sparse: bool = True) -> EmbeddingResult:
        dense = await self.dense_embedder.embed_dense(texts)
        sparse = await self.sparse_embedder.embed_sparse(texts) if return_sparse else None
        return EmbeddingResult(dense_embeddings=dense, sparse_embeddings=sparse)

    async def embed_dense(self, texts: List[str]) -> Any:
        return await self.dense_embedder.embed_dense(texts)

    async def embed_sparse(self, texts: List[str]) -> List[QueryText]:
        return await self.sparse_embedder.embed_sparse(texts)

    def get_dimension(self) -> int:
        return self.dense_embedder.get_dimension()

    def get_model_name(self) -> str:
        return f"hybrid({self.dense_embedder.get_model_name()}+{self.sparse_embedder.get_model_name()})"

    async def aclose(self) -> None:
        pass


# --- filters --------------------------------------------------------------------------


class UnsupportedFilter(ValueError):
    """A HippoCamp filter expression with no Dentate equivalent."""


_FILTER_KEYS = {
    "path_prefixes": ("file_path", "path", "full_path", "file_info.file_path", "metadata.file_path",
                      "metadata.file_info.file_path", "path_prefix", "folder"),
    "extensions": ("file_type", "extension", "file_ext", "ext", "file_info.file_type", "metadata.file_type",
                   "metadata.file_info.file_type"),
    "modalities": ("modality", "file_modality", "file_info.file_modality", "metadata.modality",
                   "metadata.file_info.file_modality"),
}
_KEY_FIELD = {key: field for field, keys in _FILTER_KEYS.items() for key in keys}
_FILTER_EQ = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*==\s*(['\"])(.*)\2\s*$", re.S)
_FILTER_IN = re.compile(r"^\s*([A-Za-z0-9_.]+)\s+in\s+(.+)$", re.S)
_FILTER_AND = re.compile(r"\s+AND\s+")


def translate_filter(expr: Optional[str], on_unsupported: str = "error") -> Optional[Dict[str, List[str]]]:
    """HippoCamp's filter expression → ``/retrieve`` filter fields.

    HippoCamp's stores read ``"key == 'value'"`` and ``"key in ['a', 'b']"`` conditions
    joined by ``AND`` (``QdrantVectorStore._build_filter``). Keys that map:

    - the file's path (``file_path``, ``path``, ``metadata.file_info.file_path``, …) →
      ``path_prefixes`` (a file's whole path selects that file and what is filed under
      it, such as an e-mail's attachments; a folder selects everything below it);
    - its type (``file_type``, ``extension``, …) → ``extensions``;
    - its modality (``modality``, ``file_modality``, …; ``document``, ``text``,
      ``image``, ``audio``, ``video``) → ``modalities``.

    Conditions on the same field are intersected (``AND``). Anything else — ``id in
    [...]``, ``file_id`` (HippoCamp's own file ids), ``file_name``, ``partition``,
    ``OR``, ``!=`` — raises :class:`UnsupportedFilter`, or with
    ``on_unsupported="ignore"`` is logged and left out (what Qdrant's store does with an
    expression it cannot read). Returns ``None`` when the conditions cannot all hold
    (empty intersection): nothing matches.
    """
    fields: Dict[str, List[str]] = {}
    if not expr or not expr.strip():
        return fields
    for part in _FILTER_AND.split(expr.strip()):
        key, values = _parse_condition(part)
        field = _KEY_FIELD.get(key or "")
        if field is None or values is None:
            message = (
                f"filter {part.strip()!r} has no Dentate equivalent (supported: file path, file type and "
                f"modality, as \"key == 'v'\" or \"key in ['a', 'b']\" joined by AND)"
            )
            if on_unsupported == "ignore":
                logger.warning("%s: left out", message)
                continue
            raise UnsupportedFilter(message)
        if field == "extensions":
            values = [v.lower().lstrip(".") for v in values]
        elif field == "modalities":
            values = [v.lower() for v in values]
        else:
            values = [v.strip("/") for v in values]
        if field in fields:
            values = _intersect(field, fields[field], values)
            if not values:
                return None
        fields[field] = list(dict.fromkeys(values))
    return fields


def _intersect(field: str, a: Sequence[str], b: Sequence[str]) -> List[str]:
    """Values of ``field`` that satisfy both lists (each list is an OR); for paths, the
    deeper of two nested prefixes."""
    if field != "path_prefixes":
        return [v for v in a if v in b]

    def under(path: str, prefix: str) -> bool:
        return not prefix or path == prefix or path.startswith(prefix.rstrip("/") + "/")

    out = []
    for x in a:
        for y in b:
            if under(x, y):
                out.append(x)
            elif under(y, x):
                out.append(y)
    return list(dict.fromkeys(out))


def _parse_condition(part: str) -> Tuple[Optional[str], Optional[List[str]]]:
    match = _FILTER_EQ.match(part)
    if match:
        return match.group(1), [match.group(3)]
    match = _FILTER_IN.match(part)
    if match:
        try:
            values = ast.literal_eval(match.group(2).strip())
        except (ValueError, SyntaxError):
            return match.group(1), None
        if isinstance(values, (list, tuple, set)) and values and all(isinstance(v, str) for v in values):
            return match.group(1), list(values)
        return match.group(1), None
    return None, None


# --- stores ---------------------------------------------------------------------------


def _unit_vector(vector: Any, normalize: bool) -> List[float]:
    values = vector.tolist() if hasattr(vector, "tolist") else list(vector)
    values = [float(x) for x in values]
    if normalize:
        norm = math.sqrt(sum(x * x for x in values))
        if not norm or not math.isfinite(norm):
            raise ValueError("the query vector has no direction (zero or not finite)")
        values = [x / norm for x in values]
    return values


def _as_results(reply: Mapping[str, Any]) -> List[Dict[str, Any]]:
    """``/retrieve``'s results in HippoCamp's store shape ``{id, chunk, metadata, score}``;
    ``metadata`` is Dentate's whole metadata (HippoCamp's nested ``file_info``,
    ``segment_info``, ``chunk_meta`` and Dentate's flat fields)."""
    return [
        {"id": str(r.get("id", "")), "chunk": r.get("text", ""), "metadata": r.get("metadata") or {},
         "score": float(r.get("score", 0.0))}
        for r in reply.get("results", [])
    ]


class _Filters:
    def __init__(
        self,
        path_prefixes: Optional[Sequence[str]],
        modalities: Optional[Sequence[str]],
        extensions: Optional[Sequence[str]],
        time_start: Optional[int],
        time_end: Optional[int],
        on_unsupported_filter: str,
        extra: Optional[Mapping[str, Any]],
    ) -> None:
        if on_unsupported_filter not in ("error", "ignore"):
            raise ValueError('on_unsupported_filter must be "error" or "ignore"')
        self.base: Dict[str, Any] = {}
        for name, value in (("path_prefixes", path_prefixes), ("modalities", modalities), ("extensions", extensions)):
            if value:
                self.base[name] = list(value)
        if time_start is not None:
            self.base["time_start"] = int(time_start)
        if time_end is not None:
            self.base["time_end"] = int(time_end)
        self.on_unsupported_filter = on_unsupported_filter
        self.extra = dict(extra or {})

    def fields(self, expr: Optional[str]) -> Optional[Dict[str, Any]]:
        """The request's filter fields: the store's own, narrowed by ``expr``."""
        translated = translate_filter(expr, self.on_unsupported_filter)
        if translated is None:
            return None
        fields = dict(self.base)
        for name, values in translated.items():
            if name in fields:
                values = _intersect(name, fields[name], values)
                if not values:
                    return None
            fields[name] = values
        return fields


class DentateVectorStore:
    """HippoCamp's ``BaseVectorStore`` over ``POST /retrieve`` (read-only).

    ``query(dense_embedding, sparse_embedding, top_k, hybrid_search, filter)`` sends
    ``{"vector": dense_embedding, "top_k": top_k}`` (made unit length unless
    ``normalize=False``; HyDE's averaged vectors are not): a dense-only search by that
    vector. When ``sparse_embedding`` carries the question's text (:class:`QueryText`
    from :class:`DentateSparseEmbedder` / :class:`DentateHybridEmbedder`, or a string),
    the text goes as ``query`` too and Dentate fuses its BM25 list with the vector's
    (``mode``, default the daemon's: hybrid). ``hybrid=False`` never sends the text;
    ``hybrid=None`` (default) sends it whenever it is carried — HippoCamp's Qdrant store
    only fuses with ``hybrid_search=True``, which no strategy passes, so here wiring the
    text-carrying embedder is the switch. With no vector (a sparse-only embedder) the
    question alone is sent and the daemon embeds it.

    ``filter``: see :func:`translate_filter`. The store's own ``path_prefixes``,
    ``modalities``, ``extensions``, ``time_start``/``time_end`` (Unix seconds) hold for
    every query; ``rerank=True`` asks for Dentate's second stage (needs the text);
    ``extra`` adds any other ``/retrieve`` field (``fusion``, ``disable_planner``, …).
    Results: ``[{"id", "chunk", "metadata", "score"}]``, best first, as Qdrant's store
    returns them; ``metadata.file_info.file_path`` is the path relative to the profile
    root. ``top_k`` above 1000 is cut to 1000. The last request body is kept in
    :attr:`last_request`.

    ``upsert``, ``delete`` and ``filter_existing`` raise ``NotImplementedError``:
    ``dentate-index`` builds and updates Dentate's index from the files themselves.
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        hybrid: Optional[bool] = None,
        mode: Optional[str] = None,
        rerank: bool = False,
        normalize: bool = True,
        path_prefixes: Optional[Sequence[str]] = None,
        modalities: Optional[Sequence[str]] = None,
        extensions: Optional[Sequence[str]] = None,
        time_start: Optional[int] = None,
        time_end: Optional[int] = None,
        on_unsupported_filter: str = "error",
        extra: Optional[Mapping[str, Any]] = None,
        http: Optional[DentateHttp] = None,
    ) -> None:
        self.http = _http(base_url, api_key, timeout, http)
        self.hybrid = hybrid
        self.mode = mode
        self.rerank = rerank
        self.normalize = normalize
        self.filters = _Filters(path_prefixes, modalities, extensions, time_start, time_end,
                                on_unsupported_filter, extra)
        self.last_request: Optional[Dict[str, Any]] = None

    def request_body(
        self,
        dense_embedding: Any = None,
        sparse_embedding: Any = None,
        top_k: int = 10,
        hybrid_search: bool = False,
        filter: Optional[str] = None,
    ) -> Optional[Dict[str, Any]]:
        """The ``/retrieve`` body for a :meth:`query` (``None``: the filter matches nothing)."""
        fields = self.filters.fields(filter)
        if fields is None:
            return None
        body: Dict[str, Any] = {"top_k": max(1, min(int(top_k or 10), MAX_TOP_K)), "snippets": False}
        text = query_text_of(sparse_embedding) if self.hybrid is not False else None
        if dense_embedding is not None and len(dense_embedding) > 0:
            body["vector"] = _unit_vector(dense_embedding, self.normalize)
        if text:
            body["query"] = text
            if self.mode:
                body["mode"] = self.mode
            if self.rerank:
                body["rerank"] = True
        if "vector" not in body and "query" not in body:
            raise ValueError("nothing to search by: no dense embedding and no question text")
        body.update(fields)
        body.update(self.filters.extra)
        return body

    async def query(
        self,
        dense_embedding: Any,
        sparse_embedding: Optional[Dict[str, float]] = None,
        top_k: int = 10,
        hybrid_search: bool = False,
        filter: Optional[str] = None,
    ) -> List[Dict[str, Any]]:
        body = self.request_body(dense_embedding, sparse_embedding, top_k, hybrid_search, filter)
        self.last_request = body
        if body is None:
            return []
        return _as_results(await self.http.apost("/retrieve", body))

    async def upsert(self, ids: List[str], dense_embeddings: Any, sparse_embeddings: Any = None,
                     chunks: Any = None, metadatas: Any = None) -> None:
        raise NotImplementedError(_READ_ONLY)

    async def delete(self, ids: Optional[List[str]] = None, filter: Optional[str] = None) -> int:
        raise NotImplementedError(_READ_ONLY)

    async def filter_existing(self, ids: List[str]) -> List[str]:
        raise NotImplementedError(_READ_ONLY)

    async def aclose(self) -> None:
        pass

    async def close(self) -> None:
        pass


_READ_ONLY = (
    "Dentate's index is read-only to HippoCamp: dentate-index builds it from the files themselves "
    "(`dentate-index PROFILE --index INDEX`, `--watch` to follow changes), chunking, embedding and "
    "storing every unit; point HippoCamp's strategies at the daemon that serves it instead of indexing "
    "through the vector store"
)


class DentateFtsStore:
    """hybrid_rag's full-text store (HippoCamp's ``SqliteFtsStore``) over ``/retrieve``
    with ``"mode": "lexical"``: Dentate's BM25 (text, titles, structured fields, file and
    folder names). ``search(query, top_k, file_ids)`` returns ``[{"id", "chunk",
    "metadata", "score"}]`` with the same unit ids as :class:`DentateVectorStore`, so
    hybrid_rag's reciprocal rank fusion merges a unit found by both lists. ``file_ids``
    (HippoCamp's own ids, from its metadata filter) have no Dentate equivalent: given,
    they raise :class:`UnsupportedFilter` (``on_unsupported_filter="ignore"``: left out).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        path_prefixes: Optional[Sequence[str]] = None,
        modalities: Optional[Sequence[str]] = None,
        extensions: Optional[Sequence[str]] = None,
        time_start: Optional[int] = None,
        time_end: Optional[int] = None,
        on_unsupported_filter: str = "error",
        extra: Optional[Mapping[str, Any]] = None,
        http: Optional[DentateHttp] = None,
    ) -> None:
        self.http = _http(base_url, api_key, timeout, http)
        self.filters = _Filters(path_prefixes, modalities, extensions, time_start, time_end,
                                on_unsupported_filter, extra)
        self.last_request: Optional[Dict[str, Any]] = None

    async def setup(self) -> None:
        pass

    async def search(self, query: str, top_k: int = 100, file_ids: Optional[List[str]] = None) -> List[Dict[str, Any]]:
        if file_ids:
            message = "file_ids (HippoCamp's own file ids) have no Dentate equivalent"
            if self.filters.on_unsupported_filter != "ignore":
                raise UnsupportedFilter(message)
            logger.warning("%s: left out", message)
        text = strip_instruction(query or "").strip()
        if not text:
            return []
        body: Dict[str, Any] = {"query": text, "mode": "lexical", "top_k": max(1, min(int(top_k or 100), MAX_TOP_K)),
                                "snippets": False}
        body.update(self.filters.fields(None) or {})
        body.update(self.filters.extra)
        self.last_request = body
        try:
            reply = await self.http.apost("/retrieve", body)
        except DentateError as error:
            # SqliteFtsStore answers [] to a question with no searchable terms; so does this.
            if error.code == "HTTP 400" and "no searchable terms" in error.details:
                return []
            raise
        return _as_results(reply)

    async def aclose(self) -> None:
        pass


# --- reranking ------------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


class DentateReranker:
    """HippoCamp's ``BaseReranker``: ``rerank(query, candidates, top_k, threshold)``
    re-scores the candidates it is given.

    - ``method="passthrough"`` (default): keeps the retrieval order and scores, applies
      ``threshold`` (to the scores) and ``top_k``. With Dentate as the store, ask for
      its own second stage with ``DentateVectorStore(rerank=True)`` instead.
    - ``method="sentence"``: Dentate's best-sentence rerank, computed here for any
      candidate list: each candidate's sentences (at most ``max_sentences``) and the
      question are embedded by ``/api/embed``; a candidate's best sentence cosine,
      min-max scaled over the candidates to [0, 1], is added to its retrieval score
      scaled the same way (as ``/retrieve``'s ``"rerank": true`` does for its own top 10).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        method: str = "passthrough",
        max_sentences: int = 24,
        timeout: float = 60.0,
        http: Optional[DentateHttp] = None,
    ) -> None:
        if method not in ("passthrough", "sentence"):
            raise ValueError('method must be "passthrough" or "sentence"')
        self.method = method
        self.max_sentences = max_sentences
        self.embedder = DentateDenseEmbedder(base_url, api_key, timeout=timeout, as_numpy=False, http=http)

    async def rerank(
        self,
        query: str,
        candidates: List[Dict[str, Any]],
        top_k: Optional[int] = None,
        threshold: Optional[float] = None,
    ) -> List[Dict[str, Any]]:
        ranked = [dict(c) for c in candidates]
        if self.method == "sentence" and ranked and strip_instruction(query).strip():
            scores = await asyncio.to_thread(self._sentence_scores, strip_instruction(query), ranked)
            for candidate, score in zip(ranked, scores):
                candidate["score"] = score
            ranked.sort(key=lambda c: c.get("score", 0.0), reverse=True)
        if threshold is not None:
            ranked = [c for c in ranked if c.get("score", 0.0) >= threshold]
        return ranked[:top_k] if top_k is not None else ranked

    def _sentence_scores(self, query: str, candidates: List[Dict[str, Any]]) -> List[float]:
        sentences: List[List[str]] = []
        for c in candidates:
            parts = [s.strip()[:1000] for s in _SENTENCE.split(c.get("chunk") or c.get("content") or "") if s.strip()]
            sentences.append(parts[: self.max_sentences])
        flat = [s for parts in sentences for s in parts]
        vectors = self.embedder.encode([query] + flat)
        q, rest = vectors[0], iter(vectors[1:])
        best = []
        for parts in sentences:
            sims = [sum(a * b for a, b in zip(q, next(rest))) for _ in parts]
            best.append(max(sims) if sims else 0.0)
        return [a + b for a, b in zip(_scaled(best), _scaled([float(c.get("score", 0.0)) for c in candidates]))]

    def get_model_name(self) -> str:
        return "dentate-passthrough" if self.method == "passthrough" else f"dentate-sentence({self.embedder.get_model_name()})"

    async def aclose(self) -> None:
        pass


def _scaled(values: List[float]) -> List[float]:
    low, high = min(values), max(values)
    return [1.0 if high == low else (v - low) / (high - low) for v in values]


# --- generators -----------------------------------------------------------------------

#: What ``dentate.llm.openai_chat`` returns: chat messages in, the reply's text out.
ChatLLM = Callable[[List[Dict[str, str]]], str]


class ChatGenerator:
    """HippoCamp's ``BaseGenerator`` (``src/rag/generator/base.py``) over any
    ``messages -> str`` callable (``dentate.llm.openai_chat()``, a scripted policy, …):
    ``generate`` returns the reply's text. ``max_tokens`` and ``temperature`` are the
    callable's own (set them when making it)."""

    def __init__(self, llm: ChatLLM, name: str = "chat") -> None:
        self.llm = llm
        self.name = name

    async def generate(
        self,
        query: str,
        context: Optional[List[Dict[str, Any]]] = None,
        *,
        system_prompt: Optional[str] = None,
        max_tokens: int = 512,
        temperature: Optional[float] = None,
    ) -> str:
        messages: List[Dict[str, str]] = []
        if system_prompt:
            messages.append({"role": "system", "content": system_prompt})
        content = query
        if context:
            evidence = self.format_context(context)
            content = f"Evidence:\n{evidence}\n\nQuestion: {query}"
        messages.append({"role": "user", "content": content})
        return await asyncio.to_thread(self.llm, messages)

    async def rewrite_query(self, query: str, *, context: Optional[str] = None) -> str:
        return query

    def format_context(self, chunks: List[Dict[str, Any]], max_chunks: int = 10) -> str:
        lines = []
        for i, chunk in enumerate(chunks[:max_chunks], 1):
            meta = chunk.get("metadata") or {}
            path = (meta.get("file_info") or {}).get("file_path") or meta.get("file_path") or ""
            lines.append(f"[{i}] {path}\n{chunk.get('chunk') or chunk.get('content') or ''}")
        return "\n\n".join(lines)

    def get_model_name(self) -> str:
        return self.name

    async def aclose(self) -> None:
        pass


class _Answer:
    def __init__(self, answer: str) -> None:
        self.answer = answer


class StrategyGenerator:
    """The ``generator`` HippoCamp's strategies take when built directly (hyde_rag's
    hypothetical documents, ircot_rag's next sentence): ``await generate(query,
    context=None, max_tokens=512, temperature=0.7)`` → an object with ``.answer``, as
    ``ProviderFactory``'s wrapper gives them. Wraps a ``messages -> str`` callable or
    any generator with an async ``generate`` (HippoCamp's ``BaseGenerator``,
    :class:`ChatGenerator`)."""

    def __init__(self, generator: Union[ChatLLM, Any]) -> None:
        self.generator = generator if hasattr(generator, "generate") else ChatGenerator(generator)

    async def generate(self, query: str, context: Any = None, max_tokens: int = 512, temperature: float = 0.7) -> _Answer:
        result = await self.generator.generate(query=query, context=context or [], max_tokens=max_tokens,
                                               temperature=temperature)
        return _Answer(getattr(result, "answer", result))

    async def aclose(self) -> None:
        close = getattr(self.generator, "aclose", None)
        if close is not None:
            await close()


# --- ProviderFactory wiring ----------------------------------------------------------


class DentateServices:
    """A ``service_factory`` for HippoCamp's ``ProviderFactory``
    (``src/providers/factory.py``), in place of its ``SharedServiceFactory``::

        services = DentateServices("http://127.0.0.1:8080", llm=openai_chat())
        factory = ProviderFactory(config={"retrieval": {"type": "standard_rag", "params": {...}}},
                                  service_factory=services)
        factory._fts_store = services.create_fts_store()      # hybrid_rag only (see README)
        provider = await factory.create_retrieval_provider()

    ``hybrid=True``: the embedder is :class:`DentateHybridEmbedder` (each vector-store
    query is Dentate's hybrid search); else :class:`DentateDenseEmbedder`.
    ``reranker``: ``"passthrough"``, ``"sentence"`` or ``None`` (no reranker).
    ``llm``: a ``messages -> str`` callable or a HippoCamp generator, for the strategies
    that generate (hyde_rag, ircot_rag, self_rag, …). ``store_options`` go to
    :class:`DentateVectorStore` (filters, ``mode``, ``rerank``, …).
    """

    def __init__(
        self,
        base_url: Optional[str] = None,
        api_key: Optional[str] = None,
        *,
        timeout: float = 60.0,
        hybrid: bool = False,
        reranker: Optional[str] = "passthrough",
        llm: Any = None,
        strip_instruction: bool = True,
        store_options: Optional[Mapping[str, Any]] = None,
    ) -> None:
        self.http = DentateHttp(base_url, api_key, timeout)
        self.hybrid = hybrid
        self.reranker = reranker
        self.llm = llm
        self.strip_instruction = strip_instruction
        self.store_options = dict(store_options or {})

    def create_embedder(self) -> Any:
        cls = DentateHybridEmbedder if self.hybrid else DentateDenseEmbedder
        return cls(strip_instruction=self.strip_instruction, http=self.http)

    def create_vectordb(self, collection_suffix: Optional[str] = None) -> DentateVectorStore:
        return DentateVectorStore(http=self.http, **self.store_options)

    def create_reranker(self) -> Optional[DentateReranker]:
        return DentateReranker(method=self.reranker, http=self.http) if self.reranker else None

    def create_llm(self) -> Any:
        if self.llm is None:
            raise ValueError("Dentate has no language model: pass llm= (a messages -> str callable, "
                             "e.g. dentate.llm.openai_chat(), or a HippoCamp generator)")
        return self.llm if hasattr(self.llm, "generate") else ChatGenerator(self.llm)

    def create_fts_store(self) -> DentateFtsStore:
        return DentateFtsStore(http=self.http)

    def get_embedding_dimension(self) -> int:
        return DentateDenseEmbedder(http=self.http).get_dimension()


# --- loading HippoCamp's code ---------------------------------------------------------

#: The snapshot folder that ``/work/shared/hcpeer/run.sh`` and the tests look for.
MIRROR_DIR = Path(".mirror") / "Savannah-yz+HippoCamp" / "repo"

#: HippoCamp's files the strategies need (exported from a snapshot into a temp folder).
HIPPOCAMP_FILES = (
    "benchmark/src/providers/base.py",
    "benchmark/src/providers/utils.py",
    "benchmark/src/providers/retrieval/standard_rag.py",
    "benchmark/src/providers/retrieval/hybrid_rag.py",
    "benchmark/src/providers/retrieval/hyde_rag.py",
    "benchmark/src/providers/retrieval/ircot_rag.py",
    "benchmark/src/providers/retrieval/vector_search.py",
    "benchmark/src/providers/retrieval/self_rag.py",
    "benchmark/src/providers/retrieval/graded_rag.py",
    "benchmark/src/providers/retrieval/corrective_rag.py",
    "benchmark/src/providers/retrieval/adaptive_rag.py",
    "benchmark/src/providers/retrieval/decomposition_rag.py",
    "benchmark/src/rag/fusion.py",
    "benchmark/src/rag/metadata/extractor.py",
    "benchmark/src/rag/metadata/file_filter.py",
    "benchmark/src/rag/embedding/base.py",
    "benchmark/src/rag/embedding/hybrid.py",
    "benchmark/src/rag/vector_store/base.py",
    "benchmark/src/rag/rerank/base.py",
    "benchmark/src/rag/generator/base.py",
)

#: Strategy → (module under ``src.providers.retrieval``, class).
STRATEGIES = {
    "standard_rag": ("standard_rag", "StandardRAGProvider"),
    "hybrid_rag": ("hybrid_rag", "HybridRAGProvider"),
    "hyde_rag": ("hyde_rag", "HyDERAGProvider"),
    "ircot_rag": ("ircot_rag", "IRCoTRAGProvider"),
    "vector_search": ("vector_search", "VectorSearchProvider"),
    "self_rag": ("self_rag", "SelfRAGProvider"),
    "graded_rag": ("graded_rag", "GradedRAGProvider"),
    "corrective_rag": ("corrective_rag", "CorrectiveRAGProvider"),
    "adaptive_rag": ("adaptive_rag", "AdaptiveRAGProvider"),
    "decomposition_rag": ("decomposition_rag", "DecompositionRAGProvider"),
}

_PACKAGES = ("src", "src.providers", "src.providers.retrieval", "src.rag", "src.rag.metadata", "src.rag.embedding",
             "src.rag.vector_store", "src.rag.rerank", "src.rag.generator")


def find_hippocamp(start: Union[str, Path, None] = None) -> Optional[Path]:
    """A HippoCamp snapshot or checkout: ``$HCPEER_MIRROR`` when set, else the first
    ``.mirror/Savannah-yz+HippoCamp/repo`` beside ``start`` (default: this file) or
    one of its parents. ``None`` when there is none."""
    env = os.environ.get("HCPEER_MIRROR")
    if env:
        return Path(env) if Path(env).exists() else None
    here = Path(start or __file__).resolve()
    for folder in [here, *here.parents]:
        candidate = folder / MIRROR_DIR
        if candidate.is_dir():
            return candidate
    return None


def export_hippocamp(source: Union[str, Path], dest: Union[str, Path], rev: str = "HEAD",
                     files: Iterable[str] = HIPPOCAMP_FILES) -> Path:
    """HippoCamp's ``benchmark`` folder, ready for :func:`load_hippocamp`.

    ``source`` is a checkout (holding ``benchmark/src``: used in place) or a bare git
    snapshot, whose ``files`` at ``rev`` are written under ``dest`` (``git show``; the
    commit goes to ``dest/COMMIT``). Returns the ``benchmark`` folder."""
    source = Path(source)
    if (source / "benchmark" / "src").is_dir():
        return source / "benchmark"
    dest = Path(dest)

    def git(*args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", str(source), *args], check=True, capture_output=True).stdout

    try:
        commit = git("rev-parse", rev).decode().strip()
    except (subprocess.CalledProcessError, FileNotFoundError) as error:
        raise FileNotFoundError(f"{source} is neither a HippoCamp checkout nor a git snapshot of one") from error
    for path in files:
        try:
            blob = git("show", f"{commit}:{path}")
        except subprocess.CalledProcessError:
            logger.warning("%s is not in %s at %s: skipped", path, source, commit[:12])
            continue
        target = dest / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(blob)
    (dest / "COMMIT").write_text(commit + "\n")
    return dest / "benchmark"


def load_hippocamp(benchmark: Union[str, Path], strategies: Iterable[str] = ("standard_rag", "hybrid_rag",
                                                                              "hyde_rag", "ircot_rag")) -> SimpleNamespace:
    """Imports HippoCamp's strategy modules from ``benchmark`` (a checkout's or an
    export's ``benchmark`` folder) and returns a namespace: the strategy classes
    (``StandardRAGProvider``, …), ``ProviderConfig``, ``ChunkResult``,
    ``RetrievalResult``, ``rrf_fuse``, ``format_query_for_embedding``, the interfaces
    (``BaseDenseEmbedder``, ``BaseSparseEmbedder``, ``EmbeddingResult``,
    ``HybridEmbedder``, ``BaseVectorStore``, ``BaseReranker``, ``BaseGenerator``),
    ``missing`` (name → import error, e.g. without numpy) and ``root``.

    The modules run unchanged; their packages (``src``, ``src.providers``, …) are
    registered without running their ``__init__.py``, which only re-export every
    provider, embedder and store — and would import PyYAML, qdrant-client, google-genai,
    torch, … that the strategies themselves do not need. :func:`unload_hippocamp`
    removes them from ``sys.modules``."""
    root = Path(benchmark)
    existing = sys.modules.get("src")
    if existing is not None and getattr(existing, "__dentate_hippocamp__", None) != str(root):
        raise RuntimeError(f"another 'src' package is already imported ({existing!r}): unload it first")
    for name in _PACKAGES:
        if name not in sys.modules:
            spec = importlib.machinery.ModuleSpec(name, None, is_package=True)
            spec.submodule_search_locations = [str(root.joinpath(*name.split(".")))]
            module = importlib.util.module_from_spec(spec)
            module.__dentate_hippocamp__ = str(root)  # type: ignore[attr-defined]
            sys.modules[name] = module
    out: Dict[str, Any] = {"root": root, "missing": {}}

    def take(module_name: str, *names: str) -> None:
        try:
            module = importlib.import_module(module_name)
        except ImportError as error:
            for name in names:
                out["missing"][name] = f"{module_name}: {error}"
            return
        for name in names:
            out[name] = getattr(module, name)

    take("src.providers.base", "ProviderConfig", "ChunkResult", "RetrievalResult", "RetrievalError")
    take("src.providers.utils", "format_query_for_embedding")
    take("src.rag.fusion", "rrf_fuse")
    take("src.rag.embedding.base", "BaseDenseEmbedder", "BaseSparseEmbedder", "EmbeddingResult")
    take("src.rag.embedding.hybrid", "HybridEmbedder")
    take("src.rag.vector_store.base", "BaseVectorStore")
    take("src.rag.rerank.base", "BaseReranker")
    take("src.rag.generator.base", "BaseGenerator")
    for strategy in strategies:
        module, cls = STRATEGIES[strategy]
        take(f"src.providers.retrieval.{module}", cls)
    commit = root.parent / "COMMIT"
    out["commit"] = commit.read_text().strip() if commit.is_file() else None
    return SimpleNamespace(**out)


def unload_hippocamp() -> None:
    """Removes what :func:`load_hippocamp` imported from ``sys.modules``."""
    if getattr(sys.modules.get("src"), "__dentate_hippocamp__", None) is None:
        return
    for name in [n for n in sys.modules if n == "src" or n.startswith("src.")]:
        del sys.modules[name]


__all__ = [
    "ChatGenerator",
    "DentateDenseEmbedder",
    "DentateFtsStore",
    "DentateHttp",
    "DentateHybridEmbedder",
    "DentateReranker",
    "DentateServices",
    "DentateSparseEmbedder",
    "DentateVectorStore",
    "EmbeddingResult",
    "QueryText",
    "StrategyGenerator",
    "UnsupportedFilter",
    "export_hippocamp",
    "find_hippocamp",
    "load_hippocamp",
    "query_text_of",
    "strip_instruction",
    "translate_filter",
    "unload_hippocamp",
]
