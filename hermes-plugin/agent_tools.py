"""Agent tools: ``sidecar_status`` and ``sidecar_audit``.

Both read only. ``sidecar_audit`` shows decisions and exit codes, never a
command's output: the daemon does not keep output, and the agent already saw
whatever it was shown.
"""

from __future__ import annotations

import json
from typing import Any, Callable

from . import remote
from .client import SidecarClient
from .errors import SidecarError
from .settings import Settings

TOOLSET = "sidecar"

STATUS_SCHEMA = {
    "name": "sidecar_status",
    "description": ("Show the Sidecar daemon that runs this agent's terminal commands on the person's "
                    "machine: its version, workspace, approval mode, effective policy (hard-deny categories, "
                    "local rules, whether commands may start outside the workspace), timeouts and how many "
                    "audit records it holds."),
    "parameters": {"type": "object", "properties": {}, "additionalProperties": False},
}

AUDIT_SCHEMA = {
    "name": "sidecar_audit",
    "description": ("List the Sidecar daemon's most recent audit records, oldest first: each command as "
                    "recorded (secrets redacted), whether it was allowed or denied and by what (policy, the "
                    "person, a rule, hard deny), and its exit code. Command output is never included. Use it "
                    "to check whether a command already ran before repeating it."),
    "parameters": {
        "type": "object",
        "properties": {"limit": {"type": "integer", "minimum": 1, "maximum": remote.AUDIT_MAX,
                                 "description": f"how many records (default {remote.AUDIT_DEFAULT})"}},
        "additionalProperties": False,
    },
}


def _answer(fn: Callable[[SidecarClient], Any], settings: Settings) -> str:
    try:
        return json.dumps(fn(SidecarClient(settings.url, settings.token)), ensure_ascii=False)
    except SidecarError as err:
        return json.dumps({"error": str(err)}, ensure_ascii=False)


def make_status_handler(load_settings: Callable[[], Settings]) -> Callable[..., str]:
    def handle(args: dict | None = None, **_: Any) -> str:
        return _answer(remote.status_summary, load_settings())
    return handle


def make_audit_handler(load_settings: Callable[[], Settings]) -> Callable[..., str]:
    def handle(args: dict | None = None, **_: Any) -> str:
        raw = (args or {}).get("limit")
        try:
            limit = int(raw) if raw is not None else remote.AUDIT_DEFAULT
        except (TypeError, ValueError):
            return json.dumps({"error": f"limit must be an integer, got {raw!r}"})

        def fetch(client: SidecarClient) -> dict:
            client.health()
            return remote.recent_decisions(client, limit)
        return _answer(fetch, load_settings())
    return handle
