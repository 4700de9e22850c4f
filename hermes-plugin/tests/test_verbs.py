"""Settings, the CLI verbs, the /sidecar command and the agent tools, against the real daemon."""

from __future__ import annotations

import json

import pytest


@pytest.fixture
def mods(plugin):
    import sidecar_plugin.agent_tools as agent_tools
    import sidecar_plugin.commands as commands
    import sidecar_plugin.settings as settings
    import sidecar_plugin.verbs as verbs
    return settings, verbs, commands, agent_tools


def _settings(mods, daemon=None, **kw):
    base = {"url": daemon.url, "token": daemon.token} if daemon else {}
    return mods[0].Settings(**{**base, **kw})


def test_settings_precedence(mods, tmp_path):
    settings = mods[0]
    (tmp_path / ".env").write_text("OTHER=1\nexport SIDECAR_TOKEN='from-dotenv'\n")
    config = {"url": "http://127.0.0.1:9999", "timeout": "42", "token": "from-config", "temp_dir": " scratch "}
    get = lambda key, default=None: config.get(key, default)
    s = settings.Settings.load(get, environ={"SIDECAR_TOKEN": "from-env"}, hermes_home=tmp_path)
    assert (s.url, s.timeout, s.token, s.token_source) == ("http://127.0.0.1:9999", 42, "from-env", "environment")
    assert s.temp_dir == "scratch"
    s = settings.Settings.load(get, environ={}, hermes_home=tmp_path)
    assert (s.token, s.token_source) == ("from-dotenv", ".env")
    (tmp_path / ".env").unlink()
    s = settings.Settings.load(get, environ={}, hermes_home=tmp_path)
    assert (s.token, s.token_source) == ("from-config", "config")
    s = settings.Settings.load(lambda k, d=None: d, environ={"SIDECAR_URL": "http://h:1"}, hermes_home=tmp_path)
    assert (s.url, s.timeout, s.token, s.binary, s.temp_dir) == ("http://h:1", 300, "", "sidecar", "")


def test_status_verb(mods, daemon, capsys):
    _, verbs, _, _ = mods
    assert verbs.run("status", [], _settings(mods, daemon)) == 0
    out = capsys.readouterr().out
    assert f"at {daemon.url} (protocol 2" in out and f"workspace   {daemon.workspace}" in out
    assert verbs.run("status", ["--json"], _settings(mods, daemon)) == 0
    summary = json.loads(capsys.readouterr().out)
    assert (summary["approval"], summary["policy"]["allow_outside_workspace"]) == ("allow", False)


def test_test_and_log_verbs(mods, daemon, capsys):
    _, verbs, _, _ = mods
    assert verbs.run("test", [], _settings(mods, daemon)) == 0
    assert capsys.readouterr().out.startswith(f"PASS  {daemon.url} ran `echo` in {daemon.workspace}")
    assert verbs.run("log", ["--limit", "2"], _settings(mods, daemon)) == 0
    out = capsys.readouterr().out
    assert out.startswith("Last 2 of 2 audit records") and "'echo sidecar-test-" in out


def test_verify_remote(mods, daemon, capsys):
    _, verbs, _, _ = mods
    assert verbs.run("verify", ["--remote"], _settings(mods, daemon)) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "All 7 checks passed."
    assert "PASS  workspace escape denied" in out


def test_remote_verbs_report_faults(mods, daemon, free_port, capsys):
    _, verbs, _, _ = mods
    assert verbs.run("status", [], _settings(mods, daemon, token="0" * 64)) == 1
    assert "401 unauthorized" in capsys.readouterr().err
    assert verbs.run("test", ["--url", f"http://127.0.0.1:{free_port}"], _settings(mods, daemon)) == 1
    assert "connection refused" in capsys.readouterr().err
    assert verbs.run("status", ["--bogus"], _settings(mods, daemon)) == 2


def test_local_verbs_run_the_binary(mods, daemon, sidecar_bin, capfd):
    _, verbs, _, _ = mods
    s = _settings(mods, daemon, binary=str(sidecar_bin))
    assert verbs.run("pair", ["--state-dir", str(daemon.state_dir), "--url", daemon.url], s) == 0
    assert f"Token       {daemon.token}" in capfd.readouterr().out
    verbs.run("test", [], s)
    assert verbs.run("log", ["--local", "--state-dir", str(daemon.state_dir), "--limit", "1"], s) == 0
    assert "sidecar-test-" in capfd.readouterr().out
    assert verbs.run("pair", [], _settings(mods, daemon, binary="/no/such/sidecar")) == 127
    assert "binary ('/no/such/sidecar') was not found" in capfd.readouterr().err


def test_slash_command(mods, daemon):
    _, _, commands, _ = mods
    s = _settings(mods, daemon)
    assert commands.run("", s).startswith(f"Sidecar ")
    assert commands.run("test", s).startswith("PASS  ")
    assert commands.run("audit 1", s).startswith("Last 1 of 2 audit records")
    assert commands.run("audit x", s).startswith("audit limit must be a positive number")
    assert commands.run("frobnicate", s) == commands.USAGE
    assert commands.run("status", _settings(mods, daemon, token="")).startswith(
        "Sidecar status failed: No Sidecar token is configured.")


def test_agent_tools(mods, daemon):
    _, _, _, agent_tools = mods
    load = lambda: _settings(mods, daemon)
    status = json.loads(agent_tools.make_status_handler(load)({}))
    assert (status["workspace"], status["audit"]["enabled"]) == (str(daemon.workspace), True)
    from sidecar_plugin.client import SidecarClient
    SidecarClient(daemon.url, daemon.token).exec_command({"command": "echo secret-output; exit 3"}, read_timeout=30)
    audit = json.loads(agent_tools.make_audit_handler(load)({"limit": 2}))
    assert [r["event"] for r in audit["records"]] == ["decision", "result"]
    assert audit["records"][-1]["exit_code"] == 3
    assert "secret-output" not in json.dumps(audit).replace("echo secret-output", "")
    assert all("output" not in r for r in audit["records"])
    down = json.loads(agent_tools.make_audit_handler(lambda: _settings(mods, daemon, url="http://127.0.0.1:1"))({}))
    assert "connection refused" in down["error"]
    assert "limit must be an integer" in agent_tools.make_audit_handler(load)({"limit": "many"})
