"""Session fixtures: a real dentate-searchd over an index of the sample profile, and the
sample profile indexed with embeddings.

Binaries come from ``$DENTATE_BIN_DIR`` or ``<repo>/target/debug`` (build them with
``cargo build --workspace --bins``). The sample profile is copied to a temp dir, indexed
lexically (``--no-embed``) and served on ephemeral loopback ports (``--no-dense``).
``index_profile`` and ``serve_searchd`` are the same steps for tests that need another
index or another daemon.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Dict, Iterator, List, Sequence

import pytest

from support import REPO_ROOT, Daemon, IndexedProfile

SAMPLE_PROFILE = REPO_ROOT / "samples" / "profile"


def _bin(name: str) -> Path:
    bin_dir = Path(os.environ.get("DENTATE_BIN_DIR") or REPO_ROOT / "target" / "debug")
    path = bin_dir / name
    if not path.is_file():
        raise RuntimeError(
            f"{path} not found: build it with `cargo build --workspace --bins` "
            "or point DENTATE_BIN_DIR at a folder holding dentate-index and dentate-searchd"
        )
    return path


def _first_line(proc: "subprocess.Popen[str]", timeout: float) -> str:
    lines: List[str] = []
    reader = threading.Thread(target=lambda: lines.append(proc.stdout.readline()), daemon=True)  # type: ignore[union-attr]
    reader.start()
    reader.join(timeout)
    return lines[0] if lines else ""


def index_profile(profile: Path, index: Path, *options: str) -> Dict[str, Any]:
    """Runs dentate-index over ``profile`` into ``index`` and returns its ``--json`` summary."""
    indexed = subprocess.run(
        [str(_bin("dentate-index")), str(profile), "--index", str(index), "--json", *options],
        capture_output=True, text=True, timeout=300,
    )
    # 2: the run completed with some files failed (the sample has damaged files on purpose).
    if indexed.returncode not in (0, 2):
        raise RuntimeError(f"dentate-index failed ({indexed.returncode}):\n{indexed.stdout}\n{indexed.stderr}")
    return json.loads(indexed.stdout)


@contextmanager
def serve_searchd(args: Sequence[str], stderr_path: Path) -> Iterator[Dict[str, str]]:
    """Runs ``dentate-searchd ARGS`` on ephemeral loopback ports until the block ends and
    yields its addresses, ``{"grpc": "127.0.0.1:N", "http": "127.0.0.1:M"}``."""
    stderr = open(stderr_path, "w+")
    proc = subprocess.Popen(
        [str(_bin("dentate-searchd")), *args, "--grpc-addr", "127.0.0.1:0", "--http-addr", "127.0.0.1:0"],
        stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True,
    )
    try:
        line = _first_line(proc, timeout=60)
        if not line.startswith("listening "):
            stderr.seek(0)
            raise RuntimeError(f"dentate-searchd did not start: stdout {line!r}, stderr:\n{stderr.read()}")
        yield dict(part.split("=", 1) for part in line.split()[1:])
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        stderr.close()


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """Indexes a copy of samples/profile and serves it until the session ends."""
    root = tmp_path_factory.mktemp("dentate")
    profile, index = root / "profile", root / "index"
    shutil.copytree(SAMPLE_PROFILE, profile, symlinks=True)
    index_profile(profile, index, "--no-embed")
    with serve_searchd(["--index", str(index), "--no-dense"], root / "searchd.stderr") as addrs:
        yield Daemon(grpc_addr=addrs["grpc"], http_url="http://" + addrs["http"], profile=profile, index=index)


@pytest.fixture(scope="session")
def embedded_profile(tmp_path_factory: pytest.TempPathFactory) -> IndexedProfile:
    """A copy of samples/profile indexed with text embeddings when the models are there
    (``$DENTATE_MODELS``, ./models or the checkout's models/; no OCR, no speech: seconds),
    lexically otherwise (``dense`` says which; serve it with ``--no-dense`` then)."""
    root = tmp_path_factory.mktemp("dentate-embedded")
    profile, index = root / "profile", root / "index"
    shutil.copytree(SAMPLE_PROFILE, profile, symlinks=True)
    summary = index_profile(profile, index, "--no-ocr", "--no-media")
    dense = summary.get("embedding", {}).get("status") == "done"
    return IndexedProfile(profile=profile, index=index, dense=dense)


@pytest.fixture(scope="session")
def client(daemon: Daemon) -> Iterator["dentate.Client"]:  # noqa: F821
    """A gRPC client of the session daemon."""
    import dentate

    with dentate.Client(daemon.grpc_addr, timeout=30) as c:
        yield c
