"""The plugin's settings: ``plugins.entries.sidecar.settings`` plus the token.

Read fresh on every use (``Settings.load``), so ``hermes config set`` takes
effect without restarting Hermes. The token comes from ``SIDECAR_TOKEN`` in the
environment, then from Hermes's ``.env``; a ``token`` setting is honoured as a
last resort, but ``pair`` and the README steer people away from it because
config.yaml is not a secret store.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

DEFAULT_URL = "http://127.0.0.1:8765"
DEFAULT_TIMEOUT = 300
TOKEN_ENV = "SIDECAR_TOKEN"
URL_ENV = "SIDECAR_URL"

ConfigGetter = Callable[[str, Any], Any]


@dataclass(frozen=True)
class Settings:
    """Everything the plugin needs to reach one daemon."""

    url: str = DEFAULT_URL
    workspace: str = ""
    timeout: int = DEFAULT_TIMEOUT
    token: str = ""
    token_source: str = ""  # "environment", ".env", "config" or "" when missing
    binary: str = "sidecar"
    temp_dir: str = ""  # "" means <workspace>/.sidecar-tmp; see paths.resolve_temp_dir

    @classmethod
    def load(cls, get_config: ConfigGetter, environ: Optional[dict] = None,
             hermes_home: Optional[Path] = None) -> "Settings":
        environ = os.environ if environ is None else environ
        url = str(get_config("url", "") or environ.get(URL_ENV, "") or DEFAULT_URL).strip()
        workspace = str(get_config("workspace", "") or "").strip()
        timeout = _positive_int(get_config("timeout", DEFAULT_TIMEOUT), DEFAULT_TIMEOUT)
        binary = str(get_config("binary", "") or "sidecar").strip()
        temp_dir = str(get_config("temp_dir", "") or "").strip()
        token, source = _find_token(get_config, environ, hermes_home)
        return cls(url=url, workspace=workspace, timeout=timeout, token=token,
                   token_source=source, binary=binary, temp_dir=temp_dir)

    def binary_path(self) -> Optional[str]:
        """The sidecar binary to run for local verbs, or None when it cannot be found."""
        if os.sep in self.binary:
            return self.binary if os.access(self.binary, os.X_OK) else None
        return shutil.which(self.binary)


def _positive_int(value: Any, default: int) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def _find_token(get_config: ConfigGetter, environ, hermes_home: Optional[Path]) -> tuple[str, str]:
    token = str(environ.get(TOKEN_ENV, "") or "").strip()
    if token:
        return token, "environment"
    token = read_dotenv_value(_dotenv_path(environ, hermes_home), TOKEN_ENV)
    if token:
        return token, ".env"
    token = str(get_config("token", "") or "").strip()
    if token:
        return token, "config"
    return "", ""


def _dotenv_path(environ, hermes_home: Optional[Path]) -> Path:
    if hermes_home is not None:
        return Path(hermes_home) / ".env"
    home = environ.get("HERMES_HOME")
    if home:
        return Path(home) / ".env"
    try:
        from hermes_constants import get_hermes_home
        return Path(get_hermes_home()) / ".env"
    except Exception:  # outside Hermes (plain unit tests): the default home
        return Path.home() / ".hermes" / ".env"


def read_dotenv_value(path: Path, key: str) -> str:
    """The value of ``key`` in a dotenv file (``KEY=value``, optional ``export`` and quotes), or ""."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return ""
    value = ""
    for line in lines:
        line = line.strip()
        if line.startswith("export "):
            line = line[len("export "):].lstrip()
        name, sep, rest = line.partition("=")
        if not sep or name.strip() != key:
            continue
        rest = rest.strip()
        if len(rest) >= 2 and rest[0] == rest[-1] and rest[0] in "'\"":
            rest = rest[1:-1]
        value = rest  # the last assignment wins, as in a shell
    return value.strip()
