"""The protocol client against the real daemon, and against servers that are not one."""

from __future__ import annotations

import http.server
import json
import threading

import pytest


@pytest.fixture
def mod(plugin):
    import sidecar_plugin.client as client
    import sidecar_plugin.errors as errors
    return client, errors


class _Answer(http.server.BaseHTTPRequestHandler):
    status, body = 200, b""

    def do_GET(self):  # noqa: N802 (http.server's naming)
        self.send_response(self.status)
        self.end_headers()
        self.wfile.write(self.body)

    do_POST = do_GET

    def log_message(self, *args):
        pass


@pytest.fixture
def other_server():
    """An HTTP server that is not Sidecar; the test sets what it answers."""
    handler = type("H", (_Answer,), {})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield handler, f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_health_and_status(mod, daemon):
    client, _ = mod
    c = client.SidecarClient(daemon.url, daemon.token)
    health = c.health()
    assert (health["ok"], health["protocol"]) == (True, 2)
    status = c.status()
    assert status["workspace"] == str(daemon.workspace)
    assert status["approval"] == "allow"


def test_exec_round_trip(mod, daemon):
    client, _ = mod
    c = client.SidecarClient(daemon.url, daemon.token)
    answer = c.exec_command({"command": "cat; exit 7", "stdin": "from stdin\n", "session": "t"}, read_timeout=30)
    assert {k: answer[k] for k in ("exit_code", "output", "cwd", "decision")} == {
        "exit_code": 7, "output": "from stdin\n", "cwd": str(daemon.workspace), "decision": "allow"}


@pytest.mark.parametrize("token, code", [("0" * 64, "unauthorized"), ("nonsense", "unauthorized")])
def test_wrong_token(mod, daemon, token, code):
    client, errors = mod
    with pytest.raises(errors.DaemonRejected) as info:
        client.SidecarClient(daemon.url, token).health()
    assert (info.value.status, info.value.code) == (401, code)
    assert "SIDECAR_TOKEN" in str(info.value)


def test_missing_token_sends_nothing(mod, daemon):
    client, errors = mod
    with pytest.raises(errors.MissingToken, match="No Sidecar token is configured"):
        client.SidecarClient(daemon.url, "").health()


def test_daemon_down(mod, free_port):
    client, errors = mod
    with pytest.raises(errors.DaemonUnreachable) as info:
        client.SidecarClient(f"http://127.0.0.1:{free_port}", "x" * 64).health()
    text = str(info.value)
    assert "connection refused" in text and "did not run" in text
    assert "timeout" not in text.lower()


def test_unresolvable_host(mod):
    client, errors = mod
    with pytest.raises(errors.DaemonUnreachable, match="does not resolve"):
        client.SidecarClient("http://no-such-host.invalid:8765", "x" * 64).health()


@pytest.mark.parametrize("url", ["ftp://127.0.0.1:1", "127.0.0.1:8765", ""])
def test_not_a_url(mod, url):
    client, errors = mod
    with pytest.raises(errors.NotSidecar, match="not an http:// or https:// URL"):
        client.SidecarClient(url, "t")


@pytest.mark.parametrize("status, body, want", [
    (200, b"<html>hello</html>", "not JSON; it is not a Sidecar daemon"),
    (404, b"not found", "HTTP 404 and no Sidecar error body"),
    (200, b'{"hello": "world"}', "without a protocol version"),
])
def test_wrong_url_is_not_sidecar(mod, other_server, status, body, want):
    client, errors = mod
    handler, url = other_server
    handler.status, handler.body = status, body
    with pytest.raises(errors.NotSidecar, match=want):
        client.SidecarClient(url, "t" * 64).health()


def test_protocol_mismatch_is_readable(mod, other_server):
    client, errors = mod
    handler, url = other_server
    handler.body = json.dumps({"ok": True, "protocol": 3, "version": "9.0.0"}).encode()
    with pytest.raises(errors.ProtocolMismatch) as info:
        client.SidecarClient(url, "t" * 64).health()
    assert info.value.daemon_protocol == 3
    assert str(info.value) == (
        f"The Sidecar daemon at {url} speaks protocol 3 (daemon 9.0.0); this plugin speaks protocol 2. "
        "Install matching versions of the sidecar binary and the Hermes plugin.")


def test_cancel_of_unknown_request(mod, daemon):
    client, errors = mod
    with pytest.raises(errors.DaemonRejected) as info:
        client.SidecarClient(daemon.url, daemon.token).cancel("nothing-running")
    assert (info.value.status, info.value.code) == (404, "unknown_request")


def test_abort_closes_the_connection_and_the_daemon_kills_the_command(mod, daemon):
    client, errors = mod
    c = client.SidecarClient(daemon.url, daemon.token)
    call = client.ExecCall()
    box = {}

    def run():
        try:
            c.exec_command({"command": "sleep 30", "request_id": "abort-me"}, read_timeout=60, call=call)
        except errors.SidecarError as err:
            box["err"] = err

    t = threading.Thread(target=run)
    t.start()
    _wait_running(c, 1)
    call.abort()
    t.join(10)
    assert not t.is_alive()
    assert isinstance(box.get("err"), errors.ConnectionLost)
    _wait_running(c, 0)
    records = c.audit(5)["records"]
    assert records[-1]["request_id"] == "abort-me" and records[-1]["exit_code"] == 130


def _wait_running(c, n: int) -> None:
    import time
    deadline = time.monotonic() + 10
    while c.status()["daemon"]["running"] != n:
        assert time.monotonic() < deadline, f"daemon never had {n} command(s) running"
        time.sleep(0.05)
