"""A user's file given to the CLI is read with a bound: /dev/zero, a FIFO nobody writes to, a folder
and a file larger than the file can be are each refused at once with `carom: ...` on stderr, exit 1
(before, `carom hall --results /dev/zero` never started and ignored Ctrl-C, and `config import`,
`--password-file` and `flash --firmware` read /dev/zero until memory ran out). And the hall's
command line: an empty --client-id, a --broker with an unclosed bracket.
"""

import os

import pytest

from helpers import carom
from host_tools.commands.config import MAX_IMPORT_BYTES
from host_tools.commands.flash import MAX_FIRMWARE_BYTES
from host_tools.commands.deploy import MAX_VOICE_BYTES
from host_tools.commands.hall import MAX_PASSWORD_FILE

# (command, where the file goes, its largest size)
COMMANDS = {
    "config import": (["config", "import", "{}", "-d", "/dev/null"], MAX_IMPORT_BYTES),
    "flash --firmware": (["flash", "--firmware", "{}", "-d", "/dev/null"], MAX_FIRMWARE_BYTES),
    "hall --password-file": (
        ["hall", "--broker", "127.0.0.1:1", "--listen", "127.0.0.1:0", "--user", "u", "--password-file", "{}"],
        MAX_PASSWORD_FILE,
    ),
    "hall --results": (["hall", "--broker", "127.0.0.1:1", "--listen", "127.0.0.1:0", "--results", "{}"], None),
    "deploy --voice": (["deploy", "--board", "wall", "-d", "/dev/null", "--voice", "{}"], MAX_VOICE_BYTES),
}


def refused(args, words):
    out = carom(*args, timeout=60)  # a bound on a hang, not a measure
    assert out.returncode == 1, (args, out.returncode, out.stdout[-500:], out.stderr[-500:])
    assert out.stderr.startswith("carom: ") and words in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    return out.stderr


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_device_a_fifo_a_folder_and_an_oversized_file_are_refused_at_once(command, tmp_path):
    args, largest = COMMANDS[command]
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    cases = [("/dev/zero", "not a regular file"), (str(fifo), "not a regular file"), (str(tmp_path), "folder")]
    if largest is not None:
        big = tmp_path / "big"
        with open(big, "wb") as f:
            f.truncate(largest + 1)  # sparse: no disk spent
        cases.append((str(big), "larger than %d bytes" % largest))
    for path, words in cases:
        refused([a.replace("{}", path) for a in args], words)


def test_the_halls_client_id_and_broker_are_checked():
    base = ["hall", "--listen", "127.0.0.1:0"]
    refused(base + ["--broker", "127.0.0.1:1", "--client-id", ""], "--client-id wants 1 to 64")
    refused(base + ["--broker", "127.0.0.1:1", "--client-id", "a" * 65], "--client-id wants 1 to 64")
    refused(base + ["--broker", "127.0.0.1:1", "--client-id", "hall one"], "--client-id wants")
    for broker in ("[::1", "[::1]x", "host:", "a b", "h/x"):
        refused(base + ["--broker", broker], "--broker wants HOST[:PORT]")
