"""``hermes sidecar …``: the daemon's verbs from Hermes's command line.

Verbs that act on the machine they run on (``serve``, ``pair``, ``demo``,
``log --local``, ``verify`` without ``--remote``) run the ``sidecar`` Go binary
with the same flags. Verbs that look at the configured daemon (``status``,
``test``, ``log``, ``verify --remote``) speak the protocol from Python, so they
work on a server where no Go binary is installed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from typing import Callable

from . import remote, verify
from .client import SidecarClient
from .errors import SidecarError
from .settings import Settings

LOCAL_ONLY = ("serve", "pair", "demo")


VERBS = (
    ("serve", "run the daemon on this machine (sidecar serve FLAGS)"),
    ("pair", "print what the remote Hermes needs to reach this machine (sidecar pair FLAGS)"),
    ("demo", "the whole round trip against a throwaway daemon (sidecar demo)"),
    ("status", "the configured daemon: workspace, effective policy, audit count [--json] [--url URL]"),
    ("test", "round-trip a harmless command through the configured daemon [--url URL]"),
    ("log", "recent audit decisions of the configured daemon [--limit N]; --local: this machine's log"),
    ("verify", "security checks on a throwaway local daemon; --remote: the configured one, read-only"),
)


def setup_parser(parser: argparse.ArgumentParser) -> None:
    verbs = parser.add_subparsers(dest="sidecar_verb", metavar="VERB")
    verbs.required = True
    for verb, text in VERBS:
        # Every flag after the verb is kept verbatim: local verbs hand them to the
        # binary unchanged, remote verbs parse them below.
        p = verbs.add_parser(verb, help=text, description=text, prefix_chars="\0", add_help=False)
        p.add_argument("passthrough", nargs=argparse.REMAINDER)


def _remote_flags(verb: str, argv: list) -> tuple[argparse.Namespace, list]:
    p = argparse.ArgumentParser(prog=f"hermes sidecar {verb}", add_help=False)
    p.add_argument("--url", default="")
    p.add_argument("--json", action="store_true")
    p.add_argument("--local", action="store_true")
    p.add_argument("--remote", action="store_true")
    p.add_argument("--limit", type=int, default=remote.AUDIT_DEFAULT)
    return p.parse_known_args(argv)


def make_handler(load_settings: Callable[[], Settings]) -> Callable[[argparse.Namespace], None]:
    def handle(args: argparse.Namespace) -> None:
        sys.exit(run(args.sidecar_verb, args.passthrough, load_settings()))
    return handle


def run(verb: str, argv: list, settings: Settings) -> int:
    """Carry out one verb with its flags; returns the process exit code."""
    argv = _strip_separator(argv)
    if verb in LOCAL_ONLY:
        return _run_binary(settings, [verb, *argv])
    flags, unknown = _remote_flags(verb, argv)
    if (verb == "log" and flags.local) or (verb == "verify" and not flags.remote):
        return _run_binary(settings, [verb, *argv])
    if unknown:
        print(f"sidecar {verb}: unknown flag(s) {' '.join(unknown)}", file=sys.stderr)
        return 2
    try:
        client = SidecarClient(flags.url or settings.url, settings.token)
        return _remote_verb(verb, flags, client)
    except SidecarError as err:
        print(f"sidecar {verb}: {err}", file=sys.stderr)
        return 1


def _remote_verb(verb: str, args: argparse.Namespace, client: SidecarClient) -> int:
    if verb == "status":
        summary = remote.status_summary(client)
        print(json.dumps(summary, indent=2) if args.json else remote.format_status(summary))
        return 0
    client.health()
    if verb == "test":
        ok, line = remote.round_trip(client)
        print(line)
        return 0 if ok else 1
    if verb == "log":
        print(remote.format_decisions(remote.recent_decisions(client, args.limit)))
        return 0
    results = verify.run(client)
    print(verify.format_results(results))
    return 1 if any(why is not None for _, why in results) else 0


def _strip_separator(rest: list) -> list:
    return rest[1:] if rest[:1] == ["--"] else list(rest)


def _run_binary(settings: Settings, argv: list) -> int:
    binary = settings.binary_path()
    if binary is None:
        print(f"sidecar: the sidecar binary ({settings.binary!r}) was not found. Install it on this machine "
              "or set plugins.entries.sidecar.settings.binary to its path.", file=sys.stderr)
        return 127
    try:
        return subprocess.call([binary, *argv])
    except KeyboardInterrupt:
        return 130
