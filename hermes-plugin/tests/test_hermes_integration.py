"""The real Hermes Agent (the pinned release from PyPI) driving real commands through a real daemon.

The plugin is installed the way a person installs it (``hermes plugins install``
from a Git source, ``--enable``), configured with ``hermes config set`` and a
token in Hermes's .env, and then Hermes's own tool functions are called the way
an agent turn calls them (``model_tools.handle_function_call``).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from conftest import PLUGIN_DIR, AutoApprover, Daemon
from exec_shapes import POLLS, classify, kernel_shapes, per_call_shapes

HERMES = Path(sys.executable).with_name("hermes")
HOME = Path(os.environ["HERMES_HOME"])
SANDBOX_TOOLS = ["terminal", "read_file", "write_file", "search_files", "patch"]


def hermes(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "NO_COLOR": "1", "TERM": "dumb"}
    proc = subprocess.run([str(HERMES), *args], capture_output=True, text=True, timeout=180,
                          stdin=subprocess.DEVNULL, env=env)
    if check:
        assert proc.returncode == 0, f"hermes {' '.join(args)} -> {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="module")
def daemon_m(sidecar_bin, tmp_path_factory):
    d = Daemon(sidecar_bin, tmp_path_factory.mktemp("allow-daemon"), "allow").start()
    (d.workspace / "sub").mkdir()
    yield d
    d.stop()


@pytest.fixture(scope="module")
def installed(daemon_m, tmp_path_factory):
    """Install + enable the plugin from a Git source, select the backend, give it the token."""
    assert HERMES.is_file(), f"{HERMES} missing: run the tests through hermes-plugin/run-tests.sh"
    repo = tmp_path_factory.mktemp("repo")
    shutil.copytree(PLUGIN_DIR, repo / "hermes-plugin",
                    ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t", "-c", "commit.gpgsign=false"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "plugin"], check=True)
    out = hermes("plugins", "install", f"file://{repo}#hermes-plugin", "--enable")
    assert "Plugin sidecar enabled" in out.stdout.replace("[bold]", "").replace("[/bold]", "")
    hermes("config", "set", "terminal.backend", "sidecar")
    # A failing execute_code should fail in a minute, not Hermes's default five.
    hermes("config", "set", "code_execution.timeout", "60")
    hermes("config", "set", "plugins.entries.sidecar.settings.url", daemon_m.url)
    (HOME / ".env").write_text(f"SIDECAR_TOKEN={daemon_m.token}\n")
    return daemon_m


@pytest.fixture(scope="module")
def call(installed):
    """Hermes's tool dispatch, after Hermes's own plugin discovery."""
    from hermes_cli.plugins import discover_plugins
    from model_tools import handle_function_call
    discover_plugins(force=True)

    def call_tool(name: str, args: dict, task_id: str = "it-main", **kw) -> dict:
        return json.loads(handle_function_call(name, args, task_id=task_id, **kw))
    return call_tool


def test_plugin_listed_enabled(installed):
    out = hermes("plugins", "list", "--plain", "--no-bundled").stdout
    line = next((line for line in out.splitlines() if "sidecar" in line), out)
    assert "enabled" in line.lower(), out


def test_validate_and_doctor(installed):
    assert "Validation passed." in hermes("plugins", "validate", str(PLUGIN_DIR)).stdout
    assert "OK: runtime discovery" in hermes("plugins", "doctor", "--ci", str(PLUGIN_DIR)).stdout
    assert "OK: runtime discovery" in hermes("plugins", "doctor", "--ci", "sidecar").stdout


def test_cli_verbs_are_wired(installed):
    assert f"workspace   {installed.workspace}" in hermes("sidecar", "status").stdout
    assert hermes("sidecar", "test").stdout.startswith(f"PASS  {installed.url}")
    assert "All 7 checks passed." in hermes("sidecar", "verify", "--remote").stdout


def test_terminal(call, installed):
    ws = str(installed.workspace)
    assert call("terminal", {"command": "pwd"})["output"] == ws
    r = call("terminal", {"command": "cd sub && pwd"})
    assert (r["exit_code"], r["output"]) == (0, f"{ws}/sub")
    assert call("terminal", {"command": "pwd"})["output"] == f"{ws}/sub"
    assert call("terminal", {"command": "echo failing; exit 7"})["exit_code"] == 7
    denied = call("terminal", {"command": "history -c"})
    assert denied["exit_code"] == 125
    assert denied["output"].startswith("Sidecar denied this command: clearing or disabling shell history")
    call("terminal", {"command": "cd .."})


def test_file_tools_on_disk(call, installed):
    ws = installed.workspace
    r = call("write_file", {"path": f"{ws}/notes/hello.py", "content": "def greet():\n    return 'hello'\n"})
    assert "error" not in r or not r["error"], r
    assert (ws / "notes" / "hello.py").read_text() == "def greet():\n    return 'hello'\n"
    r = call("read_file", {"path": f"{ws}/notes/hello.py"})
    assert "return 'hello'" in r["content"]
    r = call("patch", {"path": f"{ws}/notes/hello.py", "old_string": "'hello'", "new_string": "'hi there'"})
    assert not r.get("error"), r
    assert (ws / "notes" / "hello.py").read_text() == "def greet():\n    return 'hi there'\n"
    r = call("search_files", {"pattern": "hi there", "path": str(ws)})
    assert any("notes/hello.py" in json.dumps(m) for m in r.get("matches", [])), r


def test_execute_code_calls_back_into_tools(call, installed):
    ws = installed.workspace
    code = (
        "from hermes_tools import terminal, write_file, read_file\n"
        f"write_file(path={str(ws / 'from_code.txt')!r}, content='written by a script')\n"
        "print('terminal says', terminal('echo via-rpc')['output'].strip())\n"
        f"print('file says', read_file(path={str(ws / 'from_code.txt')!r})['content'])\n"
    )
    r = call("execute_code", {"code": code}, enabled_tools=SANDBOX_TOOLS)
    assert r["status"] == "success", r
    assert "terminal says via-rpc" in r["output"] and "written by a script" in r["output"]
    assert r["tool_calls_made"] == 3
    assert (ws / "from_code.txt").read_text() == "written by a script"


def test_slash_command_and_agent_tools(call, installed):
    from hermes_cli.plugins import get_plugin_command_handler
    handler = get_plugin_command_handler("sidecar")
    assert handler("status").startswith("Sidecar ")
    assert "Last 3 of " in handler("audit 3")
    status = call("sidecar_status", {})
    assert status["workspace"] == str(installed.workspace)
    audit = call("sidecar_audit", {"limit": 4})
    assert len(audit["records"]) == 4 and all("output" not in rec for rec in audit["records"])


def test_timeout_and_huge_output(call):
    r = call("terminal", {"command": "sleep 30", "timeout": 2})
    assert r["exit_code"] == 124 and "[Sidecar: timed out after 2s" in r["output"]
    r = call("terminal", {"command": "seq 1 3000000"})
    assert r["exit_code"] == 0 and len(r["output"]) < 200_000
    assert r["output"].startswith("1\n2\n3") and "TRUNCATED" in r["output"]


def test_daemon_restarted_mid_session(call, installed):
    call("terminal", {"command": "cd sub"}, task_id="it-restart")
    installed.restart()
    r = call("terminal", {"command": "pwd"}, task_id="it-restart")
    assert (r["exit_code"], r["output"]) == (0, f"{installed.workspace}/sub")


def test_daemon_down_mid_session(call, installed):
    call("terminal", {"command": "true"}, task_id="it-down")
    installed.stop()
    try:
        r = call("terminal", {"command": "pwd"}, task_id="it-down")
    finally:
        installed.start()
    assert r["exit_code"] == -1
    assert "Could not connect to the Sidecar daemon" in r["error"] and "may already have run" in r["error"]


def _with_setting(key: str, value: str):
    hermes("config", "set", f"plugins.entries.sidecar.settings.{key}", value)


@pytest.fixture
def new_session(call):
    """End Hermes's cached environment (as closing a session does), so the next call connects anew."""
    from tools.terminal_tool_lifecycle import cleanup_vm
    cleanup_vm("default")
    yield
    cleanup_vm("default")


def test_daemon_down_at_start(new_session, call, installed, free_port):
    _with_setting("url", f"http://127.0.0.1:{free_port}")
    try:
        r = call("terminal", {"command": "pwd"}, task_id="it-no-daemon")
    finally:
        _with_setting("url", installed.url)
    assert r.get("status") == "degraded", r
    assert "Sidecar backend unavailable: Could not connect" in r["error"] and "connection refused" in r["error"]


def test_wrong_url_and_wrong_token(new_session, call, installed, monkeypatch):
    import http.server
    import threading
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _with_setting("url", f"http://127.0.0.1:{server.server_address[1]}")
    try:
        wrong_url = call("terminal", {"command": "pwd"}, task_id="it-wrong-url")
    finally:
        _with_setting("url", installed.url)
        server.shutdown()
        server.server_close()
    assert wrong_url.get("status") == "degraded", wrong_url
    assert "it is not a Sidecar daemon" in wrong_url["error"]
    monkeypatch.setenv("SIDECAR_TOKEN", "0" * 64)
    wrong_token = call("terminal", {"command": "pwd"}, task_id="it-wrong-token")
    assert wrong_token["status"] == "degraded" and "401 unauthorized" in wrong_token["error"]


def test_denied_at_the_prompt(new_session, call, sidecar_bin, tmp_path):
    ask = Daemon(sidecar_bin, tmp_path / "ask", "ask").start()
    _with_setting("url", ask.url)
    try:
        os.environ["SIDECAR_TOKEN"] = ask.token
        r = call("terminal", {"command": "touch agent-was-here"}, task_id="it-ask")
    finally:
        os.environ.pop("SIDECAR_TOKEN", None)
        ask.stop()
    assert r["exit_code"] == 125, r
    assert r["output"].startswith("Sidecar denied this command: nobody could be asked")
    assert not (ask.workspace / "agent-was-here").exists()


# -- execute_code in ask mode ----------------------------------------------------


@pytest.fixture
def ask_daemon(new_session, call, installed, sidecar_bin, tmp_path):
    """An `ask` daemon as the backend; the test attaches its own approver."""
    d = Daemon(sidecar_bin, tmp_path / "ask-code", "ask").start()
    (d.workspace / "notes.txt").write_text("kept in the workspace\n")
    _with_setting("url", d.url)
    os.environ["SIDECAR_TOKEN"] = d.token
    yield d
    _with_setting("url", installed.url)
    os.environ.pop("SIDECAR_TOKEN", None)
    d.stop()


def _run_code_with_approver(d: Daemon, call, sidecar_bin, task: str, decide) -> tuple[dict, AutoApprover]:
    """execute_code with a script calling back into two tools, then the kernel disposed, all answered by ``decide``.

    Each test has its own ``task``: Hermes remembers a task's last directory
    and sends it with the next command, and the last test's workspace is
    outside this daemon's.
    """
    from tools.code_kernel_remote import shutdown_remote_kernels_for_owner
    code = ("from hermes_tools import read_file, terminal\n"
            f"print('file says', read_file(path={str(d.workspace / 'notes.txt')!r})['content'].strip())\n"
            "print('terminal says', terminal('echo via-rpc')['output'].strip())\n")
    approver = AutoApprover(sidecar_bin, d.state_dir, decide).start()
    try:
        result = call("execute_code", {"code": code}, task_id=task, enabled_tools=SANDBOX_TOOLS)
        shutdown_remote_kernels_for_owner(task)  # what ending the Hermes session does
    finally:
        approver.stop()
    assert approver.errors == [] and all(ok for _, _, ok in approver.answered), approver.answered
    return result, approver


def _decisions(d: Daemon) -> list[dict]:
    lines = (d.state_dir / "audit.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r.get("event") == "decision"]


def _assert_polls_ran_unprompted(d: Daemon, approver: AutoApprover) -> None:
    prompted = approver.commands()
    assert [c for c in prompted if _is_poll(c)] == [], f"a poll waited for a person: {prompted}"
    decisions = _decisions(d)
    # Everything the person was asked is exactly what the approver answered (the log redacts tokens)...
    asked = Counter(_unredacted(r["command"]) for r in decisions if r["approval"] == "user")
    assert asked == Counter(map(_unredacted, prompted))
    # ...and the polls did run, decided by the policy alone.
    polls = classify([r["command"] for r in decisions if r["approval"] == "policy"], POLLS)
    assert polls["poll requests"] >= 1 and polls["read request"] == 2, polls
    assert all(r["decision"] == "allow" for r in decisions if _is_poll(r["command"])), decisions


def _unredacted(command: str) -> str:
    return re.sub(r"(HERMES_RPC_TOKEN)=\S+", r"\1=…", command)


def _is_poll(command: str) -> bool:
    return any(re.fullmatch(rx, command, re.DOTALL) for rx in POLLS.values())


def _assert_script_ran(result: dict) -> None:
    assert result["status"] == "success", result
    assert "file says 1|kept in the workspace" in result["output"], result  # read_file numbers lines
    assert "terminal says via-rpc" in result["output"], result
    assert result["tool_calls_made"] == 2


def test_execute_code_in_ask_mode_polls_without_a_prompt(ask_daemon, call, sidecar_bin):
    """Hermes's session kernel, staged in <workspace>/.sidecar-tmp: only its writes and processes ask."""
    result, approver = _run_code_with_approver(ask_daemon, call, sidecar_bin, "it-ask-kernel", lambda _: "y")
    _assert_script_ran(result)
    temp = ask_daemon.workspace / ".sidecar-tmp"
    assert classify(approver.commands(), kernel_shapes(str(temp))) == Counter({
        "mkdir": 1, "ship runner": 1, "ship tools": 1, "spawn": 1, "clear rpc": 1,
        "ship cell": 1, "submit cell": 1, "write res": 2, "drop req": 2, "drop cell res": 1,
        "stop runner": 1, "remove dir": 1}), approver.commands()
    _assert_polls_ran_unprompted(ask_daemon, approver)
    probes = classify([r["command"] for r in _decisions(ask_daemon) if r["approval"] == "policy"], POLLS)
    assert probes["kernel alive?"] == 1, probes
    assert list(temp.iterdir()) == []  # the kernel's dir went with the kernel


def test_execute_code_per_call_in_ask_mode(ask_daemon, call, sidecar_bin):
    """The person refuses the detached kernel; Hermes falls back to one script run in hermes_exec_<hex>."""
    result, approver = _run_code_with_approver(
        ask_daemon, call, sidecar_bin, "it-ask-per-call", lambda command: "n" if " nohup " in command else "y")
    _assert_script_ran(result)
    temp = str(ask_daemon.workspace / ".sidecar-tmp")
    kernel, per_call = kernel_shapes(temp), per_call_shapes(temp)
    spawn_attempt = [c for c in approver.commands() if not re.fullmatch(r".*hermes_exec_.*", c, re.DOTALL)]
    assert classify(spawn_attempt, kernel) == Counter({
        "mkdir": 1, "ship runner": 1, "ship tools": 1, "spawn": 1, "remove dir": 1}), spawn_attempt
    assert [choice for _, choice, _ in approver.answered if choice == "n"] == ["n"]
    run = [c for c in approver.commands() if c not in spawn_attempt]
    assert classify(run, per_call) == Counter({
        "mkdir": 1, "ship tools": 1, "ship script": 1, "run script": 1, "write res": 2, "drop req": 2,
        "remove dir": 1}), run
    _assert_polls_ran_unprompted(ask_daemon, approver)
    assert list((ask_daemon.workspace / ".sidecar-tmp").iterdir()) == []  # Hermes removed hermes_exec_*
