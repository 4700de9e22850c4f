"""The shapes of the commands Hermes's ``execute_code`` sends to a remote backend.

Written from the pinned Hermes (``tools/code_execution_tool.py``,
``code_execution_rpc.py``, ``code_kernel_remote.py``) so the ask-mode tests can
say which of them a person was asked about: each shape is a regular expression
for one whole command, anchored to the staging directory under the temp dir.
"""

from __future__ import annotations

import re
from collections import Counter

B64 = r"echo '[A-Za-z0-9+/=]+' \| base64 -d > "


def _q(path: str) -> str:
    """A path as ``shlex.quote`` may print it: bare, or in single quotes."""
    return f"(?:{path}|'{path}')"


def kernel_shapes(temp_dir: str) -> dict[str, str]:
    """The session-kernel path: a detached ``kernel_runner.py`` in ``hermes_rkernel_<hex>``, run cell by cell."""
    k = re.escape(temp_dir) + r"/hermes_rkernel_[0-9a-f]{12}"
    cells, rpc = _q(k + "/cells"), _q(k + "/rpc")
    cell_req = r"cell_req_\d{6}[.]json"
    return {
        "mkdir": f"mkdir -p {cells} {rpc}",
        "ship runner": B64 + _q(k + r"/kernel_runner\.py"),
        "ship tools": B64 + _q(k + r"/hermes_tools\.py"),
        "spawn": (f"cd {_q(k)} && nohup env HERMES_KERNEL_DIR=.* python3 kernel_runner" + r"\.py "
                  + f"> {_q(k)}/runner[.]log 2>&1 & echo PID:" + r"\$!"),
        "clear rpc": f"rm -f {rpc}/req_[*] {rpc}/res_[*]",
        "ship cell": B64 + _q(k + "/cells/" + cell_req + "[.]tmp"),
        "submit cell": f"mv {cells}/{cell_req}[.]tmp {cells}/{cell_req}",
        "write res": _res_write(k),
        "drop req": "rm -f " + _q(k + r"/rpc/req_\d{6}"),
        "drop cell res": f"rm -f {cells}/" + _q(r"cell_res_\d{6}\.json"),
        "stop runner": r"pkill -TERM -P \d+ 2>/dev/null; kill \d+ 2>/dev/null; true",
        "remove dir": "rm -rf " + _q(k),
    }


def per_call_shapes(temp_dir: str) -> dict[str, str]:
    """The per-call path: ``script.py`` shipped to ``hermes_exec_<hex>``, run once, the dir removed."""
    e = re.escape(temp_dir) + r"/hermes_exec_[0-9a-f]{12}"
    rpc = _q(e + "/rpc")
    return {
        "mkdir": f"mkdir -p {rpc}",
        "ship tools": B64 + _q(e + r"/hermes_tools\.py"),
        "ship script": B64 + _q(e + r"/script\.py"),
        "run script": (f"cd {_q(e)} && HERMES_RPC_DIR={rpc} HERMES_RPC_TOKEN=" + r"\S+ "
                       r"PYTHONDONTWRITEBYTECODE=1(?: TZ=\S+)? python3 script\.py"),
        "write res": _res_write(e),
        "drop req": "rm -f " + _q(e + r"/rpc/req_\d{6}"),
        "remove dir": "rm -rf " + _q(e),
    }


def _res_write(d: str) -> str:
    res = d + r"/rpc/res_\d{6}"
    tmp = _q(res + "[.]tmp")
    return B64 + f"{tmp} && mv {tmp} {_q(res)}"


# The reads Hermes repeats while a script runs: the request poll, reading a
# request, the session kernel's wait for a cell's result, and its liveness
# probe before each cell (signal 0 delivers nothing).
POLLS = {
    "kernel alive?": r"kill -0 \d+ 2>/dev/null && echo ALIVE",
    "poll requests": r"ls -1 .+/rpc'?/req_\* 2>/dev/null \|\| true",
    "read request": r"cat .+/rpc/req_\d{6}'?",
    "poll cell result": r"cat .+/cells'?/cell_res_\d{6}\.json 2>/dev/null",
}


def classify(commands: list[str], shapes: dict[str, str]) -> Counter:
    """How many commands have each shape; a command of no shape counts under ``unexpected: <command>``."""
    counts: Counter = Counter()
    for command in commands:
        name = next((n for n, rx in shapes.items() if re.fullmatch(rx, command, re.DOTALL)), None)
        counts[name or f"unexpected: {command[:200]}"] += 1
    return counts
