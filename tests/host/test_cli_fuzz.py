"""The command line, fuzzed: random arguments for each subcommand and random files.

Every run must end with exit status 0, or with a `carom: ...` line last on stderr and a
non-zero status; never a traceback, nor carom's own "internal error" line (a bug caught by
cli.main's last resort). Runs are in-process (`host_tools.cli.main(argv)`, fast), a few as
subprocesses. Commands that would talk to a board get a port that does not exist, a socket
nobody listens on, pyserial's loop:// or a silent pty, with `--timeout` 0.3 s. Files given to
--script, `config import`, `flash --firmware` and as --flash are random: empty, binary, not
UTF-8, JSON near the config schema, and huge. `carom hall` (another team's) is left out, as is
the simulator page (it serves until Ctrl-C): its argument errors are tried in a subprocess.
"""

import contextlib
import hashlib
import io
import json
import os
import re
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from helpers import Pty
from host_tools import ROOT, cli

pytest.importorskip("mpremote")

FUZZ = settings(
    max_examples=int(os.environ.get("CAROM_FUZZ_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
TIMEOUT = ["--timeout", "0.3"]


@pytest.fixture(scope="module")
def place(tmp_path_factory):
    """A folder to run in, a file in it, and a silent pty: shared by the examples."""
    work = tmp_path_factory.mktemp("fuzz")
    (work / "afile").write_bytes(b"not a folder")
    pty = Pty()
    yield {"work": str(work), "pty": pty.path}
    pty.close()


def run_main(argv, cwd, stdin=b""):
    """cli.main(argv) in this process, in `cwd`, with `stdin` bytes: (status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    old_stdin, old_cwd = sys.stdin, os.getcwd()
    sys.stdin = io.TextIOWrapper(io.BytesIO(stdin), encoding="utf-8")
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except SystemExit as e:  # argparse: --help, --version, a usage error
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)
    return code, out.getvalue(), err.getvalue()


def assert_clean(argv, code, out, err, record=True):
    last = (err.strip().split("\n") or [""])[-1]
    if record:
        event("exit %s: %s" % (code, re.sub(r"/\S+|'[^']*'|\d+", "_", last)[:60]))  # what the runs came to
    said = "argv %r\nexit %r\nstdout:\n%s\nstderr:\n%s" % (argv, code, out[-2000:], err[-2000:])
    assert "Traceback" not in err and "Traceback" not in out, said
    assert "internal error" not in err, said
    if code != 0:
        lines = err.strip().split("\n")
        assert lines and lines[-1].startswith("carom: "), said


# ---- values -------------------------------------------------------------------------------------


def text(max_size=24):
    return st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=max_size)


def junk():
    """A free word: random text that is not an option (no leading '-'), or a known bad option."""
    return st.one_of(
        text().filter(lambda t: not t.startswith("-")), st.sampled_from(["-", "--", "-x", "--nope", "--=", "-h"])
    )


CONFIG_KEYS = ["board", "name", "players", "match", "display", "sound", "buttons", "wifi", "mqtt", "radio", "x"]
JSON_LEAF = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**12), 10**12),
    st.floats(allow_nan=False),
    text(12),
    st.sampled_from(["wall", "mini", "referee", "***", "three_cushion", "on"]),
)
JSON_DOC = st.recursive(
    JSON_LEAF,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.sampled_from(CONFIG_KEYS + ["brightness", "target", "A", "name", "game"]), text(8)),
            inner,
            max_size=5,
        ),
    ),
    max_leaves=20,
)


def contents():
    """A file's bytes: empty, binary, not UTF-8, text, referee lines, JSON near the schema, huge."""
    return st.one_of(
        st.just(b""),
        st.binary(max_size=3000),
        st.binary(min_size=1, max_size=200).map(lambda b: b"\xff\xfe" + b + b"\n\xc3("),
        text(400).map(lambda t: t.encode("utf-8")),
        st.lists(
            st.sampled_from(
                [
                    "point",
                    "miss A",
                    "new game=three_cushion target=3",
                    "lag A",
                    "undo",
                    "# c",
                    "press A.point",
                    "wait 1",
                    'name_A="K',
                    "\t",
                    "foul A touched",
                    "\xe9",
                ]
            ),
            max_size=12,
        ).map(lambda ls: "\n".join(ls).encode("utf-8")),
        JSON_DOC.map(lambda d: json.dumps(d).encode("utf-8")),
        st.dictionaries(st.sampled_from(CONFIG_KEYS), JSON_DOC, max_size=4).map(
            lambda d: json.dumps(dict(d, board="wall")).encode("utf-8")
        ),
        st.integers(1, 3).map(lambda k: b"\xe9" + (b"point " * 40000 * k) + b"\n"),  # a huge line, and not UTF-8
        st.integers(1, 2).map(lambda k: b"\xe9" * (600000 * k)),
        st.just(b"\xe9\x00\x01\x02\x03\x1a" * 4096),
    )


def a_file(work):
    """A path in `work` to a file of random contents (written when drawn), or a path that is not a file."""

    def write(data):
        path = os.path.join(work, "f-" + hashlib.sha256(data).hexdigest()[:16])
        with open(path, "wb") as f:
            f.write(data)
        return path

    return st.one_of(
        contents().map(write),
        st.sampled_from([os.path.join(work, "missing.txt"), work, "/proc/nope", os.path.join(work, "afile", "x"), ""]),
    )


def devices(place, pty=True):
    choices = [os.path.join(place["work"], "ttyNONE"), "socket://127.0.0.1:1", "", " ", "loop://", "nosuch://x"]
    if pty:
        choices.append(place["pty"])
    return st.sampled_from(choices)


def options(table):
    """A random argv from {option: strategy of its value, or None for a flag}, in random order."""
    items = []
    for name, values in table.items():
        items.append(st.just([name]) if values is None else values.map(lambda v, n=name: ["%s=%s" % (n, v)]))
    maybe_junk = st.one_of(st.just([]), st.just([]), st.just([]), junk().map(lambda w: [w]))  # mostly none
    return st.tuples(st.lists(st.one_of(*items), max_size=5), maybe_junk).map(
        lambda parts: [w for part in parts[0] for w in part] + parts[1]
    )


# ---- each subcommand ----------------------------------------------------------------------------


def on_a_device(place, data, command, args, table):
    """`carom COMMAND --device=DEVICE ARGS OPTIONS --timeout 0.3` in the work folder, DEVICE and
    OPTIONS (of `table`) drawn: it ends cleanly."""
    argv = [command, "--device=%s" % data.draw(devices(place))] + args + data.draw(options(table)) + TIMEOUT
    assert_clean(argv, *run_main(argv, place["work"]))


@FUZZ
@given(data=st.data())
def test_config(place, data):
    """`carom config` with random actions, settings and import/export files."""
    work = place["work"]
    actions = st.sampled_from(["show", "get", "set", "import", "export"])
    action = data.draw(st.one_of(actions, actions, actions, junk()))
    args = data.draw(
        st.lists(
            st.one_of(
                st.sampled_from(
                    [
                        "display.brightness=16",
                        "display.brightness=3",
                        "players.A.name=KIM",
                        "match.target=-1",
                        "nokey=1",
                        "=",
                        "display.brightness",
                        "match.target",
                        "wifi.password",
                        "-",
                        os.path.join(work, "afile"),
                        os.path.join(work, "out.json"),
                        os.path.join(work, "no", "x"),
                    ]
                ),
                a_file(work),
                junk(),
            ),
            max_size=3,
        )
    )
    wait = st.sampled_from(["0", "0.1", "x", "-1", "nan"])
    on_a_device(place, data, "config", [action] + args, {"--secrets": None, "--no-reset": None, "--wait": wait})


@FUZZ
@given(data=st.data())
def test_report(place, data):
    """`carom report` with random formats, --out places and --match numbers."""
    work = place["work"]
    table = {
        "--format": st.one_of(st.sampled_from(["json", "csv,html", "all", "pdf", "docx", ",", ""]), text(8)),
        "--out": st.one_of(
            st.sampled_from(
                [
                    work,
                    os.path.join(work, "afile"),
                    os.path.join(work, "afile", "x"),
                    os.path.join(work, "new"),
                    "",
                    "/proc/nope",
                ]
            ),
            text(8),
        ),
        "--match": st.one_of(st.integers(-5, 10**20).map(str), text(6)),
        "--no-reset": None,
    }
    on_a_device(place, data, "report", [], table)


@FUZZ
@given(data=st.data())
def test_doctor_deploy_pair(place, data):
    """`carom doctor`, `deploy` and `pair` with random options and ports."""
    work = place["work"]
    command = data.draw(st.sampled_from(["doctor", "deploy", "pair"]))
    table = {"--no-reset": None, "--wait": st.sampled_from(["0", "0.1", "x", "-1", "nan", "1e309"])}
    if command == "deploy":
        board = st.one_of(st.sampled_from(["wall", "mini", "referee", "nope", "../x", ""]), text(8))
        table.update({"--board": board, "--source": None})
    if command == "pair":
        table = {"--wall": devices(place), "--remote": devices(place), "--device": devices(place), "--unpair": None}
        argv = [command] + data.draw(options(table)) + TIMEOUT
        assert_clean(argv, *run_main(argv, work))
    else:
        args = ["--board=%s" % data.draw(board)] if command == "deploy" else []
        on_a_device(place, data, command, args, table)


@FUZZ
@given(data=st.data())
def test_flash(place, data):
    """`carom flash` with random firmware files (a port that does not exist: nothing is written)."""
    work = place["work"]
    argv = [
        "flash",
        "--device=%s" % data.draw(devices(place, pty=False).filter(lambda d: d != "loop://")),
        "--firmware=%s" % data.draw(a_file(work)),
    ] + data.draw(
        options({"--erase": None, "--baud": st.one_of(st.integers(-10, 10**7).map(str), text(5)), "--verbose": None})
    )
    assert_clean(argv, *run_main(argv, work))


@FUZZ
@given(data=st.data())
def test_sim_headless(place, data):
    """`carom sim --headless` with random scripts and stdin, --board, --flash, --micropython, --heap."""
    work = place["work"]
    argv = ["sim", "--headless"] + data.draw(
        options(
            {
                "--script": a_file(work),
                "--cpython": None,
                "--pretty": None,
                "--board": st.sampled_from(["nope", "../boards/wall", "", "wall"]),
                "--flash": st.one_of(a_file(work), st.sampled_from([os.path.join(work, "flash")])),
                "--micropython": st.sampled_from(["32", "/nonexistent/mp", "nope", "/bin/true", ""]),
                "--heap": st.one_of(st.sampled_from(["112K", "0", "1G", "x", "-5", "1e3K"]), text(5)),
                "--source": None,
                "--boards": st.sampled_from(["0", "2", "x"]),
                "--remote": None,
            }
        )
    )
    stdin = data.draw(contents())
    if "--board=wall" in argv and len(stdin) > 3000:  # the virtual board takes each line in virtual time
        stdin = stdin[:3000]
    assert_clean(argv, *run_main(argv, work, stdin))


@FUZZ
@given(
    argv=st.lists(
        st.one_of(junk(), st.sampled_from(["sim", "config", "report", "--version", "--help", "-h"])), max_size=4
    )
)
def test_top_level(place, argv):
    """`carom` with random words: no command, an unknown one, --help, --version."""
    if argv and argv[0] in ("hall",):
        return
    if argv[:1] == ["sim"] and "--headless" not in argv and not any(w in argv for w in ("-h", "--help")):
        argv = argv + ["--boards=0"]  # the page would serve until Ctrl-C: an argument it refuses
    assert_clean(argv, *run_main(argv, place["work"]))


# ---- a few as subprocesses ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "args, stdin",
    [
        (["sim", "--boards", "0"], b""),
        (["sim", "--listen", "nohost"], b""),
        (["sim", "--listen", "127.0.0.1:99999"], b""),
        (["sim", "--headless", "--board", "mini"], b"\xff\xfe\n" + b"press " * 100000 + b"\n"),
        (["sim", "--headless"], b"\x00\x01\xff" * 50000),
        (["sim", "--headless", "--cpython", "--pretty"], bytes(range(256)) * 100),
        (["config", "--device", "/nonexistent", "show", "extra"], b""),
        (["report", "--device", "/nonexistent", "--match", "x"], b""),
        ([], b""),
    ],
)
def test_as_a_subprocess(args, stdin):
    """A few runs as a person makes them: the process's own stdin, stderr and exit status."""
    out = subprocess.run(
        [sys.executable, "-m", "host_tools", *args], input=stdin, capture_output=True, cwd=ROOT, timeout=120
    )
    assert_clean(
        args, out.returncode, out.stdout.decode("utf-8", "replace"), out.stderr.decode("utf-8", "replace"), record=False
    )
