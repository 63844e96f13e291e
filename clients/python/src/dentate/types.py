"""Plain dataclasses returned by the clients (no protobuf objects leak out)."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterator, List, Mapping

#: A unit's position in its file, e.g. ``{"page": 2}`` or
#: ``{"sheet": "Daily takings", "row_start": 13, "row_end": 13}``. Only the fields that
#: are set appear; keys are the proto ``Locator`` field names.
Locator = Dict[str, Any]


def format_locator(locator: Mapping[str, Any]) -> str:
    """A short human-readable form of a locator: ``"page 5 (printed 2)"``, ``"slide 3"``,
    ``"sheet Daily takings, rows 13-13"``, ``"lines 4-20"``, ``"lines 26, 51, 76"`` (a log's
    records of one kind), ``"event abc@x"``; ``""`` when empty."""
    parts: List[str] = []
    if "page" in locator:
        label = locator.get("page_label")
        page = f"page {locator['page']}"
        parts.append(f"{page} (printed {label})" if label and str(label) != str(locator["page"]) else page)
    if "slide" in locator:
        parts.append(f"slide {locator['slide']}")
    if "sheet" in locator:
        parts.append(f"sheet {locator['sheet']}")
    if "row_start" in locator:
        parts.append(f"rows {locator['row_start']}-{locator.get('row_end', locator['row_start'])}")
    if locator.get("lines"):
        lines = [str(n) for n in locator["lines"]]
        shown = ", ".join(lines[:5]) + (f" (+{len(lines) - 5} more)" if len(lines) > 5 else "")
        parts.append(f"lines {shown}")
    elif "line_start" in locator:
        parts.append(f"lines {locator['line_start']}-{locator.get('line_end', locator['line_start'])}")
    if "t_start_ms" in locator:
        start = locator["t_start_ms"] / 1000
        end = locator.get("t_end_ms", locator["t_start_ms"]) / 1000
        parts.append(f"{start:.1f}s-{end:.1f}s")
    if "part" in locator:
        parts.append(f"part {locator['part']}")
    if "event_uid" in locator:
        parts.append(f"event {locator['event_uid']}")
    return ", ".join(parts)


_TAG = re.compile(r"</?b>")


def plain_snippet(snippet: str) -> str:
    """A snippet without its ``<b></b>`` highlight tags and HTML entities."""
    return html.unescape(_TAG.sub("", snippet))


@dataclass(frozen=True)
class FileInfo:
    """Metadata of one indexed file. ``path`` is relative to the profile root."""

    path: str
    name: str = ""
    extension: str = ""
    file_type: str = ""
    modality: str = ""
    size: int = 0
    modified: str = ""
    created: str = ""
    title: str = ""
    author: str = ""
    unit_count: int = 0
    status: str = ""
    error: str = ""
    parent_path: str = ""
    file_id: str = ""
    extra: Dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class UnitHit:
    """One matching unit (page, slide, row group, e-mail, event, text span, …)."""

    unit_id: str
    path: str
    kind: str
    locator: Locator
    score: float
    snippet: str = ""
    text: str = ""
    title: str = ""
    content_time: str = ""
    fields: Dict[str, str] = field(default_factory=dict)
    explain: Dict[str, float] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """``path`` plus the formatted locator, e.g. ``"a.pdf, page 2"``."""
        loc = format_locator(self.locator)
        return f"{self.path}, {loc}" if loc else self.path


@dataclass(frozen=True)
class FileHit:
    """A ranked file with its best units."""

    file: FileInfo
    score: float
    units: List[UnitHit] = field(default_factory=list)

    @property
    def path(self) -> str:
        """The file's path relative to the profile root."""
        return self.file.path


@dataclass(frozen=True)
class SearchResult:
    """The reply of ``Client.search``; iterating it yields the ``FileHit`` s."""

    files: List[FileHit]
    total_units: int = 0
    took_ms: float = 0.0
    notes: List[str] = field(default_factory=list)

    def __iter__(self) -> Iterator[FileHit]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def paths(self) -> List[str]:
        """Paths of the ranked files, best first."""
        return [f.path for f in self.files]


@dataclass(frozen=True)
class RetrieveResult:
    """The reply of ``Client.retrieve``: a flat ranked unit list."""

    units: List[UnitHit]
    took_ms: float = 0.0
    notes: List[str] = field(default_factory=list)
    #: Whether ``rerank=True`` re-scored the units (False without the server's text model).
    reranked: bool = False

    def __iter__(self) -> Iterator[UnitHit]:
        return iter(self.units)

    def __len__(self) -> int:
        return len(self.units)


@dataclass(frozen=True)
class TextSegment:
    """One unit of a file as returned by ``Client.get_text``."""

    unit_id: str
    kind: str
    locator: Locator
    text: str
    title: str = ""
    content_time: str = ""
    fields: Dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class FileText:
    """All units of a file, in order."""

    file: FileInfo
    segments: List[TextSegment]

    @property
    def text(self) -> str:
        """The segments' texts joined by blank lines."""
        return "\n\n".join(s.text for s in self.segments)


@dataclass(frozen=True)
class FileList:
    """The reply of ``Client.list_files``; ``truncated`` says the limit cut it short."""

    files: List[FileInfo]
    truncated: bool = False

    def __iter__(self) -> Iterator[FileInfo]:
        return iter(self.files)

    def __len__(self) -> int:
        return len(self.files)

    @property
    def paths(self) -> List[str]:
        """The files' paths."""
        return [f.path for f in self.files]


@dataclass(frozen=True)
class Stats:
    """Index statistics."""

    files_indexed: int
    files_failed: int
    files_skipped: int
    units: int
    units_by_kind: Dict[str, int]
    files_by_modality: Dict[str, int]
    profile_root: str
    index_dir: str
    last_commit: str
    embedding_coverage: float
    #: Empty when dense retrieval works, else why not.
    dense_status: str


@dataclass(frozen=True)
class RetrievedUnit:
    """One result of ``HttpClient.retrieve`` (HippoCamp's reply shape)."""

    id: str
    text: str
    score: float
    metadata: Dict[str, Any]

    @property
    def path(self) -> str:
        """``metadata["file_path"]``."""
        return str(self.metadata.get("file_path", ""))


__all__ = [
    "Locator",
    "format_locator",
    "plain_snippet",
    "FileInfo",
    "UnitHit",
    "FileHit",
    "SearchResult",
    "RetrieveResult",
    "TextSegment",
    "FileText",
    "FileList",
    "Stats",
    "RetrievedUnit",
]
