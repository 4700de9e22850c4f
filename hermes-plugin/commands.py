"""The ``/sidecar`` slash command: ``/sidecar status | test | audit [limit]``."""

from __future__ import annotations

from typing import Callable

from . import remote
from .client import SidecarClient
from .errors import SidecarError
from .settings import Settings

USAGE = "Usage: /sidecar status | test | audit [limit]"


def make_handler(load_settings: Callable[[], Settings]) -> Callable[[str], str]:
    def handle(raw_args: str = "") -> str:
        return run(raw_args, load_settings())
    return handle


def run(raw_args: str, settings: Settings) -> str:
    words = (raw_args or "").split()
    verb = words[0].lower() if words else "status"
    if verb not in ("status", "test", "audit") or len(words) > 2 or (len(words) == 2 and verb != "audit"):
        return USAGE
    limit = remote.AUDIT_DEFAULT
    if len(words) == 2:
        if not words[1].isdigit() or int(words[1]) < 1:
            return f"audit limit must be a positive number, got {words[1]!r}. {USAGE}"
        limit = int(words[1])
    try:
        client = SidecarClient(settings.url, settings.token)
        if verb == "status":
            return remote.format_status(remote.status_summary(client))
        client.health()
        if verb == "test":
            return remote.round_trip(client)[1]
        return remote.format_decisions(remote.recent_decisions(client, limit))
    except SidecarError as err:
        return f"Sidecar {verb} failed: {err}"
