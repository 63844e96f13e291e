"""Session fixture: a real dentate-searchd over an index of the sample profile.

Binaries come from ``$DENTATE_BIN_DIR`` or ``<repo>/target/debug`` (build them with
``cargo build --workspace --bins``). The sample profile is copied to a temp dir, indexed
lexically (``--no-embed``) and served on ephemeral loopback ports (``--no-dense``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path
from typing import Iterator, List

import pytest

from support import REPO_ROOT, Daemon

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


@pytest.fixture(scope="session")
def daemon(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Daemon]:
    """Indexes a copy of samples/profile and serves it until the session ends."""
    root = tmp_path_factory.mktemp("dentate")
    profile, index = root / "profile", root / "index"
    shutil.copytree(SAMPLE_PROFILE, profile, symlinks=True)
    indexed = subprocess.run(
        [str(_bin("dentate-index")), str(profile), "--index", str(index), "--no-embed"],
        capture_output=True, text=True, timeout=300,
    )
    # 2: the run completed with some files failed (the sample has damaged files on purpose).
    if indexed.returncode not in (0, 2):
        raise RuntimeError(f"dentate-index failed ({indexed.returncode}):\n{indexed.stdout}\n{indexed.stderr}")

    stderr = open(root / "searchd.stderr", "w+")
    proc = subprocess.Popen(
        [str(_bin("dentate-searchd")), "--index", str(index), "--grpc-addr", "127.0.0.1:0",
         "--http-addr", "127.0.0.1:0", "--no-dense"],
        stdout=subprocess.PIPE, stderr=stderr, stdin=subprocess.DEVNULL, text=True,
    )
    try:
        line = _first_line(proc, timeout=60)
        if not line.startswith("listening "):
            stderr.seek(0)
            raise RuntimeError(f"dentate-searchd did not start: stdout {line!r}, stderr:\n{stderr.read()}")
        addrs = dict(part.split("=", 1) for part in line.split()[1:])
        yield Daemon(grpc_addr=addrs["grpc"], http_url="http://" + addrs["http"], profile=profile, index=index)
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        stderr.close()


@pytest.fixture(scope="session")
def client(daemon: Daemon) -> Iterator["dentate.Client"]:  # noqa: F821
    """A gRPC client of the session daemon."""
    import dentate

    with dentate.Client(daemon.grpc_addr, timeout=30) as c:
        yield c
