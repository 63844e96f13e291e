#!/usr/bin/env python3
"""Rename camera RAW files after ingest: YYYYMMDD_client_NNNN.ARW (sequence in capture order).

usage: rename_raws.py /Volumes/Working/2025-03-15 nguyenwalsh [--dry-run]
"""
import sys
from datetime import datetime
from pathlib import Path

EXTS = {".arw", ".jpg", ".hif"}


def capture_time(p: Path) -> datetime:
    # Sony writes the capture time into the file's mtime on the card; good enough for ordering
    return datetime.fromtimestamp(p.stat().st_mtime)


def main() -> None:
    folder, client = Path(sys.argv[1]), sys.argv[2].lower().replace(" ", "")
    dry = "--dry-run" in sys.argv
    files = sorted((p for p in folder.iterdir() if p.suffix.lower() in EXTS), key=capture_time)
    for n, p in enumerate(files, start=1):
        new = p.with_name(f"{capture_time(p):%Y%m%d}_{client}_{n:04d}{p.suffix.upper()}")
        print(f"{p.name} -> {new.name}")
        if not dry:
            p.rename(new)


if __name__ == "__main__":
    main()
