"""The Hermes execution environment that sends commands to a Sidecar daemon.

``SidecarEnvironment.execute`` replaces Hermes's spawn-a-wrapped-bash flow:
the command goes to ``POST /v1/exec`` exactly as the model (or a Hermes tool)
wrote it, so the daemon's policy, prompt and audit see the real string. The
daemon builds its own wrapper, tracks the session's directory and exports, and
answers with the exit code and the directory the command ended in.

``get_temp_dir`` puts Hermes's ``execute_code`` staging inside the workspace
(``temp_dir`` setting, default ``<workspace>/.sidecar-tmp``): Hermes polls
that directory every 100 ms, and only reads inside the workspace run without
asking the person.

Safe for concurrent use: ``execute_code`` polls for tool requests on one thread
while its script runs on another. Each call has its own connection; only
``cwd`` is shared, under a lock.
"""

from __future__ import annotations

import logging
import posixpath
import threading
import time
import uuid
from typing import Any, Optional

from tools.environments.base import BaseEnvironment, EnvironmentConnectionError

from .client import ExecCall, SidecarClient
from .errors import ConnectionLost, DaemonRejected, SidecarError
from .paths import resolve_temp_dir, within

logger = logging.getLogger(__name__)

# The daemon may hold a command at the approval prompt before its timeout
# starts (`serve --approval-timeout`, reported in /v1/status); the answer is
# awaited that long, plus a margin, past the command's own timeout. The
# default stands in for a daemon that does not report it.
PROMPT_ALLOWANCE_SECONDS = 150.0
PROMPT_MARGIN_SECONDS = 30.0
# How long an interrupted command gets to come back with exit 130 after the
# cancel before its connection is closed (which also kills it).
CANCEL_GRACE_SECONDS = 5.0
_POLL_SECONDS = 0.05

TIMEOUT_MARKER = "[Sidecar: timed out after"
INTERRUPTED_MARKER = "[Command interrupted]"

MAY_HAVE_RUN = ("If a command was in flight when this happened it may already have run: check "
                "`/sidecar audit` (or the sidecar_audit tool) before running it again.")

# Status codes of request mistakes: the command reached the daemon, was refused
# as malformed, and nothing ran. Everything else non-2xx is the daemon's state.
_REQUEST_MISTAKES = {400, 413, 415}


class SidecarEnvironment(BaseEnvironment):
    """One Hermes task's view of a daemon session."""

    def __init__(self, *, client: SidecarClient, session: str, status: dict, timeout: int,
                 hermes_cwd: str = "", temp_dir: str = "") -> None:
        self._workspace = str(status.get("workspace") or "/")
        # Set before the base __init__, which asks get_temp_dir() for its snapshot paths.
        self._temp_dir, problem = resolve_temp_dir(temp_dir, self._workspace)
        if problem:
            logger.warning("Sidecar: %s", problem)
        super().__init__(cwd=self._workspace, timeout=timeout)
        self._client = client
        self._session = session
        policy = status.get("policy") or {}
        self._allow_outside = bool(policy.get("allow_outside_workspace"))
        approval_wait = (status.get("timeouts") or {}).get("approval")
        self._prompt_allowance = (float(approval_wait) + PROMPT_MARGIN_SECONDS
                                  if isinstance(approval_wait, (int, float)) and approval_wait > 0
                                  else PROMPT_ALLOWANCE_SECONDS)
        self._lock = threading.Lock()
        self._verified = True
        # Hermes's own default directory for an unknown backend ("/root", or
        # terminal.cwd) means "wherever the backend starts": when it is not a
        # directory the daemon would accept, the daemon's session cwd stands in.
        self._hermes_default_cwd = hermes_cwd if hermes_cwd and not self._acceptable(hermes_cwd) else ""

    @property
    def session(self) -> str:
        return self._session

    @property
    def workspace(self) -> str:
        return self._workspace

    def get_temp_dir(self) -> str:
        """Where Hermes stages ``execute_code`` (``hermes_exec_*``, ``hermes_rkernel_*``) on the daemon's machine.

        Inside the workspace unless ``temp_dir`` says otherwise, so the
        request polls are reads the daemon runs without a prompt. The
        attribute is set before the base ``__init__`` asks; Hermes's "/tmp"
        answers only for an instance built some other way.
        """
        return getattr(self, "_temp_dir", "") or super().get_temp_dir()

    def cleanup(self) -> None:
        """Nothing to release: the daemon owns the session, and each call closed its connection."""

    # -- execute -------------------------------------------------------------

    def execute(self, command: str, cwd: str = "", *, timeout: Optional[float] = None,
                stdin_data: Optional[str] = None, bounded_capture: bool = False, **_: Any) -> dict:
        """Run ``command`` on the daemon; return Hermes's result dict (``output``, ``returncode``, ``cwd``)."""
        effective_timeout = float(timeout or self.timeout or 300)
        request: dict = {"command": command, "session": self._session,
                         "request_id": f"hermes-{uuid.uuid4().hex}", "timeout": effective_timeout}
        start_cwd = self._cwd_to_send(cwd)
        if start_cwd:
            request["cwd"] = start_cwd
        if stdin_data is not None:
            request["stdin"] = stdin_data
        try:
            self._verify()
            answer, interrupted = self._run(request, effective_timeout + self._prompt_allowance)
        except DaemonRejected as err:
            if err.status in _REQUEST_MISTAKES:
                return self._result(f"Sidecar could not take this command: {err.daemon_message}\n", 2)
            raise self._connection_error(err) from err
        except SidecarError as err:
            raise self._connection_error(err) from err
        if answer is None:  # interrupted, and the daemon did not answer the cancel in time
            return {**self._result(f"{INTERRUPTED_MARKER}\n", 130), "hermes_interrupted": True}
        return self._answer_to_result(answer, interrupted, bounded_capture)

    def _verify(self) -> None:
        """Re-check the protocol after a transport failure (the daemon may have been replaced)."""
        with self._lock:
            verified = self._verified
        if not verified:
            self._client.health()
            with self._lock:
                self._verified = True

    def _run(self, request: dict, wait: float) -> tuple[Optional[dict], bool]:
        """Send the exec on a worker thread so this (Hermes's tool) thread can watch for interrupts."""
        call = ExecCall()
        box: dict = {}

        def send() -> None:
            try:
                box["answer"] = self._client.exec_command(request, read_timeout=wait, call=call)
            except BaseException as exc:  # handed to the caller's thread below
                box["error"] = exc

        worker = threading.Thread(target=send, name=f"sidecar-{request['request_id']}", daemon=True)
        worker.start()
        interrupted, give_up_at = False, 0.0
        while worker.is_alive():
            worker.join(_POLL_SECONDS)
            if not interrupted and _hermes_interrupted():
                interrupted, give_up_at = True, time.monotonic() + CANCEL_GRACE_SECONDS
                self._cancel(request["request_id"])
            elif interrupted and time.monotonic() > give_up_at:
                call.abort()  # closing the connection makes the daemon kill the command too
                worker.join(2.0)
                break
        if interrupted and "answer" not in box:
            return None, True
        if "error" in box:
            raise box["error"]
        return box.get("answer"), interrupted

    def _cancel(self, request_id: str) -> None:
        try:
            self._client.cancel(request_id)
        except SidecarError:
            pass  # not running any more, or unreachable: the connection close still ends it

    def _answer_to_result(self, answer: dict, interrupted: bool, bounded: bool) -> dict:
        code = int(answer.get("exit_code", 1))
        output = str(answer.get("output", ""))
        ended = str(answer.get("cwd") or "")
        with self._lock:
            # The daemon answers with the directory the session starts in next (and says in
            # the output when the command ended outside the workspace), so it is always one
            # it accepts back; the check guards against an older daemon.
            if ended and self._acceptable(ended):
                self.cwd = ended
        if bounded:
            output = _bound(output)
        result = self._result(output, code)
        if code == 124 and (answer.get("timed_out") or TIMEOUT_MARKER in output):
            result["hermes_timed_out"] = True
        if interrupted and code == 130:
            result["output"] = output.rstrip("\n") + f"\n{INTERRUPTED_MARKER}"
            result["hermes_interrupted"] = True
        return result

    def _result(self, output: str, code: int) -> dict:
        with self._lock:
            cwd = self.cwd
        return {"output": output, "returncode": code, "exit_code": code, "cwd": cwd, "cwd_observed": True}

    # -- directories -----------------------------------------------------------

    def _cwd_to_send(self, cwd: Optional[str]) -> str:
        """The ``cwd`` field for a request, or "" to let the daemon use the session's directory.

        Hermes runs its own plumbing (the python probe and file-RPC polling of
        execute_code, sandbox cleanup) with ``cwd="/"`` meaning "anywhere"; those
        commands name absolute paths, and the daemon would refuse "/" as outside
        the workspace, so they start in the session's directory instead.
        """
        if not cwd or cwd == "/" or cwd.startswith("~") or cwd == self._hermes_default_cwd:
            return ""
        if not posixpath.isabs(cwd):
            with self._lock:
                return posixpath.normpath(posixpath.join(self.cwd, cwd))
        return cwd

    def _acceptable(self, path: str) -> bool:
        """Whether the daemon keeps ``path`` as a session directory (docs/protocol.md, step 8)."""
        return self._allow_outside or within(self._workspace, path)

    def _connection_error(self, err: SidecarError) -> EnvironmentConnectionError:
        if isinstance(err, ConnectionLost) or not isinstance(err, DaemonRejected):
            with self._lock:
                self._verified = False
        reason = f"{err} {MAY_HAVE_RUN}"
        return EnvironmentConnectionError(reason, retry_hint=err.hint or MAY_HAVE_RUN)


def _hermes_interrupted() -> bool:
    try:
        from tools.interrupt import is_interrupted
    except ImportError:
        return False
    return bool(is_interrupted())


def _bound(output: str) -> str:
    """Hermes's head/tail window for model-facing terminal output (``tool_output.max_bytes``)."""
    try:
        from tools.tool_output_limits import get_max_bytes
        from tools.tool_output_truncate import truncate_head_tail
    except ImportError:
        return output
    return truncate_head_tail(output, get_max_bytes())
