"""Fixtures: the real sidecar daemon (built once per session) and the plugin as Hermes loads it.

Hermes reads ``HERMES_HOME`` when its modules are first used, so a throwaway
home is set here, before any test imports Hermes. Nothing touches ~/.hermes.
"""

from __future__ import annotations

import atexit
import importlib.util
import os
import shutil
import json
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Callable

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


# `sidecar approve` in a terminal of its own: a fresh Python (so the pytest
# process, which runs threads, never forks) gives it a pty as its controlling
# terminal, which its prompt needs.
_PTY_WINDOW = "import pty, sys; pty.spawn(sys.argv[1:])"


class AutoApprover:
    """A person who keeps `sidecar approve` open and answers every request, recording each.

    The daemon asks attached approvers only while at least one is attached,
    so a real ``sidecar approve`` stays attached in a pty the whole time (its
    prompts go unanswered there and are withdrawn). A thread answers through
    the CLI as a script would: ``approve list --json``, then ``approve answer
    <id> <choice>`` with ``decide(command)``. ``answered`` holds
    ``(command, choice, ok)`` in the order the answers were given.
    """

    def __init__(self, binary: Path, state_dir: Path, decide: Callable[[str], str] = lambda _: "y") -> None:
        self.binary, self.state_dir, self.decide = binary, state_dir, decide
        self.answered: list[tuple[str, str, bool]] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._screen = bytearray()
        self._stop = threading.Event()
        self._window: subprocess.Popen | None = None
        self._threads: list[threading.Thread] = []

    def _cli(self, *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.binary), "approve", *args, "--state-dir", str(self.state_dir)],
                              capture_output=True, text=True, timeout=30, stdin=subprocess.DEVNULL)

    def start(self) -> "AutoApprover":
        self._window = subprocess.Popen(
            [sys.executable, "-c", _PTY_WINDOW, str(self.binary), "approve", "--state-dir", str(self.state_dir)],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self._threads = [threading.Thread(target=self._drain, daemon=True)]
        self._threads[0].start()
        deadline = time.monotonic() + START_SECONDS
        while b"Waiting for requests" not in self.screen().encode() and time.monotonic() < deadline:
            assert self._window.poll() is None, f"sidecar approve exited: {self.screen()}"
            time.sleep(0.05)
        assert "Waiting for requests" in self.screen(), f"sidecar approve did not attach: {self.screen()!r}"
        answerer = threading.Thread(target=self._answer, daemon=True)
        answerer.start()
        self._threads.append(answerer)
        return self

    def screen(self) -> str:
        with self._lock:
            return self._screen.decode(errors="replace")

    def commands(self) -> list[str]:
        with self._lock:
            return [command for command, _, _ in self.answered]

    def _drain(self) -> None:
        """Read the window's terminal output, so its writes never block."""
        for chunk in iter(lambda: self._window.stdout.read1(4096), b""):
            with self._lock:
                self._screen += chunk

    def _answer(self) -> None:
        seen: set[int] = set()
        while not self._stop.is_set():
            listed = self._cli("list", "--json")
            if listed.returncode != 0:
                with self._lock:
                    self.errors.append(f"approve list: {listed.stderr.strip()}")
                self._stop.wait(0.5)
                continue
            for req in json.loads(listed.stdout):
                if req["id"] in seen:
                    continue
                seen.add(req["id"])
                choice = self.decide(req["command"])
                answer = self._cli("answer", str(req["id"]), choice)
                ok = answer.returncode == 0 and f"answered #{req['id']}: {choice}" in answer.stdout
                with self._lock:
                    self.answered.append((req["command"], choice, ok))
                    if not ok:
                        self.errors.append(f"approve answer {req['id']}: {answer.stdout}{answer.stderr}")
            self._stop.wait(0.05)

    def stop(self) -> None:
        self._stop.set()
        if self._window is not None and self._window.poll() is None:
            self._window.terminate()  # closing the pty hangs up `sidecar approve`
            try:
                self._window.wait(10)
            except subprocess.TimeoutExpired:
                self._window.kill()
                self._window.wait(5)
        for t in self._threads:
            t.join(10)
        if self._window is not None:
            self._window.stdout.close()


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
