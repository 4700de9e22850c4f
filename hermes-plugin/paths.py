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
