"""Typed failures of talking to a Sidecar daemon.

Callers branch on the class, never on the message: the environment turns the
transport classes into Hermes's connection error, the CLI verbs and tools
print ``str(err)``, which is always written for a person and says what to do.
"""

from __future__ import annotations


class SidecarError(Exception):
    """Base class: something kept a request from getting an answer."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}".strip()


class DaemonUnreachable(SidecarError):
    """No connection could be made, so the request was never sent and nothing ran."""


class ConnectionLost(SidecarError):
    """The request was sent but no answer came back: the command may have run."""


class NotSidecar(SidecarError):
    """Something answered at the URL, but it does not speak the Sidecar protocol."""


class ProtocolMismatch(SidecarError):
    """The daemon speaks a protocol version this plugin does not."""

    def __init__(self, message: str, *, daemon_protocol: object, hint: str = "") -> None:
        super().__init__(message, hint=hint)
        self.daemon_protocol = daemon_protocol


class DaemonRejected(SidecarError):
    """The daemon answered with an error body (``{"error": {"code", "message"}}``)."""

    def __init__(self, status: int, code: str, message: str, *, hint: str = "") -> None:
        super().__init__(f"Sidecar answered {status} {code}: {message}", hint=hint)
        self.status = status
        self.code = code
        self.daemon_message = message


class MissingToken(SidecarError):
    """No token is configured, so no request is sent at all."""
