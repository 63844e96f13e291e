"""Shared test constants: the repository root and ground truth from samples/FACTS.md."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[3]

INVOICE = "Documents/Shop/Invoices/Hartcliffe Joinery INV-2291.pdf"  # F01, F02: page 2
BUSINESS_PLAN = "Documents/Shop/Lantern Business Plan 2024-2026.pdf"  # F05: page 5, printed "2"
PITCH = "Documents/Shop/Childrens Corner pitch.pptx"  # F11: slide 3 notes
TAKINGS = "Documents/Shop/Takings Feb-Mar 2024.xlsx"  # F13: sheet Daily takings row 13


@dataclass(frozen=True)
class Daemon:
    """A running dentate-searchd (see the ``daemon`` fixture in conftest.py)."""

    grpc_addr: str
    http_url: str
    profile: Path
    index: Path


@dataclass(frozen=True)
class IndexedProfile:
    """A copy of the sample profile and its index (see ``embedded_profile`` in conftest.py)."""

    profile: Path
    index: Path
    dense: bool  # indexed with text embeddings: serve it with the text model
