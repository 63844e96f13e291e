"""Typed clients: ``Client`` (gRPC, ``dentate.v1.Dentate``) and ``HttpClient`` (the
HippoCamp-compatible ``POST /retrieve``, standard library only)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import grpc
from google.protobuf import json_format

from ._proto import dentate_pb2 as pb
from ._proto import dentate_pb2_grpc as pb_grpc
from .types import (
    FileHit,
    FileInfo,
    FileList,
    FileText,
    Locator,
    RetrievedUnit,
    RetrieveResult,
    SearchResult,
    Stats,
    TextSegment,
    UnitHit,
)

_MODES = {
    None: pb.SEARCH_MODE_UNSPECIFIED,
    "": pb.SEARCH_MODE_UNSPECIFIED,
    "lexical": pb.SEARCH_MODE_LEXICAL,
    "hybrid": pb.SEARCH_MODE_HYBRID,
    "dense": pb.SEARCH_MODE_DENSE,
}
_FUSIONS = {None: pb.FUSION_UNSPECIFIED, "": pb.FUSION_UNSPECIFIED, "rrf": pb.FUSION_RRF, "weighted": pb.FUSION_WEIGHTED, "dbsf": pb.FUSION_DBSF}


class DentateError(Exception):
    """A failed call. ``code`` is the gRPC status name (``"NOT_FOUND"``,
    ``"INVALID_ARGUMENT"``, …) or ``"HTTP <status>"``; ``details`` the server's message."""

    def __init__(self, code: str, details: str) -> None:
        super().__init__(f"{code}: {details}")
        self.code = code
        self.details = details


# --- protobuf -> dataclasses -------------------------------------------------------


def _locator(msg: "pb.Locator") -> Locator:
    # Repeated fields (``lines``) come out as plain lists.
    return {f.name: value if isinstance(value, (int, str)) else list(value) for f, value in msg.ListFields()}


def _file_info(msg: "pb.FileInfo") -> FileInfo:
    return FileInfo(
        path=msg.path,
        name=msg.name,
        extension=msg.extension,
        file_type=msg.file_type,
        modality=msg.modality,
        size=msg.size,
        modified=msg.modified,
        created=msg.created,
        title=msg.title,
        author=msg.author,
        unit_count=msg.unit_count,
        status=msg.status,
        error=msg.error,
        parent_path=msg.parent_path,
        file_id=msg.file_id,
        extra=dict(msg.extra),
    )


def _unit(msg: "pb.UnitHit") -> UnitHit:
    return UnitHit(
        unit_id=msg.unit_id,
        path=msg.file_path,
        kind=msg.kind,
        locator=_locator(msg.locator),
        score=msg.score,
        snippet=msg.snippet,
        text=msg.text,
        title=msg.title,
        content_time=msg.content_time,
        fields=dict(msg.fields),
        explain=dict(msg.explain.signals),
    )


class Client:
    """A typed client of the Dentate gRPC API.

    >>> with Client("127.0.0.1:50051") as dentate:
    ...     for hit in dentate.search("balance due on the joinery invoice", top_k=3):
    ...         print(hit.path, [u.locator for u in hit.units])
    """

    def __init__(self, grpc_addr: str = "127.0.0.1:50051", timeout: Optional[float] = 30.0) -> None:
        """``grpc_addr`` is ``host:port`` (plaintext); ``timeout`` the per-call deadline in seconds."""
        self.address = grpc_addr
        self.timeout = timeout
        self._channel = grpc.insecure_channel(grpc_addr)
        self._stub = pb_grpc.DentateStub(self._channel)

    def close(self) -> None:
        """Closes the channel."""
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: str, request: Any) -> Any:
        try:
            return getattr(self._stub, method)(request, timeout=self.timeout)
        except grpc.RpcError as error:
            status = error.code() if isinstance(error, grpc.Call) else None
            details = error.details() if isinstance(error, grpc.Call) else str(error)
            raise DentateError(status.name if status else "UNKNOWN", details or "") from error

    @staticmethod
    def _request(
        query: str,
        top_k: int,
        mode: Optional[str],
        path_prefixes: Sequence[str],
        modalities: Sequence[str],
        extensions: Sequence[str],
        time_range: Optional[Tuple[int, int]],
        explain: bool,
        units_per_file: int,
        fusion: Optional[str],
        rrf_k: Optional[float],
        lexical_weight: Optional[float],
        other: Mapping[str, Any],
    ) -> "pb.SearchRequest":
        if mode not in _MODES:
            raise ValueError(f"unknown mode {mode!r} (expected lexical, hybrid or dense)")
        if fusion not in _FUSIONS:
            raise ValueError(f"unknown fusion {fusion!r} (expected rrf, weighted or dbsf)")
        request = pb.SearchRequest(
            query=query,
            top_k=top_k,
            units_per_file=units_per_file,
            path_prefixes=list(path_prefixes),
            modalities=list(modalities),
            extensions=list(extensions),
            mode=_MODES[mode],
            explain=explain,
            fusion=_FUSIONS[fusion],
        )
        if time_range is not None:
            request.content_time.start, request.content_time.end = time_range
        if rrf_k is not None:
            request.rrf_k = rrf_k
        if lexical_weight is not None:
            request.lexical_weight = lexical_weight
        for name, value in other.items():
            if name not in pb.SearchRequest.DESCRIPTOR.fields_by_name:
                raise TypeError(f"SearchRequest has no field {name!r}")
            if isinstance(value, Mapping):
                # A message field, e.g. activity={"kinds": ["modified"], "when": "last week"}.
                json_format.ParseDict(value, getattr(request, name))
            elif isinstance(value, (list, tuple)):
                getattr(request, name).extend(value)
            else:
                setattr(request, name, value)
        return request

    def search(
        self,
        query: str,
        top_k: int = 10,
        mode: Optional[str] = None,
        path_prefixes: Sequence[str] = (),
        modalities: Sequence[str] = (),
        extensions: Sequence[str] = (),
        time_range: Optional[Tuple[int, int]] = None,
        explain: bool = False,
        units_per_file: int = 0,
        fusion: Optional[str] = None,
        rrf_k: Optional[float] = None,
        lexical_weight: Optional[float] = None,
        autocut: Union[int, bool] = 0,
        min_score: Optional[float] = None,
        **other: Any,
    ) -> SearchResult:
        """Ranked files, each with its best units.

        ``mode``: ``"lexical"``, ``"hybrid"`` or ``"dense"`` (default: the server's).
        Filters: ``path_prefixes`` (folders or files relative to the profile root),
        ``modalities`` (document, text, image, audio, video, binary), ``extensions``
        (without dot), ``time_range`` = (start, end) Unix seconds on content time, 0 = open.
        ``units_per_file`` 0 means the server default (3). Confident cut-off (off by
        default): ``autocut=True`` (or N) drops the files after the first (N-th) large
        break in the file scores, so fewer than ``top_k`` come back when the evidence is
        clear; ``min_score`` drops results scoring below it. Any other ``SearchRequest``
        field of the .proto can be passed by name in ``other``.
        """
        request = self._request(
            query, top_k, mode, path_prefixes, modalities, extensions, time_range,
            explain, units_per_file, fusion, rrf_k, lexical_weight,
            _with_cutoff(other, autocut, min_score),
        )
        reply = self._call("Search", request)
        return SearchResult(
            files=[FileHit(_file_info(f.file), f.score, [_unit(u) for u in f.units]) for f in reply.files],
            total_units=reply.total_units,
            took_ms=reply.took_ms,
            notes=list(reply.explain.notes),
        )

    def retrieve(
        self,
        query: str,
        top_k: int = 10,
        mode: Optional[str] = None,
        path_prefixes: Sequence[str] = (),
        modalities: Sequence[str] = (),
        extensions: Sequence[str] = (),
        time_range: Optional[Tuple[int, int]] = None,
        explain: bool = False,
        fusion: Optional[str] = None,
        rrf_k: Optional[float] = None,
        lexical_weight: Optional[float] = None,
        autocut: Union[int, bool] = 0,
        min_score: Optional[float] = None,
        **other: Any,
    ) -> RetrieveResult:
        """A flat ranked list of units with their full text (arguments as in ``search``;
        ``autocut`` keeps the units of the files before the break, ``min_score`` applies
        to unit scores). ``rerank=True`` (in ``other``) re-scores the first 10 units by
        their best sentence; ``reranked`` on the result says whether it ran."""
        request = self._request(
            query, top_k, mode, path_prefixes, modalities, extensions, time_range,
            explain, 0, fusion, rrf_k, lexical_weight, _with_cutoff(other, autocut, min_score),
        )
        reply = self._call("Retrieve", request)
        return RetrieveResult(
            units=[_unit(u) for u in reply.units],
            took_ms=reply.took_ms,
            notes=list(reply.explain.notes),
            reranked=reply.reranked,
        )

    def timeline(self, **fields: Any) -> Dict[str, Any]:
        """The Timeline RPC: units and activity events of a range by day, folder and file.
        ``fields`` are TimelineRequest's (``when="last week"``, ``range={"start": …,
        "end": …}``, ``query``, ``activity``, ``activity_kinds``, …); the reply as a dict
        with the proto's field names."""
        return self._as_dict(self._call("Timeline", json_format.ParseDict(fields, pb.TimelineRequest())))

    def routine(self, **fields: Any) -> Dict[str, Any]:
        """The Routine RPC: the profile's habits — weekday × hour grids of content,
        calendar and activity, recurring series, people per week, folders and naming
        habits, each figure with evidence. ``fields`` are RoutineRequest's (``when``,
        ``folder``, ``sources``, …); the reply as a dict with the proto's field names."""
        return self._as_dict(self._call("Routine", json_format.ParseDict(fields, pb.RoutineRequest())))

    @staticmethod
    def _as_dict(message: Any) -> Dict[str, Any]:
        return json_format.MessageToDict(
            message, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )

    def list_files(self, pattern: str = "", limit: int = 0, include_failed: bool = False) -> FileList:
        """Files whose relative path matches a glob (``"**/*.pdf"``, ``"Mail/**"``; empty = all).
        ``limit`` 0 means the server default (1000)."""
        reply = self._call(
            "ListFiles", pb.ListFilesRequest(pattern=pattern, limit=limit, include_failed=include_failed)
        )
        return FileList([_file_info(f) for f in reply.files], reply.truncated)

    def get_metadata(self, path: str) -> FileInfo:
        """Metadata of one file (raises ``DentateError`` with code ``NOT_FOUND`` if unknown)."""
        return _file_info(self._call("GetMetadata", pb.FileRequest(path=path)))

    def get_text(self, path: str) -> FileText:
        """All units of one file, in order, with locators (like HippoCamp's ``return_txt``)."""
        reply = self._call("GetText", pb.FileRequest(path=path))
        segments = [
            TextSegment(
                unit_id=s.unit_id,
                kind=s.kind,
                locator=_locator(s.locator),
                text=s.text,
                title=s.title,
                content_time=s.content_time,
                fields=dict(s.fields),
            )
            for s in reply.segments
        ]
        return FileText(_file_info(reply.file), segments)

    def stats(self) -> Stats:
        """Index statistics."""
        r = self._call("Stats", pb.StatsRequest())
        return Stats(
            files_indexed=r.files_indexed,
            files_failed=r.files_failed,
            files_skipped=r.files_skipped,
            units=r.units,
            units_by_kind=dict(r.units_by_kind),
            files_by_modality=dict(r.files_by_modality),
            profile_root=r.profile_root,
            index_dir=r.index_dir,
            last_commit=r.last_commit,
            embedding_coverage=r.embedding_coverage,
            dense_status=r.dense_status,
        )


def _with_cutoff(other: Mapping[str, Any], autocut: Union[int, bool], min_score: Optional[float]) -> Dict[str, Any]:
    """``other`` plus the cut-off fields (``autocut`` True = 1 break, False = off)."""
    fields = dict(other)
    jumps = int(autocut)
    if jumps < 0:
        raise ValueError(f"autocut must be a number of breaks >= 0, not {autocut!r}")
    if jumps:
        fields["autocut"] = jumps
    if min_score is not None:
        fields["min_score"] = float(min_score)
    return fields


class HttpClient:
    """A minimal client of the HippoCamp-compatible HTTP gateway (standard library only).

    Failures raise :class:`DentateError`: code ``"HTTP <status>"`` with the daemon's
    ``error`` message, or ``"UNAVAILABLE"`` when no daemon answers."""

    def __init__(
        self, base_url: str = "http://127.0.0.1:8080", timeout: float = 30.0, api_key: Optional[str] = None
    ) -> None:
        """``base_url`` like ``http://127.0.0.1:8080`` (a bare ``host:port`` gets ``http://``);
        ``api_key`` is sent as ``Authorization: Bearer`` (a daemon with ``--keys``)."""
        if "://" not in base_url:
            base_url = "http://" + base_url
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout
        self.api_key = api_key

    def post(self, path: str, body: Mapping[str, Any]) -> Dict[str, Any]:
        """``POST path`` with a JSON body; the reply parsed."""
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(
            self.base_url + path, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as reply:
                return json.loads(reply.read().decode("utf-8"))
        except urllib.error.HTTPError as error:
            raw = error.read().decode("utf-8", "replace")
            try:
                message = json.loads(raw).get("error", raw)
            except (ValueError, AttributeError):
                message = raw
            raise DentateError(f"HTTP {error.code}", f"POST {path}: {message}") from error
        except urllib.error.URLError as error:
            raise DentateError("UNAVAILABLE", f"POST {self.base_url}{path}: {error.reason}") from error

    def retrieve(self, query: str, top_k: int = 10, **options: Any) -> List[RetrievedUnit]:
        """``POST /retrieve`` with ``{"query", "top_k", **options}`` (options: ``mode``,
        ``path_prefixes``, ``modalities``, ``extensions``, ``time_start``, ``time_end``,
        ``autocut`` (True or a number of breaks), ``min_score``, ``snippets`` (False: no
        highlighted ``snippet`` in the metadata, for callers that read ``text``), …). Returns the units,
        best first."""
        reply = self.post("/retrieve", {"query": query, "top_k": top_k, **options})
        return [
            RetrievedUnit(id=r.get("id", ""), text=r.get("text", ""), score=r.get("score", 0.0),
                          metadata=r.get("metadata", {}))
            for r in reply.get("results", [])
        ]


    def timeline(self, **body: Any) -> Dict[str, Any]:
        """``POST /api/timeline`` (``when``, ``start``, ``end``, ``query``, ``activity``, …)."""
        return self.post("/api/timeline", body)

    def routine(self, **body: Any) -> Dict[str, Any]:
        """``POST /api/routine`` (``when``, ``start``, ``end``, ``folder``, ``sources``, …)."""
        return self.post("/api/routine", body)


__all__ = ["Client", "HttpClient", "DentateError"]
