"""Lexical path checks shared by the environment and the remote verbs."""

from __future__ import annotations

import posixpath


def within(root: str, path: str) -> bool:
    """Report whether ``path`` is ``root`` or lies below it (both absolute, compared lexically).

    The daemon resolves symlinks before it answers, so the paths it reports
    are already physical; comparing them lexically is exact.
    """
    if not root or not path or not posixpath.isabs(path):
        return False
    root = posixpath.normpath(root)
    path = posixpath.normpath(path)
    return path == root or path.startswith(root.rstrip("/") + "/")


# Where Hermes stages execute_code on the daemon's machine when no `temp_dir` is set.
TEMP_DIR_DEFAULT = ".sidecar-tmp"


def resolve_temp_dir(setting: str, workspace: str) -> tuple[str, str]:
    """The temp dir for ``execute_code`` and what is wrong with ``setting`` ("" when nothing).

    A relative ``setting`` is relative to ``workspace``, the daemon's. ``~``
    would be the home directory on the daemon's machine, which Hermes cannot
    know, and a NUL cannot be in a path: either falls back to the default.
    """
    default = posixpath.join(workspace or "/", TEMP_DIR_DEFAULT)
    setting = (setting or "").strip()
    if not setting:
        return default, ""
    if setting.startswith("~"):
        return default, (f"temp_dir {setting!r} starts with ~, which is not expanded on the daemon's "
                         f"machine: give an absolute path or one relative to the workspace; using {default}")
    if "\0" in setting:
        return default, f"temp_dir {setting!r} contains a NUL byte; using {default}"
    path = posixpath.normpath(posixpath.join(workspace or "/", setting))
    return "/" + path.lstrip("/"), ""  # normpath keeps a leading "//"
