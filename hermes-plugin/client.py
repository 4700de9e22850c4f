"""A stdlib HTTP client for Sidecar protocol version 2.

One ``SidecarClient`` holds the URL and token and nothing else, so it is safe
for concurrent use: every request opens its own connection. ``exec_command``
can be aborted from another thread through an ``ExecCall`` (closing the
connection is also how the daemon learns the client went away).
"""

from __future__ import annotations

import http.client
import json
import socket
import threading
import urllib.parse
from typing import Any, Optional

from .errors import (ConnectionLost, DaemonRejected, DaemonUnreachable, MissingToken, NotSidecar,
                     ProtocolMismatch)

PROTOCOL_VERSION = 2
CONNECT_SECONDS = 5.0
QUICK_READ_SECONDS = 10.0

_HINTS = {
    "unauthorized": "The token is wrong: set SIDECAR_TOKEN to the token `sidecar pair` prints on the "
                    "daemon's machine.",
    "too_many_auth_failures": "Too many wrong tokens were tried; fix SIDECAR_TOKEN and try again in a second.",
    "host_refused": "The daemon accepts only its own address as Host; reaching it under another name needs "
                    "`sidecar serve --allow-host NAME` on its machine.",
    "shutting_down": "The daemon is stopping; the person can start it again with `sidecar serve`.",
    "too_many_requests": "The daemon is busy with other commands; try again shortly.",
    "audit_unavailable": "The daemon cannot write its audit log, so it runs nothing; the person must check it.",
    "protocol_v1_rejected": "This plugin and the daemon disagree on the protocol; update both.",
}


class ExecCall:
    """Handle on one in-flight exec: ``abort()`` closes its connection from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._conn: Optional[http.client.HTTPConnection] = None
        self._aborted = False

    @property
    def aborted(self) -> bool:
        with self._lock:
            return self._aborted

    def _attach(self, conn: http.client.HTTPConnection) -> None:
        with self._lock:
            self._conn = conn
            aborted = self._aborted
        if aborted:
            _shutdown(conn)

    def abort(self) -> None:
        with self._lock:
            self._aborted = True
            conn = self._conn
        if conn is not None:
            _shutdown(conn)


def _shutdown(conn: http.client.HTTPConnection) -> None:
    sock = conn.sock
    if sock is None:
        return
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass  # already closed: the reader sees the end either way


class SidecarClient:
    """Talks protocol 2 to the daemon at ``url`` with bearer ``token``."""

    def __init__(self, url: str, token: str) -> None:
        parsed = urllib.parse.urlsplit(url.strip())
        if parsed.scheme not in ("http", "https") or not parsed.hostname:
            raise NotSidecar(f"The Sidecar URL {url!r} is not an http:// or https:// URL.",
                             hint="Set plugins.entries.sidecar.settings.url, e.g. http://127.0.0.1:8765.")
        self.url = f"{parsed.scheme}://{parsed.netloc}"
        self._https = parsed.scheme == "https"
        self._host = parsed.hostname
        self._port = parsed.port or (443 if self._https else 80)
        self._prefix = parsed.path.rstrip("/")
        self._token = (token or "").strip()

    # -- endpoints ---------------------------------------------------------

    def health(self) -> dict:
        """GET /v1/health, refusing any protocol but version 2."""
        body = self._json("GET", "/v1/health", read_timeout=QUICK_READ_SECONDS)
        if not isinstance(body, dict) or "protocol" not in body:
            raise NotSidecar(f"{self.url} answered /v1/health without a protocol version; it is not a "
                             "Sidecar daemon.", hint="Check plugins.entries.sidecar.settings.url.")
        if body.get("protocol") != PROTOCOL_VERSION:
            raise ProtocolMismatch(
                f"The Sidecar daemon at {self.url} speaks protocol {body.get('protocol')!r} "
                f"(daemon {body.get('version', '?')}); this plugin speaks protocol {PROTOCOL_VERSION}.",
                daemon_protocol=body.get("protocol"),
                hint="Install matching versions of the sidecar binary and the Hermes plugin.")
        return body

    def status(self) -> dict:
        return self._json("GET", "/v1/status", read_timeout=QUICK_READ_SECONDS)

    def audit(self, limit: int = 50) -> dict:
        return self._json("GET", f"/v1/audit?limit={int(limit)}", read_timeout=QUICK_READ_SECONDS)

    def cancel(self, request_id: str) -> dict:
        return self._json("POST", "/v1/cancel", {"request_id": request_id}, read_timeout=QUICK_READ_SECONDS)

    def exec_command(self, request: dict, *, read_timeout: float, call: Optional[ExecCall] = None) -> dict:
        """POST /v1/exec and return the decoded answer (denials included: they are 200s)."""
        return self._json("POST", "/v1/exec", request, read_timeout=read_timeout, call=call)

    def raw(self, method: str, path: str, body: Optional[bytes] = None, *,
            headers: Optional[dict] = None, auth: bool = True) -> tuple[int, Any]:
        """One request with full control of body and headers: ``(status, decoded JSON or None)``."""
        status, raw = self._send(method, path, body, headers or {}, auth=auth,
                                 read_timeout=QUICK_READ_SECONDS, call=None)
        return status, _decode(raw)

    # -- plumbing ----------------------------------------------------------

    def _json(self, method: str, path: str, payload: Optional[dict] = None, *,
              read_timeout: float, call: Optional[ExecCall] = None) -> Any:
        if not self._token:
            raise MissingToken("No Sidecar token is configured.",
                               hint="Set SIDECAR_TOKEN in the environment or in Hermes's .env; "
                                    "`sidecar pair` on the daemon's machine prints it.")
        data = None
        headers = {}
        if payload is not None:
            data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
            headers["Content-Type"] = "application/json"
        status, raw = self._send(method, path, data, headers, auth=True, read_timeout=read_timeout, call=call)
        body = _decode(raw)
        if 200 <= status < 300:
            if body is None:
                raise NotSidecar(f"{self.url} answered {method} {path} with something that is not JSON; "
                                 "it is not a Sidecar daemon.", hint="Check plugins.entries.sidecar.settings.url.")
            return body
        err = body.get("error") if isinstance(body, dict) else None
        if not isinstance(err, dict) or "code" not in err:
            raise NotSidecar(f"{self.url} answered {method} {path} with HTTP {status} and no Sidecar error "
                             "body; it is not a Sidecar daemon.", hint="Check plugins.entries.sidecar.settings.url.")
        code = str(err.get("code"))
        raise DaemonRejected(status, code, str(err.get("message", "")), hint=_HINTS.get(code, ""))

    def _send(self, method: str, path: str, body: Optional[bytes], headers: dict, *, auth: bool,
              read_timeout: float, call: Optional[ExecCall]) -> tuple[int, bytes]:
        cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        conn = cls(self._host, self._port, timeout=CONNECT_SECONDS)
        hdrs = {"Accept": "application/json", **headers}
        if auth:
            hdrs["Authorization"] = f"Bearer {self._token}"
        try:
            try:
                conn.connect()
            except OSError as exc:
                raise DaemonUnreachable(
                    f"Could not connect to the Sidecar daemon at {self.url}: {_describe(exc)}. "
                    "The command was not sent, so it did not run.",
                    hint="Check that `sidecar serve` is running on the person's machine and that the "
                         "URL (plugins.entries.sidecar.settings.url) and any tunnel are right.") from exc
            conn.sock.settimeout(read_timeout)
            if call is not None:
                call._attach(conn)
            try:
                conn.request(method, self._prefix + path, body=body, headers=hdrs)
                resp = conn.getresponse()
                return resp.status, resp.read()
            except (OSError, http.client.HTTPException) as exc:
                raise ConnectionLost(
                    f"The connection to the Sidecar daemon at {self.url} broke before it answered "
                    f"({_describe(exc)}). The command may already have run.",
                    hint="Check the daemon (`hermes sidecar status`) and its audit log "
                         "(`/sidecar audit`) before running it again.") from exc
        finally:
            conn.close()


def _decode(raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None


def _describe(exc: BaseException) -> str:
    """Words for a socket failure that never contain "timeout" (Hermes reads that word as a command timeout)."""
    if isinstance(exc, socket.timeout):
        return "no answer in time"
    if isinstance(exc, ConnectionRefusedError):
        return "connection refused (nothing is listening there)"
    if isinstance(exc, socket.gaierror):
        return "the host name does not resolve"
    if isinstance(exc, http.client.RemoteDisconnected):
        return "the daemon closed the connection"
    text = str(exc) or type(exc).__name__
    return text.replace("timeout", "time limit").replace("Timeout", "Time limit")
