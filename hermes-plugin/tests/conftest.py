"""Fixtures: the real sidecar daemon (built once per session) and the plugin as Hermes loads it.

Hermes reads ``HERMES_HOME`` when its modules are first used, so a throwaway
home is set here, before any test imports Hermes. Nothing touches ~/.hermes.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

PLUGIN_DIR = Path(__file__).resolve().parents[1]
REPO_ROOT = PLUGIN_DIR.parent
_HOME = tempfile.mkdtemp(prefix="sidecar-hermes-home-")
os.environ["HERMES_HOME"] = _HOME
atexit.register(shutil.rmtree, _HOME, True)
os.environ.pop("SIDECAR_TOKEN", None)
os.environ.pop("SIDECAR_URL", None)
os.environ.pop("TERMINAL_ENV", None)

START_SECONDS = 15


def load_plugin(name: str = "sidecar_plugin"):
    """Import hermes-plugin/ as a package, the way Hermes's loader does (its dir has a hyphen)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PLUGIN_DIR / "__init__.py",
                                                  submodule_search_locations=[str(PLUGIN_DIR)])
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def plugin():
    return load_plugin()


@pytest.fixture(scope="session")
def sidecar_bin(tmp_path_factory) -> Path:
    """The daemon binary: $SIDECAR_BIN when run-tests.sh built it, else built here once."""
    prebuilt = os.environ.get("SIDECAR_BIN")
    if prebuilt:
        path = Path(prebuilt)
        assert path.is_file(), f"SIDECAR_BIN={prebuilt} does not exist"
        return path
    assert shutil.which("go"), "go is needed to build the sidecar daemon for these tests"
    out = tmp_path_factory.mktemp("bin") / "sidecar"
    subprocess.run(["go", "build", "-o", str(out), "./cmd/sidecar"], cwd=REPO_ROOT, check=True, timeout=600)
    return out


class Daemon:
    """One real ``sidecar serve`` on 127.0.0.1 with its own workspace and state dir."""

    def __init__(self, binary: Path, root: Path, approval: str = "allow", extra: tuple = ()) -> None:
        self.binary, self.approval, self.extra = binary, approval, tuple(extra)
        self.workspace = (root / "ws").resolve()
        self.state_dir = root / "state"
        self.workspace.mkdir(parents=True, exist_ok=True)
        self.state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.log = root / "daemon.log"
        self.port = 0
        self.url = ""
        self.proc: subprocess.Popen | None = None

    @property
    def token(self) -> str:
        return (self.state_dir / "token").read_text().strip()

    def start(self) -> "Daemon":
        argv = [str(self.binary), "serve", "--host", "127.0.0.1", "--port", str(self.port),
                "--workspace", str(self.workspace), "--state-dir", str(self.state_dir),
                "--approval", self.approval, *self.extra]
        # No controlling terminal: an `ask` that needs a person is denied (no_tty), never waits.
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(self.log, "ab"),
                                     stdin=subprocess.DEVNULL, start_new_session=True, text=True)
        deadline = time.monotonic() + START_SECONDS
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if "listening on " in line:
                break
            if self.proc.poll() is not None:
                raise RuntimeError(f"sidecar serve exited {self.proc.returncode}: {self.log.read_text()}")
        else:
            raise RuntimeError(f"sidecar serve printed no URL: {line!r} {self.log.read_text()}")
        self.url = line.split("listening on ", 1)[1].strip()
        self.port = int(self.url.rsplit(":", 1)[1])
        return self

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        self.proc.stdout.close()
        self.proc = None

    def restart(self) -> None:
        """Stop and start again on the same port, state dir (token) and workspace."""
        self.stop()
        self.start()


@pytest.fixture
def make_daemon(sidecar_bin, tmp_path):
    started: list[Daemon] = []

    def make(approval: str = "allow", *extra: str, name: str = "d") -> Daemon:
        d = Daemon(sidecar_bin, tmp_path / name, approval, extra).start()
        started.append(d)
        return d

    yield make
    for d in started:
        d.stop()


@pytest.fixture
def daemon(make_daemon) -> Daemon:
    return make_daemon("allow")


@pytest.fixture
def free_port() -> int:
    """A port with nothing listening on it (bound, then released)."""
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
