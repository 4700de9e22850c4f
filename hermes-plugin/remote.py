"""Read-only views of the daemon from Hermes's side: status, a round trip, the audit trail.

Shared by the ``hermes sidecar`` verbs, the ``/sidecar`` slash command and the
agent tools, so all three say the same thing in the same words.
"""

from __future__ import annotations

import secrets
from typing import Optional

from .client import SidecarClient

AUDIT_DEFAULT = 20
AUDIT_MAX = 1000


def status_summary(client: SidecarClient) -> dict:
    """The daemon, its workspace, the effective policy and the audit count (protocol checked first)."""
    client.health()
    st = client.status()
    policy = st.get("policy") or {}
    audit = st.get("audit") or {}
    daemon = st.get("daemon") or {}
    return {
        "url": client.url,
        "version": st.get("version"),
        "protocol": st.get("protocol"),
        "workspace": st.get("workspace"),
        "approval": st.get("approval"),
        "runtime": st.get("runtime"),
        "policy": {
            "mode": policy.get("mode"),
            "hard_deny": policy.get("hard_deny") or [],
            "safe_commands": len(policy.get("safe_commands") or []),
            "local_allow_rules": policy.get("allow_rules", 0),
            "local_deny_rules": policy.get("deny_rules", 0),
            "allow_outside_workspace": bool(policy.get("allow_outside_workspace")),
        },
        "timeouts": st.get("timeouts") or {},
        "max_output": st.get("max_output"),
        "audit": {"enabled": bool(audit.get("enabled")), "entries": audit.get("entries", 0),
                  "head": audit.get("head", "")},
        "daemon": {"pid": daemon.get("pid"), "started": daemon.get("started"),
                   "running": daemon.get("running")},
    }


def format_status(s: dict) -> str:
    policy, audit, timeouts = s["policy"], s["audit"], s["timeouts"]
    head = (audit.get("head") or "")[:16]
    lines = [
        f"Sidecar {s['version']} at {s['url']} (protocol {s['protocol']}, pid {s['daemon']['pid']})",
        f"  workspace   {s['workspace']}",
        f"  approval    {s['approval']} (runtime {s['runtime']})",
        f"  policy      {len(policy['hard_deny'])} hard-deny categories, {policy['safe_commands']} safe "
        f"commands, {policy['local_allow_rules']} local allow / {policy['local_deny_rules']} local deny "
        f"rules, outside workspace {'allowed' if policy['allow_outside_workspace'] else 'denied'}",
        f"  timeouts    default {timeouts.get('default')}s, max {timeouts.get('max')}s; "
        f"output kept {s['max_output']} bytes",
        f"  audit       {'on' if audit['enabled'] else 'OFF'}, {audit['entries']} entries, head {head or '-'}",
        f"  running     {s['daemon']['running']} command(s) now",
    ]
    return "\n".join(lines)


def round_trip(client: SidecarClient) -> tuple[bool, str]:
    """Run ``echo <nonce>`` (on the daemon's safe list, so never prompted) and check it came back."""
    nonce = "sidecar-test-" + secrets.token_hex(6)
    answer = client.exec_command({"command": f"echo {nonce}", "session": "sidecar-test"}, read_timeout=30)
    if answer.get("exit_code") != 0 or answer.get("output") != nonce + "\n":
        return False, (f"FAIL  {client.url}: exit {answer.get('exit_code')}, decision {answer.get('decision')} "
                       f"({answer.get('reason') or 'no reason'}), output {answer.get('output')!r}")
    return True, (f"PASS  {client.url} ran `echo` in {answer.get('cwd')} "
                  f"(exit 0, {answer.get('duration_ms')} ms)")


# Fields of an audit record shown to the agent: decisions and exit codes, never output
# (the daemon never stores output; this list also keeps out the hash chain plumbing).
_AUDIT_FIELDS = ("seq", "time", "event", "session", "command", "cwd", "decision", "approval", "rule",
                 "reason", "exit_code", "duration_ms", "output_bytes", "truncated")


def recent_decisions(client: SidecarClient, limit: Optional[int] = None) -> dict:
    """The newest ``limit`` audit records, oldest first, reduced to decisions and exit codes."""
    limit = max(1, min(int(limit or AUDIT_DEFAULT), AUDIT_MAX))
    body = client.audit(limit)
    records = [{k: r[k] for k in _AUDIT_FIELDS if k in r} for r in body.get("records") or []]
    return {"enabled": bool(body.get("enabled")), "entries": body.get("entries", 0), "records": records}


def format_decisions(view: dict) -> str:
    if not view["enabled"]:
        return "The daemon runs with --no-audit: there is no audit trail."
    if not view["records"]:
        return f"No audit records yet ({view['entries']} entries)."
    lines = [f"Last {len(view['records'])} of {view['entries']} audit records (oldest first):"]
    for r in view["records"]:
        outcome = f"exit {r['exit_code']}" if r.get("exit_code") is not None else ""
        why = f" — {r['reason']}" if r.get("reason") else ""
        lines.append(f"  #{r.get('seq')} {r.get('time', '')[:19]} {r.get('event', ''):8} "
                     f"{r.get('decision', ''):5} by {r.get('approval', '')} {outcome}  "
                     f"{r.get('command', '')!r}{why}")
    return "\n".join(lines)
