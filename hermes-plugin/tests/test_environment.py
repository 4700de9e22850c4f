"""SidecarEnvironment and SidecarProvider against the real daemon, with Hermes's own base classes."""

from __future__ import annotations

import concurrent.futures
import signal
import threading
import time

import pytest
from tools.environments.base import EnvironmentConnectionError


@pytest.fixture
def provider_for(plugin):
    from sidecar_plugin.provider import SidecarProvider
    from sidecar_plugin.settings import Settings

    def make(url: str, token: str, **extra):
        return SidecarProvider(lambda: Settings(url=url, token=token, token_source="environment", **extra))
    return make


@pytest.fixture
def env(daemon, provider_for):
    return provider_for(daemon.url, daemon.token).create_environment(cwd="/root", timeout=30, task_id="t1")


def _run(env, command, **kw):
    r = env.execute(command, **kw)
    return r["returncode"], r["output"], r["cwd"]


def test_provider_flags(provider_for, daemon):
    p = provider_for(daemon.url, daemon.token)
    assert (p.name, p.is_remote, p.is_container, p.skip_container_guards) == ("sidecar", True, False, False)
    assert "SIDECAR_TOKEN" in p.strip_env_keys
    assert p.is_available()
    assert not provider_for(daemon.url, "").is_available()


def test_create_ignores_unknown_keywords(provider_for, daemon):
    env = provider_for(daemon.url, daemon.token).create_environment(
        cwd="/root", timeout=10, task_id="x/y z", image="ubuntu", container_config={"cpu": 2},
        some_future_argument=True)
    assert env.session == "hermes-x-y-z"
    assert env.cwd == str(daemon.workspace)


def test_cwd_persists_and_exit_codes_survive(env, daemon):
    (daemon.workspace / "sub").mkdir()
    ws, sub = str(daemon.workspace), str(daemon.workspace / "sub")
    assert _run(env, "pwd") == (0, ws + "\n", ws)
    assert _run(env, "cd sub && pwd") == (0, sub + "\n", sub)
    assert _run(env, "pwd") == (0, sub + "\n", sub)
    assert _run(env, "exit 7", cwd=sub)[0] == 7
    assert env.cwd == sub


def test_hermes_plumbing_cwd_slash_runs_in_the_session(env, daemon):
    """Hermes runs execute_code's probes with cwd="/"; the daemon would refuse "/" outright."""
    code, out, _ = _run(env, "pwd", cwd="/")
    assert (code, out) == (0, f"{daemon.workspace}\n")


def test_relative_cwd_is_joined_to_the_session(env, daemon):
    (daemon.workspace / "a" / "b").mkdir(parents=True)
    assert _run(env, "pwd", cwd="a/b")[1] == f"{daemon.workspace}/a/b\n"


def test_leaving_the_workspace_does_not_move_the_session(env, daemon):
    code, out, cwd = _run(env, "cd /tmp && pwd", bounded_capture=True)
    assert (code, cwd) == (0, str(daemon.workspace))
    assert out.startswith("/tmp\n")
    assert f"ended in /tmp, outside the workspace; the next command starts in {daemon.workspace}" in out
    assert _run(env, "pwd")[1] == f"{daemon.workspace}\n"


def test_hard_deny_comes_back_as_125_with_the_reason(env):
    code, out, _ = _run(env, "sudo id")
    assert code == 125
    assert out.startswith("Sidecar denied this command: privilege escalation (sudo)")


def test_explicit_cwd_outside_is_denied_by_the_daemon(env):
    code, out, _ = _run(env, "pwd", cwd="/etc")
    assert code == 125
    assert "working directory /etc is outside the workspace" in out


def test_missing_cwd_is_126(env, daemon):
    code, out, _ = _run(env, "pwd", cwd=str(daemon.workspace / "gone"))
    assert code == 126
    assert out.startswith("Sidecar could not use the working directory")


def test_stdin_reaches_the_command(env):
    assert _run(env, "wc -c", stdin_data="12345")[:2] == (0, "5\n")


def test_timeout_is_124_and_marked_as_hermes_deadline(env):
    r = env.execute("sleep 20", timeout=1)
    assert r["returncode"] == 124
    assert r["hermes_timed_out"] is True
    assert "[Sidecar: timed out after 1s; the command's process group was killed]" in r["output"]


def test_command_exiting_124_itself_is_not_a_timeout(env):
    r = env.execute("exit 124")
    assert (r["returncode"], "hermes_timed_out" in r) == (124, False)


def test_huge_output_is_bounded_head_and_tail(env):
    from tools.tool_output_limits import get_max_bytes
    r = env.execute("seq 1 2000000", bounded_capture=True)
    assert r["returncode"] == 0
    assert len(r["output"]) < get_max_bytes() + 500
    assert r["output"].startswith("1\n2\n3\n")
    assert "[OUTPUT TRUNCATED" in r["output"]  # Hermes's window kept the daemon's own tail note


def test_concurrent_calls(env):
    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda i: env.execute(f"sleep 0.3; echo {i}")["output"], range(16)))
    assert results == [f"{i}\n" for i in range(16)]


def test_interrupt_cancels_the_command_on_the_daemon(env, daemon):
    from tools.interrupt import set_interrupt
    box = {}

    def run():
        box["tid"] = threading.get_ident()
        box["result"] = env.execute("sleep 30; echo never", timeout=60)

    t = threading.Thread(target=run)
    start = time.monotonic()
    t.start()
    time.sleep(1.0)
    set_interrupt(True, box["tid"])
    try:
        t.join(15)
    finally:
        set_interrupt(False, box["tid"])
    assert not t.is_alive() and time.monotonic() - start < 15
    r = box["result"]
    assert (r["returncode"], r["hermes_interrupted"]) == (130, True)
    assert "cancelled by request" in r["output"] and r["output"].endswith("[Command interrupted]")


def test_daemon_down_is_a_connection_error(provider_for, free_port):
    with pytest.raises(EnvironmentConnectionError) as info:
        provider_for(f"http://127.0.0.1:{free_port}", "t" * 64).create_environment(cwd="", timeout=5)
    assert "connection refused" in info.value.reason


def test_wrong_token_is_a_connection_error(provider_for, daemon):
    with pytest.raises(EnvironmentConnectionError) as info:
        provider_for(daemon.url, "0" * 64).create_environment(cwd="", timeout=5)
    assert "401 unauthorized" in info.value.reason and "SIDECAR_TOKEN" in info.value.reason


def test_daemon_restart_mid_session(env, daemon):
    (daemon.workspace / "sub").mkdir()
    _run(env, "cd sub")
    daemon.restart()
    assert _run(env, "pwd") == (0, f"{daemon.workspace}/sub\n", f"{daemon.workspace}/sub")


def test_daemon_stopped_while_a_command_runs(env, daemon):
    box = {}
    t = threading.Thread(target=lambda: box.setdefault("r", env.execute("sleep 30", timeout=60)))
    t.start()
    time.sleep(1.0)
    daemon.stop(signal.SIGTERM)
    t.join(20)
    assert not t.is_alive()
    assert box["r"]["returncode"] == 130
    assert "the daemon is shutting down" in box["r"]["output"]
    with pytest.raises(EnvironmentConnectionError) as info:
        env.execute("pwd")
    assert "connection refused" in info.value.reason and "may already have run" in info.value.reason


def test_daemon_killed_while_a_command_runs(env, daemon):
    box = {}

    def run():
        try:
            env.execute("sleep 30", timeout=60)
        except EnvironmentConnectionError as err:
            box["err"] = err

    t = threading.Thread(target=run)
    t.start()
    time.sleep(1.0)
    daemon.stop(signal.SIGKILL)
    t.join(20)
    assert not t.is_alive()
    assert "broke before it answered" in box["err"].reason
    assert "may already have run" in box["err"].reason


def test_probe_is_quick_even_when_the_daemon_is_gone(provider_for, daemon, free_port):
    start = time.monotonic()
    assert provider_for(daemon.url, daemon.token).probe()[0] == "ready"
    status, detail = provider_for(f"http://127.0.0.1:{free_port}", "t" * 64).probe()
    assert status == "unavailable" and "connection refused" in detail
    assert provider_for(daemon.url, "").probe()[0] == "needs_setup"
    assert time.monotonic() - start < 2.0


def test_doctor_checks(provider_for, daemon):
    rows = provider_for(daemon.url, daemon.token, workspace="/elsewhere").doctor_checks()
    assert [(ok, label) for ok, label, _ in rows] == [
        (True, "Sidecar token"), (True, "Sidecar daemon"), (False, "Sidecar workspace")]
    assert rows[2][2] == f"configured /elsewhere, daemon serves {daemon.workspace}"


@pytest.mark.parametrize("setting, want, problem", [
    ("", "{ws}/.sidecar-tmp", ""),
    ("  ", "{ws}/.sidecar-tmp", ""),
    ("build/tmp", "{ws}/build/tmp", ""),
    ("./a/../b/", "{ws}/b", ""),
    ("{ws}/abs", "{ws}/abs", ""),
    ("/var/tmp/x", "/var/tmp/x", ""),
    ("//srv//x", "/srv/x", ""),
    ("../outside", "{parent}/outside", ""),
    ("~/tmp", "{ws}/.sidecar-tmp", "starts with ~, which is not expanded on the daemon's machine"),
    ("~", "{ws}/.sidecar-tmp", "starts with ~"),
    ("a\0b", "{ws}/.sidecar-tmp", "contains a NUL byte"),
])
def test_resolve_temp_dir(plugin, setting, want, problem):
    from sidecar_plugin.paths import resolve_temp_dir
    ws = "/home/me/project"
    fill = dict(ws=ws, parent="/home/me")
    path, why = resolve_temp_dir(setting.format(**fill), ws)
    assert path == want.format(**fill)
    assert (problem in why) if problem else why == "", why


def test_temp_dir_defaults_inside_the_workspace(env, daemon):
    from tools.code_execution_tool import _env_temp_dir  # where execute_code stages its sandbox
    temp = f"{daemon.workspace}/.sidecar-tmp"
    assert env.get_temp_dir() == temp
    assert _env_temp_dir(env) == temp
    assert env._snapshot_path.startswith(temp + "/")  # what Hermes's base __init__ asked for


@pytest.mark.parametrize("setting, want", [
    ("scratch/hermes", "{ws}/scratch/hermes"),
    ("{ws}/elsewhere/tmp", "{ws}/elsewhere/tmp"),
    ("~/tmp", "{ws}/.sidecar-tmp"),
])
def test_temp_dir_setting(provider_for, daemon, setting, want):
    ws = str(daemon.workspace)
    env = provider_for(daemon.url, daemon.token, temp_dir=setting.format(ws=ws)).create_environment(
        cwd="/root", timeout=10)
    assert env.get_temp_dir() == want.format(ws=ws)


def test_temp_dir_before_init_is_hermes_default(plugin):
    """Asked before __init__ has run (Hermes's base class asks from its own __init__)."""
    from sidecar_plugin.environment import SidecarEnvironment
    assert SidecarEnvironment.__new__(SidecarEnvironment).get_temp_dir() == "/tmp"


@pytest.mark.parametrize("setting, want", [
    ("~/tmp", "temp_dir '~/tmp' starts with ~, which is not expanded on the daemon's machine: give an "
              "absolute path or one relative to the workspace; using {ws}/.sidecar-tmp"),
    ("/var/tmp/hermes", "/var/tmp/hermes is outside the workspace {ws}: in ask mode the person is asked "
                        "about every execute_code poll (ten a second), in read-only mode they are refused"),
])
def test_doctor_flags_the_temp_dir(provider_for, daemon, setting, want):
    rows = provider_for(daemon.url, daemon.token, temp_dir=setting).doctor_checks()
    assert rows[-1] == (False, "Sidecar temp dir", want.format(ws=daemon.workspace))


def test_doctor_accepts_a_temp_dir_in_the_workspace(provider_for, daemon):
    rows = provider_for(daemon.url, daemon.token, temp_dir="scratch").doctor_checks()
    assert [label for _, label, _ in rows] == ["Sidecar token", "Sidecar daemon"]


def test_ask_mode_without_a_terminal_is_denied_not_hung(make_daemon, provider_for):
    d = make_daemon("ask", name="ask")
    env = provider_for(d.url, d.token).create_environment(cwd="", timeout=30)
    code, out, _ = _run(env, "touch made-by-agent")
    assert code == 125
    assert out.startswith("Sidecar denied this command: nobody could be asked")
    assert not (d.workspace / "made-by-agent").exists()
