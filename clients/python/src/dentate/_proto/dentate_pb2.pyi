from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SearchMode(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SEARCH_MODE_UNSPECIFIED: _ClassVar[SearchMode]
    SEARCH_MODE_LEXICAL: _ClassVar[SearchMode]
    SEARCH_MODE_HYBRID: _ClassVar[SearchMode]
    SEARCH_MODE_DENSE: _ClassVar[SearchMode]

class Fusion(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FUSION_UNSPECIFIED: _ClassVar[Fusion]
    FUSION_RRF: _ClassVar[Fusion]
    FUSION_WEIGHTED: _ClassVar[Fusion]
    FUSION_DBSF: _ClassVar[Fusion]
SEARCH_MODE_UNSPECIFIED: SearchMode
SEARCH_MODE_LEXICAL: SearchMode
SEARCH_MODE_HYBRID: SearchMode
SEARCH_MODE_DENSE: SearchMode
FUSION_UNSPECIFIED: Fusion
FUSION_RRF: Fusion
FUSION_WEIGHTED: Fusion
FUSION_DBSF: Fusion

class TimeRange(_message.Message):
    __slots__ = ("start", "end")
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    start: int
    end: int
    def __init__(self, start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...

class SearchRequest(_message.Message):
    __slots__ = ("query", "top_k", "units_per_file", "path_prefixes", "modalities", "extensions", "content_time", "mode", "explain", "fusion", "rrf_k", "lexical_weight", "disable_planner", "reference_time", "context", "autocut", "min_score", "activity", "rerank")
    QUERY_FIELD_NUMBER: _ClassVar[int]
    TOP_K_FIELD_NUMBER: _ClassVar[int]
    UNITS_PER_FILE_FIELD_NUMBER: _ClassVar[int]
    PATH_PREFIXES_FIELD_NUMBER: _ClassVar[int]
    MODALITIES_FIELD_NUMBER: _ClassVar[int]
    EXTENSIONS_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TIME_FIELD_NUMBER: _ClassVar[int]
    MODE_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    FUSION_FIELD_NUMBER: _ClassVar[int]
    RRF_K_FIELD_NUMBER: _ClassVar[int]
    LEXICAL_WEIGHT_FIELD_NUMBER: _ClassVar[int]
    DISABLE_PLANNER_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_TIME_FIELD_NUMBER: _ClassVar[int]
    CONTEXT_FIELD_NUMBER: _ClassVar[int]
    AUTOCUT_FIELD_NUMBER: _ClassVar[int]
    MIN_SCORE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    RERANK_FIELD_NUMBER: _ClassVar[int]
    query: str
    top_k: int
    units_per_file: int
    path_prefixes: _containers.RepeatedScalarFieldContainer[str]
    modalities: _containers.RepeatedScalarFieldContainer[str]
    extensions: _containers.RepeatedScalarFieldContainer[str]
    content_time: TimeRange
    mode: SearchMode
    explain: bool
    fusion: Fusion
    rrf_k: float
    lexical_weight: float
    disable_planner: _containers.RepeatedScalarFieldContainer[str]
    reference_time: int
    context: int
    autocut: int
    min_score: float
    activity: ActivityFilter
    rerank: bool
    def __init__(self, query: _Optional[str] = ..., top_k: _Optional[int] = ..., units_per_file: _Optional[int] = ..., path_prefixes: _Optional[_Iterable[str]] = ..., modalities: _Optional[_Iterable[str]] = ..., extensions: _Optional[_Iterable[str]] = ..., content_time: _Optional[_Union[TimeRange, _Mapping]] = ..., mode: _Optional[_Union[SearchMode, str]] = ..., explain: bool = ..., fusion: _Optional[_Union[Fusion, str]] = ..., rrf_k: _Optional[float] = ..., lexical_weight: _Optional[float] = ..., disable_planner: _Optional[_Iterable[str]] = ..., reference_time: _Optional[int] = ..., context: _Optional[int] = ..., autocut: _Optional[int] = ..., min_score: _Optional[float] = ..., activity: _Optional[_Union[ActivityFilter, _Mapping]] = ..., rerank: bool = ...) -> None: ...

class Locator(_message.Message):
    __slots__ = ("page", "page_label", "slide", "sheet", "row_start", "row_end", "line_start", "line_end", "char_start", "char_end", "t_start_ms", "t_end_ms", "part", "event_uid", "lines")
    PAGE_FIELD_NUMBER: _ClassVar[int]
    PAGE_LABEL_FIELD_NUMBER: _ClassVar[int]
    SLIDE_FIELD_NUMBER: _ClassVar[int]
    SHEET_FIELD_NUMBER: _ClassVar[int]
    ROW_START_FIELD_NUMBER: _ClassVar[int]
    ROW_END_FIELD_NUMBER: _ClassVar[int]
    LINE_START_FIELD_NUMBER: _ClassVar[int]
    LINE_END_FIELD_NUMBER: _ClassVar[int]
    CHAR_START_FIELD_NUMBER: _ClassVar[int]
    CHAR_END_FIELD_NUMBER: _ClassVar[int]
    T_START_MS_FIELD_NUMBER: _ClassVar[int]
    T_END_MS_FIELD_NUMBER: _ClassVar[int]
    PART_FIELD_NUMBER: _ClassVar[int]
    EVENT_UID_FIELD_NUMBER: _ClassVar[int]
    LINES_FIELD_NUMBER: _ClassVar[int]
    page: int
    page_label: str
    slide: int
    sheet: str
    row_start: int
    row_end: int
    line_start: int
    line_end: int
    char_start: int
    char_end: int
    t_start_ms: int
    t_end_ms: int
    part: str
    event_uid: str
    lines: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, page: _Optional[int] = ..., page_label: _Optional[str] = ..., slide: _Optional[int] = ..., sheet: _Optional[str] = ..., row_start: _Optional[int] = ..., row_end: _Optional[int] = ..., line_start: _Optional[int] = ..., line_end: _Optional[int] = ..., char_start: _Optional[int] = ..., char_end: _Optional[int] = ..., t_start_ms: _Optional[int] = ..., t_end_ms: _Optional[int] = ..., part: _Optional[str] = ..., event_uid: _Optional[str] = ..., lines: _Optional[_Iterable[int]] = ...) -> None: ...

class Explain(_message.Message):
    __slots__ = ("signals", "notes")
    class SignalsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: float
        def __init__(self, key: _Optional[str] = ..., value: _Optional[float] = ...) -> None: ...
    SIGNALS_FIELD_NUMBER: _ClassVar[int]
    NOTES_FIELD_NUMBER: _ClassVar[int]
    signals: _containers.ScalarMap[str, float]
    notes: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, signals: _Optional[_Mapping[str, float]] = ..., notes: _Optional[_Iterable[str]] = ...) -> None: ...

class UnitHit(_message.Message):
    __slots__ = ("unit_id", "file_path", "kind", "locator", "score", "snippet", "text", "title", "content_time", "fields", "explain", "is_context")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    FILE_PATH_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TIME_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    IS_CONTEXT_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    file_path: str
    kind: str
    locator: Locator
    score: float
    snippet: str
    text: str
    title: str
    content_time: str
    fields: _containers.ScalarMap[str, str]
    explain: Explain
    is_context: bool
    def __init__(self, unit_id: _Optional[str] = ..., file_path: _Optional[str] = ..., kind: _Optional[str] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., score: _Optional[float] = ..., snippet: _Optional[str] = ..., text: _Optional[str] = ..., title: _Optional[str] = ..., content_time: _Optional[str] = ..., fields: _Optional[_Mapping[str, str]] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ..., is_context: bool = ...) -> None: ...

class FileInfo(_message.Message):
    __slots__ = ("file_id", "path", "name", "extension", "file_type", "modality", "size", "modified", "created", "title", "author", "unit_count", "status", "error", "parent_path", "extra")
    class ExtraEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    FILE_ID_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    EXTENSION_FIELD_NUMBER: _ClassVar[int]
    FILE_TYPE_FIELD_NUMBER: _ClassVar[int]
    MODALITY_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    MODIFIED_FIELD_NUMBER: _ClassVar[int]
    CREATED_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_FIELD_NUMBER: _ClassVar[int]
    UNIT_COUNT_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    ERROR_FIELD_NUMBER: _ClassVar[int]
    PARENT_PATH_FIELD_NUMBER: _ClassVar[int]
    EXTRA_FIELD_NUMBER: _ClassVar[int]
    file_id: str
    path: str
    name: str
    extension: str
    file_type: str
    modality: str
    size: int
    modified: str
    created: str
    title: str
    author: str
    unit_count: int
    status: str
    error: str
    parent_path: str
    extra: _containers.ScalarMap[str, str]
    def __init__(self, file_id: _Optional[str] = ..., path: _Optional[str] = ..., name: _Optional[str] = ..., extension: _Optional[str] = ..., file_type: _Optional[str] = ..., modality: _Optional[str] = ..., size: _Optional[int] = ..., modified: _Optional[str] = ..., created: _Optional[str] = ..., title: _Optional[str] = ..., author: _Optional[str] = ..., unit_count: _Optional[int] = ..., status: _Optional[str] = ..., error: _Optional[str] = ..., parent_path: _Optional[str] = ..., extra: _Optional[_Mapping[str, str]] = ...) -> None: ...

class FileHit(_message.Message):
    __slots__ = ("file", "score", "units")
    FILE_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    file: FileInfo
    score: float
    units: _containers.RepeatedCompositeFieldContainer[UnitHit]
    def __init__(self, file: _Optional[_Union[FileInfo, _Mapping]] = ..., score: _Optional[float] = ..., units: _Optional[_Iterable[_Union[UnitHit, _Mapping]]] = ...) -> None: ...

class SearchResponse(_message.Message):
    __slots__ = ("files", "total_units", "took_ms", "explain", "activity")
    FILES_FIELD_NUMBER: _ClassVar[int]
    TOTAL_UNITS_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[FileHit]
    total_units: int
    took_ms: float
    explain: Explain
    activity: ActivitySummary
    def __init__(self, files: _Optional[_Iterable[_Union[FileHit, _Mapping]]] = ..., total_units: _Optional[int] = ..., took_ms: _Optional[float] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ..., activity: _Optional[_Union[ActivitySummary, _Mapping]] = ...) -> None: ...

class RetrieveResponse(_message.Message):
    __slots__ = ("units", "took_ms", "explain", "activity", "reranked")
    UNITS_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    RERANKED_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[UnitHit]
    took_ms: float
    explain: Explain
    activity: ActivitySummary
    reranked: bool
    def __init__(self, units: _Optional[_Iterable[_Union[UnitHit, _Mapping]]] = ..., took_ms: _Optional[float] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ..., activity: _Optional[_Union[ActivitySummary, _Mapping]] = ..., reranked: bool = ...) -> None: ...

class ListFilesRequest(_message.Message):
    __slots__ = ("pattern", "limit", "include_failed")
    PATTERN_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_FAILED_FIELD_NUMBER: _ClassVar[int]
    pattern: str
    limit: int
    include_failed: bool
    def __init__(self, pattern: _Optional[str] = ..., limit: _Optional[int] = ..., include_failed: bool = ...) -> None: ...

class ListFilesResponse(_message.Message):
    __slots__ = ("files", "truncated")
    FILES_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    files: _containers.RepeatedCompositeFieldContainer[FileInfo]
    truncated: bool
    def __init__(self, files: _Optional[_Iterable[_Union[FileInfo, _Mapping]]] = ..., truncated: bool = ...) -> None: ...

class FileRequest(_message.Message):
    __slots__ = ("path",)
    PATH_FIELD_NUMBER: _ClassVar[int]
    path: str
    def __init__(self, path: _Optional[str] = ...) -> None: ...

class TextSegment(_message.Message):
    __slots__ = ("unit_id", "kind", "locator", "title", "text", "content_time", "fields")
    class FieldsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TIME_FIELD_NUMBER: _ClassVar[int]
    FIELDS_FIELD_NUMBER: _ClassVar[int]
    unit_id: str
    kind: str
    locator: Locator
    title: str
    text: str
    content_time: str
    fields: _containers.ScalarMap[str, str]
    def __init__(self, unit_id: _Optional[str] = ..., kind: _Optional[str] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., title: _Optional[str] = ..., text: _Optional[str] = ..., content_time: _Optional[str] = ..., fields: _Optional[_Mapping[str, str]] = ...) -> None: ...

class GetTextResponse(_message.Message):
    __slots__ = ("file", "segments")
    FILE_FIELD_NUMBER: _ClassVar[int]
    SEGMENTS_FIELD_NUMBER: _ClassVar[int]
    file: FileInfo
    segments: _containers.RepeatedCompositeFieldContainer[TextSegment]
    def __init__(self, file: _Optional[_Union[FileInfo, _Mapping]] = ..., segments: _Optional[_Iterable[_Union[TextSegment, _Mapping]]] = ...) -> None: ...

class StatsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class StatsResponse(_message.Message):
    __slots__ = ("files_indexed", "files_failed", "files_skipped", "units", "units_by_kind", "files_by_modality", "profile_root", "index_dir", "last_commit", "embedding_coverage", "dense_status")
    class UnitsByKindEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class FilesByModalityEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    FILES_INDEXED_FIELD_NUMBER: _ClassVar[int]
    FILES_FAILED_FIELD_NUMBER: _ClassVar[int]
    FILES_SKIPPED_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    UNITS_BY_KIND_FIELD_NUMBER: _ClassVar[int]
    FILES_BY_MODALITY_FIELD_NUMBER: _ClassVar[int]
    PROFILE_ROOT_FIELD_NUMBER: _ClassVar[int]
    INDEX_DIR_FIELD_NUMBER: _ClassVar[int]
    LAST_COMMIT_FIELD_NUMBER: _ClassVar[int]
    EMBEDDING_COVERAGE_FIELD_NUMBER: _ClassVar[int]
    DENSE_STATUS_FIELD_NUMBER: _ClassVar[int]
    files_indexed: int
    files_failed: int
    files_skipped: int
    units: int
    units_by_kind: _containers.ScalarMap[str, int]
    files_by_modality: _containers.ScalarMap[str, int]
    profile_root: str
    index_dir: str
    last_commit: str
    embedding_coverage: float
    dense_status: str
    def __init__(self, files_indexed: _Optional[int] = ..., files_failed: _Optional[int] = ..., files_skipped: _Optional[int] = ..., units: _Optional[int] = ..., units_by_kind: _Optional[_Mapping[str, int]] = ..., files_by_modality: _Optional[_Mapping[str, int]] = ..., profile_root: _Optional[str] = ..., index_dir: _Optional[str] = ..., last_commit: _Optional[str] = ..., embedding_coverage: _Optional[float] = ..., dense_status: _Optional[str] = ...) -> None: ...

class TimelineRequest(_message.Message):
    __slots__ = ("range", "when", "query", "reference_time", "max_units", "activity", "activity_kinds")
    RANGE_FIELD_NUMBER: _ClassVar[int]
    WHEN_FIELD_NUMBER: _ClassVar[int]
    QUERY_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_TIME_FIELD_NUMBER: _ClassVar[int]
    MAX_UNITS_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_KINDS_FIELD_NUMBER: _ClassVar[int]
    range: TimeRange
    when: str
    query: str
    reference_time: int
    max_units: int
    activity: bool
    activity_kinds: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, range: _Optional[_Union[TimeRange, _Mapping]] = ..., when: _Optional[str] = ..., query: _Optional[str] = ..., reference_time: _Optional[int] = ..., max_units: _Optional[int] = ..., activity: bool = ..., activity_kinds: _Optional[_Iterable[str]] = ...) -> None: ...

class TimelineFile(_message.Message):
    __slots__ = ("path", "title", "units", "first_unit_id", "kind", "locator", "snippet", "content_time", "activity")
    PATH_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    FIRST_UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    LOCATOR_FIELD_NUMBER: _ClassVar[int]
    SNIPPET_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TIME_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    path: str
    title: str
    units: int
    first_unit_id: str
    kind: str
    locator: Locator
    snippet: str
    content_time: str
    activity: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, path: _Optional[str] = ..., title: _Optional[str] = ..., units: _Optional[int] = ..., first_unit_id: _Optional[str] = ..., kind: _Optional[str] = ..., locator: _Optional[_Union[Locator, _Mapping]] = ..., snippet: _Optional[str] = ..., content_time: _Optional[str] = ..., activity: _Optional[_Iterable[str]] = ...) -> None: ...

class TimelineFolder(_message.Message):
    __slots__ = ("folder", "files")
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    folder: str
    files: _containers.RepeatedCompositeFieldContainer[TimelineFile]
    def __init__(self, folder: _Optional[str] = ..., files: _Optional[_Iterable[_Union[TimelineFile, _Mapping]]] = ...) -> None: ...

class TimelineDay(_message.Message):
    __slots__ = ("date", "units", "folders", "activity", "activity_counts")
    class ActivityCountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    DATE_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    FOLDERS_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_COUNTS_FIELD_NUMBER: _ClassVar[int]
    date: str
    units: int
    folders: _containers.RepeatedCompositeFieldContainer[TimelineFolder]
    activity: _containers.RepeatedCompositeFieldContainer[ActivityEvent]
    activity_counts: _containers.ScalarMap[str, int]
    def __init__(self, date: _Optional[str] = ..., units: _Optional[int] = ..., folders: _Optional[_Iterable[_Union[TimelineFolder, _Mapping]]] = ..., activity: _Optional[_Iterable[_Union[ActivityEvent, _Mapping]]] = ..., activity_counts: _Optional[_Mapping[str, int]] = ...) -> None: ...

class TimelineResponse(_message.Message):
    __slots__ = ("days", "range", "units_scanned", "units_matched", "truncated", "took_ms", "explain", "activity_events")
    DAYS_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    UNITS_SCANNED_FIELD_NUMBER: _ClassVar[int]
    UNITS_MATCHED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_EVENTS_FIELD_NUMBER: _ClassVar[int]
    days: _containers.RepeatedCompositeFieldContainer[TimelineDay]
    range: str
    units_scanned: int
    units_matched: int
    truncated: bool
    took_ms: float
    explain: Explain
    activity_events: int
    def __init__(self, days: _Optional[_Iterable[_Union[TimelineDay, _Mapping]]] = ..., range: _Optional[str] = ..., units_scanned: _Optional[int] = ..., units_matched: _Optional[int] = ..., truncated: bool = ..., took_ms: _Optional[float] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ..., activity_events: _Optional[int] = ...) -> None: ...

class ActivityFilter(_message.Message):
    __slots__ = ("kinds", "range", "when")
    KINDS_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    WHEN_FIELD_NUMBER: _ClassVar[int]
    kinds: _containers.RepeatedScalarFieldContainer[str]
    range: TimeRange
    when: str
    def __init__(self, kinds: _Optional[_Iterable[str]] = ..., range: _Optional[_Union[TimeRange, _Mapping]] = ..., when: _Optional[str] = ...) -> None: ...

class ActivityEvent(_message.Message):
    __slots__ = ("seq", "kind", "path", "old_path", "time", "time_ms", "source", "size_delta", "session")
    SEQ_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    OLD_PATH_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    TIME_MS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    SIZE_DELTA_FIELD_NUMBER: _ClassVar[int]
    SESSION_FIELD_NUMBER: _ClassVar[int]
    seq: int
    kind: str
    path: str
    old_path: str
    time: str
    time_ms: int
    source: str
    size_delta: int
    session: str
    def __init__(self, seq: _Optional[int] = ..., kind: _Optional[str] = ..., path: _Optional[str] = ..., old_path: _Optional[str] = ..., time: _Optional[str] = ..., time_ms: _Optional[int] = ..., source: _Optional[str] = ..., size_delta: _Optional[int] = ..., session: _Optional[str] = ...) -> None: ...

class ActivityFile(_message.Message):
    __slots__ = ("path", "events", "kinds", "last_kind", "last_time")
    PATH_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    LAST_KIND_FIELD_NUMBER: _ClassVar[int]
    LAST_TIME_FIELD_NUMBER: _ClassVar[int]
    path: str
    events: int
    kinds: _containers.RepeatedScalarFieldContainer[str]
    last_kind: str
    last_time: str
    def __init__(self, path: _Optional[str] = ..., events: _Optional[int] = ..., kinds: _Optional[_Iterable[str]] = ..., last_kind: _Optional[str] = ..., last_time: _Optional[str] = ...) -> None: ...

class ActivitySummary(_message.Message):
    __slots__ = ("origin", "kinds", "range", "events", "counts", "files", "gone")
    class CountsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    KINDS_FIELD_NUMBER: _ClassVar[int]
    RANGE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    GONE_FIELD_NUMBER: _ClassVar[int]
    origin: str
    kinds: _containers.RepeatedScalarFieldContainer[str]
    range: str
    events: int
    counts: _containers.ScalarMap[str, int]
    files: int
    gone: _containers.RepeatedCompositeFieldContainer[ActivityFile]
    def __init__(self, origin: _Optional[str] = ..., kinds: _Optional[_Iterable[str]] = ..., range: _Optional[str] = ..., events: _Optional[int] = ..., counts: _Optional[_Mapping[str, int]] = ..., files: _Optional[int] = ..., gone: _Optional[_Iterable[_Union[ActivityFile, _Mapping]]] = ...) -> None: ...

class RenderRequest(_message.Message):
    __slots__ = ("path", "page", "second")
    PATH_FIELD_NUMBER: _ClassVar[int]
    PAGE_FIELD_NUMBER: _ClassVar[int]
    SECOND_FIELD_NUMBER: _ClassVar[int]
    path: str
    page: int
    second: float
    def __init__(self, path: _Optional[str] = ..., page: _Optional[int] = ..., second: _Optional[float] = ...) -> None: ...

class RenderResponse(_message.Message):
    __slots__ = ("content_type", "data")
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    content_type: str
    data: bytes
    def __init__(self, content_type: _Optional[str] = ..., data: _Optional[bytes] = ...) -> None: ...

class RoutineRequest(_message.Message):
    __slots__ = ("range", "when", "reference_time", "folder", "max_units", "max_events", "evidence", "top", "utc_offset_minutes", "sources")
    RANGE_FIELD_NUMBER: _ClassVar[int]
    WHEN_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_TIME_FIELD_NUMBER: _ClassVar[int]
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    MAX_UNITS_FIELD_NUMBER: _ClassVar[int]
    MAX_EVENTS_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    TOP_FIELD_NUMBER: _ClassVar[int]
    UTC_OFFSET_MINUTES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    range: TimeRange
    when: str
    reference_time: int
    folder: str
    max_units: int
    max_events: int
    evidence: int
    top: int
    utc_offset_minutes: int
    sources: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, range: _Optional[_Union[TimeRange, _Mapping]] = ..., when: _Optional[str] = ..., reference_time: _Optional[int] = ..., folder: _Optional[str] = ..., max_units: _Optional[int] = ..., max_events: _Optional[int] = ..., evidence: _Optional[int] = ..., top: _Optional[int] = ..., utc_offset_minutes: _Optional[int] = ..., sources: _Optional[_Iterable[str]] = ...) -> None: ...

class RoutineEvidence(_message.Message):
    __slots__ = ("path", "unit_id", "seq", "time")
    PATH_FIELD_NUMBER: _ClassVar[int]
    UNIT_ID_FIELD_NUMBER: _ClassVar[int]
    SEQ_FIELD_NUMBER: _ClassVar[int]
    TIME_FIELD_NUMBER: _ClassVar[int]
    path: str
    unit_id: str
    seq: int
    time: str
    def __init__(self, path: _Optional[str] = ..., unit_id: _Optional[str] = ..., seq: _Optional[int] = ..., time: _Optional[str] = ...) -> None: ...

class RoutineCell(_message.Message):
    __slots__ = ("weekday", "hour", "count", "evidence")
    WEEKDAY_FIELD_NUMBER: _ClassVar[int]
    HOUR_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    weekday: str
    hour: int
    count: int
    evidence: _containers.RepeatedCompositeFieldContainer[RoutineEvidence]
    def __init__(self, weekday: _Optional[str] = ..., hour: _Optional[int] = ..., count: _Optional[int] = ..., evidence: _Optional[_Iterable[_Union[RoutineEvidence, _Mapping]]] = ...) -> None: ...

class RoutineGrid(_message.Message):
    __slots__ = ("total", "by_weekday", "by_hour", "counts", "cells")
    TOTAL_FIELD_NUMBER: _ClassVar[int]
    BY_WEEKDAY_FIELD_NUMBER: _ClassVar[int]
    BY_HOUR_FIELD_NUMBER: _ClassVar[int]
    COUNTS_FIELD_NUMBER: _ClassVar[int]
    CELLS_FIELD_NUMBER: _ClassVar[int]
    total: int
    by_weekday: _containers.RepeatedScalarFieldContainer[int]
    by_hour: _containers.RepeatedScalarFieldContainer[int]
    counts: _containers.RepeatedScalarFieldContainer[int]
    cells: _containers.RepeatedCompositeFieldContainer[RoutineCell]
    def __init__(self, total: _Optional[int] = ..., by_weekday: _Optional[_Iterable[int]] = ..., by_hour: _Optional[_Iterable[int]] = ..., counts: _Optional[_Iterable[int]] = ..., cells: _Optional[_Iterable[_Union[RoutineCell, _Mapping]]] = ...) -> None: ...

class RoutineFolderGrids(_message.Message):
    __slots__ = ("folder", "content", "activity")
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    folder: str
    content: RoutineGrid
    activity: RoutineGrid
    def __init__(self, folder: _Optional[str] = ..., content: _Optional[_Union[RoutineGrid, _Mapping]] = ..., activity: _Optional[_Union[RoutineGrid, _Mapping]] = ...) -> None: ...

class RoutineNamedGrid(_message.Message):
    __slots__ = ("name", "grid")
    NAME_FIELD_NUMBER: _ClassVar[int]
    GRID_FIELD_NUMBER: _ClassVar[int]
    name: str
    grid: RoutineGrid
    def __init__(self, name: _Optional[str] = ..., grid: _Optional[_Union[RoutineGrid, _Mapping]] = ...) -> None: ...

class RoutineSeries(_message.Message):
    __slots__ = ("title", "source", "weekdays", "local_time", "count", "first", "last", "rrule", "evidence")
    TITLE_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    WEEKDAYS_FIELD_NUMBER: _ClassVar[int]
    LOCAL_TIME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    RRULE_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    title: str
    source: str
    weekdays: _containers.RepeatedScalarFieldContainer[str]
    local_time: str
    count: int
    first: str
    last: str
    rrule: str
    evidence: _containers.RepeatedCompositeFieldContainer[RoutineEvidence]
    def __init__(self, title: _Optional[str] = ..., source: _Optional[str] = ..., weekdays: _Optional[_Iterable[str]] = ..., local_time: _Optional[str] = ..., count: _Optional[int] = ..., first: _Optional[str] = ..., last: _Optional[str] = ..., rrule: _Optional[str] = ..., evidence: _Optional[_Iterable[_Union[RoutineEvidence, _Mapping]]] = ...) -> None: ...

class RoutinePerson(_message.Message):
    __slots__ = ("name", "address", "count", "roles", "evidence")
    class RolesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    NAME_FIELD_NUMBER: _ClassVar[int]
    ADDRESS_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    ROLES_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    name: str
    address: str
    count: int
    roles: _containers.ScalarMap[str, int]
    evidence: _containers.RepeatedCompositeFieldContainer[RoutineEvidence]
    def __init__(self, name: _Optional[str] = ..., address: _Optional[str] = ..., count: _Optional[int] = ..., roles: _Optional[_Mapping[str, int]] = ..., evidence: _Optional[_Iterable[_Union[RoutineEvidence, _Mapping]]] = ...) -> None: ...

class RoutineWeek(_message.Message):
    __slots__ = ("week", "start", "units", "people")
    WEEK_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_FIELD_NUMBER: _ClassVar[int]
    week: str
    start: str
    units: int
    people: _containers.RepeatedCompositeFieldContainer[RoutinePerson]
    def __init__(self, week: _Optional[str] = ..., start: _Optional[str] = ..., units: _Optional[int] = ..., people: _Optional[_Iterable[_Union[RoutinePerson, _Mapping]]] = ...) -> None: ...

class RoutinePeople(_message.Message):
    __slots__ = ("owner", "overall", "weeks", "weeks_omitted")
    OWNER_FIELD_NUMBER: _ClassVar[int]
    OVERALL_FIELD_NUMBER: _ClassVar[int]
    WEEKS_FIELD_NUMBER: _ClassVar[int]
    WEEKS_OMITTED_FIELD_NUMBER: _ClassVar[int]
    owner: str
    overall: _containers.RepeatedCompositeFieldContainer[RoutinePerson]
    weeks: _containers.RepeatedCompositeFieldContainer[RoutineWeek]
    weeks_omitted: int
    def __init__(self, owner: _Optional[str] = ..., overall: _Optional[_Iterable[_Union[RoutinePerson, _Mapping]]] = ..., weeks: _Optional[_Iterable[_Union[RoutineWeek, _Mapping]]] = ..., weeks_omitted: _Optional[int] = ...) -> None: ...

class RoutineNameCount(_message.Message):
    __slots__ = ("name", "count")
    NAME_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    name: str
    count: int
    def __init__(self, name: _Optional[str] = ..., count: _Optional[int] = ...) -> None: ...

class RoutineFolderCount(_message.Message):
    __slots__ = ("folder", "count", "breakdown", "evidence")
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    BREAKDOWN_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    folder: str
    count: int
    breakdown: _containers.RepeatedCompositeFieldContainer[RoutineNameCount]
    evidence: _containers.RepeatedCompositeFieldContainer[RoutineEvidence]
    def __init__(self, folder: _Optional[str] = ..., count: _Optional[int] = ..., breakdown: _Optional[_Iterable[_Union[RoutineNameCount, _Mapping]]] = ..., evidence: _Optional[_Iterable[_Union[RoutineEvidence, _Mapping]]] = ...) -> None: ...

class RoutineNamingHabit(_message.Message):
    __slots__ = ("habit", "value", "count", "share", "evidence")
    HABIT_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SHARE_FIELD_NUMBER: _ClassVar[int]
    EVIDENCE_FIELD_NUMBER: _ClassVar[int]
    habit: str
    value: str
    count: int
    share: float
    evidence: _containers.RepeatedCompositeFieldContainer[RoutineEvidence]
    def __init__(self, habit: _Optional[str] = ..., value: _Optional[str] = ..., count: _Optional[int] = ..., share: _Optional[float] = ..., evidence: _Optional[_Iterable[_Union[RoutineEvidence, _Mapping]]] = ...) -> None: ...

class RoutineHabits(_message.Message):
    __slots__ = ("files", "folders_by_files", "folders_by_activity", "naming")
    FILES_FIELD_NUMBER: _ClassVar[int]
    FOLDERS_BY_FILES_FIELD_NUMBER: _ClassVar[int]
    FOLDERS_BY_ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    NAMING_FIELD_NUMBER: _ClassVar[int]
    files: int
    folders_by_files: _containers.RepeatedCompositeFieldContainer[RoutineFolderCount]
    folders_by_activity: _containers.RepeatedCompositeFieldContainer[RoutineFolderCount]
    naming: _containers.RepeatedCompositeFieldContainer[RoutineNamingHabit]
    def __init__(self, files: _Optional[int] = ..., folders_by_files: _Optional[_Iterable[_Union[RoutineFolderCount, _Mapping]]] = ..., folders_by_activity: _Optional[_Iterable[_Union[RoutineFolderCount, _Mapping]]] = ..., naming: _Optional[_Iterable[_Union[RoutineNamingHabit, _Mapping]]] = ...) -> None: ...

class RoutineResponse(_message.Message):
    __slots__ = ("range", "folder", "utc_offset", "content", "activity", "by_folder", "content_by_type", "activity_by_kind", "series", "people", "habits", "activity_available", "activity_sources", "units_scanned", "units_in_range", "events_scanned", "files_scanned", "truncated", "took_ms", "explain", "units_dated_by_file", "calendar")
    class ActivitySourcesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    RANGE_FIELD_NUMBER: _ClassVar[int]
    FOLDER_FIELD_NUMBER: _ClassVar[int]
    UTC_OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONTENT_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    BY_FOLDER_FIELD_NUMBER: _ClassVar[int]
    CONTENT_BY_TYPE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_BY_KIND_FIELD_NUMBER: _ClassVar[int]
    SERIES_FIELD_NUMBER: _ClassVar[int]
    PEOPLE_FIELD_NUMBER: _ClassVar[int]
    HABITS_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_AVAILABLE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_SOURCES_FIELD_NUMBER: _ClassVar[int]
    UNITS_SCANNED_FIELD_NUMBER: _ClassVar[int]
    UNITS_IN_RANGE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_SCANNED_FIELD_NUMBER: _ClassVar[int]
    FILES_SCANNED_FIELD_NUMBER: _ClassVar[int]
    TRUNCATED_FIELD_NUMBER: _ClassVar[int]
    TOOK_MS_FIELD_NUMBER: _ClassVar[int]
    EXPLAIN_FIELD_NUMBER: _ClassVar[int]
    UNITS_DATED_BY_FILE_FIELD_NUMBER: _ClassVar[int]
    CALENDAR_FIELD_NUMBER: _ClassVar[int]
    range: str
    folder: str
    utc_offset: str
    content: RoutineGrid
    activity: RoutineGrid
    by_folder: _containers.RepeatedCompositeFieldContainer[RoutineFolderGrids]
    content_by_type: _containers.RepeatedCompositeFieldContainer[RoutineNamedGrid]
    activity_by_kind: _containers.RepeatedCompositeFieldContainer[RoutineNamedGrid]
    series: _containers.RepeatedCompositeFieldContainer[RoutineSeries]
    people: RoutinePeople
    habits: RoutineHabits
    activity_available: bool
    activity_sources: _containers.ScalarMap[str, int]
    units_scanned: int
    units_in_range: int
    events_scanned: int
    files_scanned: int
    truncated: bool
    took_ms: float
    explain: Explain
    units_dated_by_file: int
    calendar: RoutineGrid
    def __init__(self, range: _Optional[str] = ..., folder: _Optional[str] = ..., utc_offset: _Optional[str] = ..., content: _Optional[_Union[RoutineGrid, _Mapping]] = ..., activity: _Optional[_Union[RoutineGrid, _Mapping]] = ..., by_folder: _Optional[_Iterable[_Union[RoutineFolderGrids, _Mapping]]] = ..., content_by_type: _Optional[_Iterable[_Union[RoutineNamedGrid, _Mapping]]] = ..., activity_by_kind: _Optional[_Iterable[_Union[RoutineNamedGrid, _Mapping]]] = ..., series: _Optional[_Iterable[_Union[RoutineSeries, _Mapping]]] = ..., people: _Optional[_Union[RoutinePeople, _Mapping]] = ..., habits: _Optional[_Union[RoutineHabits, _Mapping]] = ..., activity_available: bool = ..., activity_sources: _Optional[_Mapping[str, int]] = ..., units_scanned: _Optional[int] = ..., units_in_range: _Optional[int] = ..., events_scanned: _Optional[int] = ..., files_scanned: _Optional[int] = ..., truncated: bool = ..., took_ms: _Optional[float] = ..., explain: _Optional[_Union[Explain, _Mapping]] = ..., units_dated_by_file: _Optional[int] = ..., calendar: _Optional[_Union[RoutineGrid, _Mapping]] = ...) -> None: ...
