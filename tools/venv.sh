#!/bin/sh
# Create .venv with Python 3.11+ and install the project and its test tools.
# Installs Debian's python3-venv first when the interpreter cannot make a venv.
set -e
cd "$(dirname "$0")/.."
PY=${PYTHON:-$(command -v python3.11 || command -v python3)}
if [ -z "$PY" ]; then
    echo "carom: no python3 found; on Debian: apt-get install python3 python3-venv" >&2
    exit 1
fi
if [ ! -x .venv/bin/python ]; then
    if ! "$PY" -m venv .venv 2>/dev/null; then
        rm -rf .venv
        if command -v apt-get >/dev/null 2>&1; then
            SUDO=; [ "$(id -u)" = 0 ] || SUDO=sudo
            $SUDO apt-get update -q
            ver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
            $SUDO apt-get install -y -q "python$ver-venv" || $SUDO apt-get install -y -q python3-venv
            "$PY" -m venv .venv
        else
            echo "carom: '$PY -m venv' failed and there is no apt-get to install python3-venv" >&2
            exit 1
        fi
    fi
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
# pip's own warnings stay, but not "Location 'file:///...' is ignored": a machine whose pip
# configuration lists local index folders gets one pair of those per package a folder lacks
# (screens of them on the first `make sim`), and none says anything about this project.
log=$(mktemp)
status=0
.venv/bin/python -m pip install -q -e ".[test]" 2>"$log" || status=$?
grep -v "^WARNING: Location '.*' is ignored: it is neither a file nor a directory\.\$" "$log" >&2 || true
rm -f "$log"
[ "$status" = 0 ] || exit "$status"
touch .venv/.stamp
