"""``hermes sidecar verify --remote``: the daemon's security properties as a client sees them.

Only checks that change nothing on the person's machine and need no prompt,
the same set ``sidecar verify --remote`` runs: a daemon someone may be
watching is never asked to do anything but read.
"""

from __future__ import annotations

import secrets
from typing import Callable, Optional

from .client import SidecarClient
from .errors import DaemonRejected, SidecarError

Check = Callable[[SidecarClient], Optional[str]]

_WRONG_TOKEN = "0" * 64
# Names a command may see besides the session's own exports and what bash sets itself.
# The command the environment check runs (a read that changes nothing; on the daemon's safe list).
ENV_LISTING = "printenv"
_BASE_NAMES = {"PATH", "HOME", "USER", "SHELL", "LANG", "TERM", "TMPDIR", "PWD", "OLDPWD", "SHLVL", "_"}


def _want_error(status: int, body, want_status: int, want_code: str) -> Optional[str]:
    code = (body or {}).get("error", {}).get("code") if isinstance(body, dict) else None
    if status != want_status or code != want_code:
        return f"want {want_status} {want_code}, got {status} {code or body!r}"
    return None


def check_token_required(c: SidecarClient) -> Optional[str]:
    status, body = c.raw("GET", "/v1/status", auth=False)
    return _want_error(status, body, 401, "unauthorized")


def check_wrong_token(c: SidecarClient) -> Optional[str]:
    try:
        SidecarClient(c.url, _WRONG_TOKEN).exec_command({"command": "pwd"}, read_timeout=30)
    except DaemonRejected as err:
        return None if err.code == "unauthorized" else f"want 401 unauthorized, got {err}"
    return "a wrong token ran a command"


def check_protocol_v1(c: SidecarClient) -> Optional[str]:
    body = b'{"command":"pwd","wrapper":"bash -c","cwd_marker":"__CWD__"}'
    status, answer = c.raw("POST", "/v1/exec", body, headers={"Content-Type": "application/json"})
    return _want_error(status, answer, 400, "protocol_v1_rejected")


def check_exit_codes(c: SidecarClient) -> Optional[str]:
    # A read that fails: on the safe list, so no prompt, and it touches nothing.
    command = f"test -e ./.sidecar-verify-{secrets.token_hex(6)}"
    r = c.exec_command({"command": command, "session": "sidecar-verify"}, read_timeout=30)
    if r.get("exit_code") != 1 or r.get("decision") != "allow":
        return f"{command!r}: want exit 1 allowed, got exit {r.get('exit_code')} {r.get('decision')} ({r.get('reason')})"
    return None


def check_workspace_escape(c: SidecarClient) -> Optional[str]:
    r = c.exec_command({"command": "pwd", "cwd": "/", "session": "sidecar-verify"}, read_timeout=30)
    if r.get("exit_code") != 125 or r.get("approval") != "workspace":
        return (f"cwd / : want exit 125 denied by workspace, got exit {r.get('exit_code')} "
                f"{r.get('decision')} by {r.get('approval')}")
    return None


def check_environment(c: SidecarClient) -> Optional[str]:
    session = f"sidecar-verify-env-{secrets.token_hex(6)}"
    r = c.exec_command({"command": ENV_LISTING, "session": session}, read_timeout=30)
    if r.get("exit_code") != 0:
        return f"{ENV_LISTING}: exit {r.get('exit_code')} ({r.get('reason')})"
    names = {line.split("=", 1)[0] for line in str(r.get("output", "")).strip().splitlines() if line}
    extra = sorted(names - _BASE_NAMES)
    return f"commands see variables beyond the base set: {', '.join(extra)}" if extra else None


def check_audit_chain(c: SidecarClient) -> Optional[str]:
    body = c.audit(1000)
    records = body.get("records") or []
    if not body.get("enabled"):
        return "the daemon runs with --no-audit"
    if not records:
        return "no audit records after the checks above ran commands"
    for prev, cur in zip(records, records[1:]):
        if cur.get("seq") != prev.get("seq", -2) + 1 or cur.get("prev") != prev.get("hash"):
            return f"records {prev.get('seq')} and {cur.get('seq')} do not link"
    if records[-1].get("hash") != body.get("head"):
        return f"newest record {records[-1].get('seq')} is not the head the daemon reports"
    return None


CHECKS: tuple[tuple[str, Check], ...] = (
    ("token required", check_token_required),
    ("wrong token refused", check_wrong_token),
    ("protocol-1 marker refused", check_protocol_v1),
    ("exit codes survive", check_exit_codes),
    ("workspace escape denied", check_workspace_escape),
    ("environment sanitized", check_environment),
    ("audit chain verifies", check_audit_chain),
)


def run(client: SidecarClient) -> list[tuple[str, Optional[str]]]:
    """Run every check; ``(name, None)`` passed, ``(name, why)`` failed."""
    results = []
    for name, check in CHECKS:
        try:
            results.append((name, check(client)))
        except SidecarError as err:
            results.append((name, str(err)))
    return results


def format_results(results: list[tuple[str, Optional[str]]]) -> str:
    lines = [f"PASS  {name}" if why is None else f"FAIL  {name}: {why}" for name, why in results]
    failed = sum(1 for _, why in results if why is not None)
    lines.append(f"{failed} of {len(results)} checks failed" if failed else f"All {len(results)} checks passed.")
    return "\n".join(lines)
