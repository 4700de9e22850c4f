"""The ``sidecar`` terminal backend Hermes selects with ``terminal.backend: sidecar``."""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from agent.terminal_env_provider import TerminalEnvironmentProvider
from tools.environments.base import EnvironmentConnectionError

from .client import SidecarClient
from .environment import SidecarEnvironment
from .errors import SidecarError
from .paths import resolve_temp_dir, within
from .settings import TOKEN_ENV, Settings

_SESSION_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def session_name(task_id: str) -> str:
    """The daemon session for a Hermes task: ``hermes-<task>``, within ``[A-Za-z0-9._-]{1,128}``."""
    cleaned = _SESSION_UNSAFE.sub("-", task_id or "default").strip("-.") or "default"
    return f"hermes-{cleaned}"[:128]


def connect(settings: Settings) -> tuple[SidecarClient, dict, dict]:
    """Open a client and check the daemon: ``(client, health, status)``; raises ``SidecarError``."""
    client = SidecarClient(settings.url, settings.token)
    health = client.health()
    return client, health, client.status()


class SidecarProvider(TerminalEnvironmentProvider):
    """Runs Hermes's terminal, file and code tools through a Sidecar daemon.

    ``is_remote`` because commands run on the person's machine, not Hermes's;
    not a container, so Hermes keeps its own dangerous-command approvals on in
    front of the daemon's policy and prompt.
    """

    is_remote = True
    is_container = False

    def __init__(self, load_settings: Callable[[], Settings]) -> None:
        self._load_settings = load_settings

    @property
    def name(self) -> str:
        return "sidecar"

    @property
    def display_name(self) -> str:
        return "Sidecar"

    @property
    def description(self) -> str:
        return "Run commands on a person's machine through the Sidecar daemon's consent gate and audit log."

    @property
    def strip_env_keys(self) -> frozenset:
        return frozenset({TOKEN_ENV})

    @property
    def env_description(self) -> str:
        return "the person's own machine, through the Sidecar daemon (commands are approved and audited there)"

    def is_available(self) -> bool:
        """Configured enough to try (a token is set); no network, as Hermes requires."""
        try:
            return bool(self._load_settings().token)
        except Exception:
            return False

    def probe(self) -> tuple[str, str]:
        """Dashboard health: one health round trip, bounded by the client's short connect/read limits."""
        try:
            settings = self._load_settings()
            if not settings.token:
                return "needs_setup", f"{TOKEN_ENV} is not set; `sidecar pair` prints it."
            health = SidecarClient(settings.url, settings.token).health()
        except SidecarError as err:
            return "unavailable", str(err)
        except Exception as err:  # probe must never raise
            return "unavailable", f"Sidecar probe failed: {err}"
        return "ready", f"Sidecar {health.get('version', '?')} at {settings.url} (protocol {health.get('protocol')})"

    def doctor_checks(self) -> list[tuple[bool, str, str]]:
        settings = self._load_settings()
        rows = [(bool(settings.token), "Sidecar token",
                 f"from {settings.token_source}" if settings.token else f"{TOKEN_ENV} is not set")]
        if not settings.token:
            return rows
        try:
            _, health, status = connect(settings)
        except SidecarError as err:
            return rows + [(False, "Sidecar daemon", str(err))]
        rows.append((True, "Sidecar daemon", f"{settings.url}: version {health.get('version')}, "
                                              f"protocol {health.get('protocol')}, approval {status.get('approval')}"))
        if settings.workspace and settings.workspace != status.get("workspace"):
            rows.append((False, "Sidecar workspace",
                         f"configured {settings.workspace}, daemon serves {status.get('workspace')}"))
        temp_problem = _temp_dir_problem(settings.temp_dir, status)
        if temp_problem:
            rows.append((False, "Sidecar temp dir", temp_problem))
        return rows

    def setup_instructions(self) -> list[str]:
        return [
            "On the person's machine: `sidecar serve --workspace DIR`, then `sidecar pair` prints the next lines.",
            "hermes config set plugins.entries.sidecar.settings.url http://127.0.0.1:8765",
            f"Put {TOKEN_ENV}=<token> in Hermes's .env (not in config.yaml).",
        ]

    def create_environment(self, *, cwd: str = "", timeout: int = 0, task_id: str = "default",
                           image: Optional[str] = None, container_config: Optional[dict] = None,
                           **kwargs: Any) -> SidecarEnvironment:
        """Connect (protocol check included) and return the task's environment.

        ``image``, ``container_config`` and any keyword Hermes adds later mean
        nothing to a daemon on a person's machine and are ignored.
        """
        del image, container_config, kwargs
        settings = self._load_settings()
        try:
            client, _, status = connect(settings)
        except SidecarError as err:
            raise EnvironmentConnectionError(
                f"Sidecar backend unavailable: {err}",
                retry_hint=err.hint or "Start `sidecar serve` on the person's machine, then retry.") from err
        return SidecarEnvironment(client=client, session=session_name(task_id), status=status,
                                  timeout=int(timeout or settings.timeout), hermes_cwd=cwd,
                                  temp_dir=settings.temp_dir)


def _temp_dir_problem(setting: str, status: dict) -> str:
    """Why the ``temp_dir`` setting will not do what it should on this daemon, or ""."""
    workspace = str(status.get("workspace") or "/")
    path, problem = resolve_temp_dir(setting, workspace)
    if problem:
        return problem
    if not within(workspace, path) and not (status.get("policy") or {}).get("allow_outside_workspace"):
        return (f"{path} is outside the workspace {workspace}: in ask mode the person is asked about "
                "every execute_code poll (ten a second), in read-only mode they are refused")
    return ""
