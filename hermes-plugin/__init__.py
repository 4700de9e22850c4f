"""Sidecar for Hermes: run the agent's commands on a person's machine through a consent gate.

``register`` wires the plugin into Hermes: the ``sidecar`` terminal backend,
the ``hermes sidecar`` CLI verbs, the ``/sidecar`` slash command and the
``sidecar_status`` / ``sidecar_audit`` tools. Everything is a thin translation
to Sidecar protocol 2; the policy, the prompt and the audit log live in the
daemon.
"""

from __future__ import annotations

from . import agent_tools, commands, verbs
from .settings import Settings

__version__ = "0.1.0"


def register(ctx) -> None:
    """Hermes plugin entry point."""
    from .provider import SidecarProvider  # imports Hermes's base classes

    def load_settings() -> Settings:
        return Settings.load(ctx.get_config)

    ctx.register_terminal_environment_provider(SidecarProvider(load_settings))
    ctx.register_cli_command(
        "sidecar", help="Sidecar: run and check the consent-gated command daemon",
        setup_fn=verbs.setup_parser, handler_fn=verbs.make_handler(load_settings),
        description="Local verbs (serve, pair, demo, log --local, verify) run the sidecar binary; "
                    "status, test, log and verify --remote talk to the configured daemon.")
    ctx.register_command("sidecar", handler=commands.make_handler(load_settings),
                         description="Sidecar daemon: status, a test round trip, or the audit trail",
                         args_hint="status|test|audit [limit]")
    ctx.register_tool(name="sidecar_status", toolset=agent_tools.TOOLSET, schema=agent_tools.STATUS_SCHEMA,
                      handler=agent_tools.make_status_handler(load_settings),
                      description=agent_tools.STATUS_SCHEMA["description"], emoji="🛡️")
    ctx.register_tool(name="sidecar_audit", toolset=agent_tools.TOOLSET, schema=agent_tools.AUDIT_SCHEMA,
                      handler=agent_tools.make_audit_handler(load_settings),
                      description=agent_tools.AUDIT_SCHEMA["description"], emoji="📜")
