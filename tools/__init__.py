"""The repository's own tools, never shipped in the carom package (pyproject.toml ships host_tools only).

venv.sh, deps.sh  the development environment (.venv, and the Debian packages the tests use)
pictures.py       `make pictures` (`python -m tools.pictures`): the docs' pictures, from the running software
bench/            `make bench` (`python -m tools.bench`): the figures, measured, never asserted
hall/             simulated boards for the hall: loadgen.py (tables publishing real state documents,
                  for the tests, the benchmark and a demo) and tourneyrun.py (a tournament played on them)
run/              the software started as a person starts it (the waits, `carom sim` and `carom hall` and
                  their pages, mosquitto, Chromium): what the host tests and the tools share
"""
