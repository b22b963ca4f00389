"""`carom doctor`: is this board fit to keep score?  A checklist, through mpremote.

    carom doctor --device DEV
    carom doctor --device DEV --identify    # the board's identify mode instead (below)

Checks, in order (each line `ok`, `warn` or `FAIL`):

    the board answers      a MicroPython REPL on DEV (mpremote's raw REPL)
    MicroPython            its release (sys.implementation.version; os.uname() names
                           it): not older than the firmware needs (host_tools.
                           MICROPYTHON_OLDEST: the release to flash is named), and
                           that it loads the .mpy files this mpy-cross makes
                           (sys.implementation._mpy)
    flash, RAM             os.statvfs('/') free space; gc.mem_free() with the app stopped
    firmware               main.py there; the files /deploy.json lists, by hash
                           (a deploy cut short while switching is a FAIL)
    configuration          config.json checked with firmware/config.py's schema
    board definition       boards/<board>.json on the board, checked with
                           firmware/boarddef.py
    I2C                    machine.I2C(...).scan() on every bus of the board
                           definition: every display must answer; what answered
                           where it should not is named: a chip on the other bus
                           (wired to the wrong bus), at another address on its
                           bus (the address jumpers: which pad is bridged too or
                           missing), or unknown; a missing display with its
                           field and its place on the board
    clock                  set or not (time.time() read from the board's epoch: 2000
                           on the ESP32); reports carry times only when it is
    the app starts         reset, and the boot watched for
                           "carom: running on board NAME" (not with --no-reset)

Exit status 0 when nothing FAILed, 1 otherwise (`carom: N problems: ...`).

--identify runs the board's identify mode (firmware/identify.py) with the app stopped: each
display shows its field and its bus.address, then each segment; each button pressed on the
board is printed here as the board reports it, until a long press there ends it (or Ctrl-C).
"""

import json
import re
import subprocess
import sys

from .. import MICROPYTHON_DOWNLOAD, MICROPYTHON_OLDEST, firmware_path, micropython_tested, release_text
from ..boardlayout import place
from ..link.boardio import (
    APP_RUNNING,
    BoardIO,
    LinkLost,
    RemoteError,
    add_device_argument,
    add_wait_argument,
    boot_problems,
    kb,
    last_line,
)
from ..errors import CommandError

FLASH_FAIL = 32 * 1024
FLASH_WARN = 128 * 1024
RAM_FAIL = 32 * 1024
RAM_WARN = 64 * 1024
CLOCK_SET = 1600000000  # the app's test for a set clock (firmware/app.py), in seconds since 1970
EPOCH_2000 = 946684800  # 2000-01-01 in seconds since 1970, where the ESP32 port's time.time() counts from


class Checklist:
    def __init__(self, out=None):
        self.out = out or sys.stdout
        self.problems = []
        self.warnings = []

    def line(self, mark, text):
        self.out.write("  %-5s %s\n" % (mark, text))
        self.out.flush()

    def ok(self, text):
        self.line("ok", text)

    def warn(self, text):
        self.warnings.append(text)
        self.line("warn", text)

    def fail(self, text):
        self.problems.append(text)
        self.line("FAIL", text)

    def level(self, text, value, fail_below, fail_why, warn_below, warn_why):
        """ok, warn or fail by where `value` stands against two thresholds."""
        if value < fail_below:
            self.fail(text + ": " + fail_why)
        elif value < warn_below:
            self.warn(text + ": " + warn_why)
        else:
            self.ok(text)


def local_mpy_version():
    """The .mpy version this mpy-cross writes (6 for MicroPython 1.19+), or None."""
    from ..build import mpy_cross_exe

    try:
        out = subprocess.run([mpy_cross_exe(), "--version"], capture_output=True, text=True, timeout=20)
    except (CommandError, OSError, subprocess.SubprocessError):
        return None
    m = re.search(r"mpy v(\d+)", out.stdout + out.stderr)
    return int(m.group(1)) if m else None


def release_of(version):
    """ "1.20.0" or "1.29.0-preview" -> (1, 20, 0); None when it is not of that form."""
    m = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", version or "")
    return (int(m.group(1)), int(m.group(2)), int(m.group(3) or 0)) if m else None


def check_release(info, what, c):
    """False (a FAIL said) when the board's MicroPython is older than the firmware needs."""
    got = release_of(info["version"])
    if got is None or got >= MICROPYTHON_OLDEST:
        return True
    tested = micropython_tested()
    c.fail(
        "%s: older than the firmware needs: flash MicroPython %s or newer, the ESP32_GENERIC image from %s "
        "(carom flash; the project's tests run %s)"
        % (what, release_text(MICROPYTHON_OLDEST), MICROPYTHON_DOWNLOAD, tested or "a newer one")
    )
    return False


def display_label(d):
    fields = [s["field"] for s in d.get("show", [])]
    return "%s, %s" % (", ".join(fields) or "?", d.get("kind", "?"))


I2C_SCAN = """\
import machine
for _b in %r:
    try:
        _i = machine.I2C(_b[0], scl=machine.Pin(_b[1]), sda=machine.Pin(_b[2]), freq=_b[3])
        print(repr((_b[0], _i.scan())))
    except Exception as _e:
        print(repr((_b[0], str(_e) or type(_e).__name__)))
"""


def check_firmware(board, c):
    from .deploy import GUARD_SHA, MANIFEST, STAGE, read_manifest

    manifest = read_manifest(board)
    files = sorted((manifest or {}).get("files", {}))
    hashes = board.hashes(sorted(set(files) | {"/main.py", STAGE + "/plan.json"}))
    if hashes["/main.py"] is None:
        c.fail("firmware: no main.py on the board: the app never starts (carom deploy)")
        return manifest
    if hashes["/main.py"] == GUARD_SHA:
        c.fail(
            "firmware: a deploy was cut short while switching files: power the board off and on (it finishes "
            "the deploy at boot) or run carom deploy again"
        )
        return manifest
    if manifest is None:
        c.warn("firmware: no %s: not deployed by carom deploy, its files cannot be checked" % MANIFEST)
        return None
    missing = [p[1:] for p in files if hashes.get(p) is None]
    changed = [p[1:] for p in files if hashes.get(p) is not None and hashes[p] != manifest["files"][p]]
    what = "firmware %s%s (%s)" % (
        manifest.get("firmware", "?"),
        ", " + manifest["version"] if manifest.get("version") else "",
        "sources" if manifest.get("source") else ".mpy",
    )
    if missing:
        c.fail(
            "%s: %d file%s missing: %s (carom deploy puts them back)"
            % (what, len(missing), "s"[: len(missing) != 1], ", ".join(missing))
        )
    elif changed:
        c.warn(
            "%s: %d file%s changed since the deploy: %s"
            % (what, len(changed), "s"[: len(changed) != 1], ", ".join(changed))
        )
    else:
        c.ok("%s: all %d files as deployed" % (what, len(files)))
    if hashes.get(STAGE + "/plan.json") is not None:
        c.warn(
            "firmware: copies left in %s by a deploy cut short before it switched (the next deploy uses or "
            "removes them)" % STAGE
        )
    return manifest


def check_config(board, c):
    """The board's configuration; returns the board name it runs (or None)."""
    from .config import fallback

    firmware_path()
    import config

    raw = board.read_file("/config.json")
    if raw is None:
        c.warn("config.json: none on the board: the defaults run (board wall); carom config set board=NAME")
        return "wall"
    try:
        d = json.loads(raw.decode("utf-8"))
    except ValueError as e:
        c.fail("config.json: not valid JSON (%s): %s; fix it with carom config import FILE" % (e, fallback(board)))
        return _good_board(board)
    try:
        cfg = config.normalize(d, "config.json")
    except ValueError as e:
        c.fail("%s: %s; fix it with carom config set" % (e, fallback(board)))
        named = d.get("board") if isinstance(d, dict) and isinstance(d.get("board"), str) else None
        return _good_board(board) or named
    extra = []
    if cfg["name"]:
        extra.append("table %s" % json.dumps(cfg["name"], ensure_ascii=False))
    m = cfg["match"]
    extra.append("%s to %d" % (m["game"], m["target"]))
    c.ok("config.json: valid (board %s, %s)" % (cfg["board"], ", ".join(extra)))
    return cfg["board"]


def _good_board(board):
    raw = board.read_file("/config.good.json")
    try:
        d = json.loads(raw.decode("utf-8")) if raw else None
        return d.get("board", "wall") if isinstance(d, dict) else None
    except ValueError:
        return None


def check_board_def(board, name, c):
    firmware_path()
    import boarddef

    path = "/boards/%s.json" % name
    raw = board.read_file(path)
    if raw is None:
        c.fail("board definition: no %s on the board (carom deploy --board %s)" % (path[1:], name))
        return None
    try:
        d = json.loads(raw.decode("utf-8"))
        bd = boarddef.validate(d, path[1:])
    except ValueError as e:
        c.fail("board definition: %s" % e)
        return None
    c.ok(
        "board definition %s: valid, %d display%s on %d I2C bus%s, %d buttons"
        % (
            path[1:],
            len(bd["displays"]),
            "s"[: len(bd["displays"]) != 1],
            len(bd["i2c"]),
            "es"[: 2 * (len(bd["i2c"]) != 1)],
            len(bd["buttons"]),
        )
    )
    return bd


JUMPERS = ("A0", "A1", "A2")  # address = 0x70 + A0 + 2 * A1 + 4 * A2, each pad counting when bridged


def jumper_text(found, expected):
    """What a backpack answering at `found` has bridged differently from one at `expected`:
    "A0 is bridged too; bridge A1 only"."""
    extra = [JUMPERS[i] for i in range(3) if (found >> i & 1) and not (expected >> i & 1)]
    lacking = [JUMPERS[i] for i in range(3) if not (found >> i & 1) and (expected >> i & 1)]
    said = []
    if extra:
        said.append("%s %s bridged too" % (" and ".join(extra), "is" if len(extra) == 1 else "are"))
    if lacking:
        said.append("%s %s not bridged" % (" and ".join(lacking), "is" if len(lacking) == 1 else "are"))
    wanted = [JUMPERS[i] for i in range(3) if expected >> i & 1]
    said.append("bridge %s only" % " + ".join(wanted) if wanted else "leave A0, A1 and A2 open, as shipped")
    return "; ".join(said)


def diagnose_i2c(bd, found):
    """What answered where against the definition. `found`: {bus: [addresses] or an error text}.
    Returns [(mark, bus, text)], mark "ok", "warn" or "fail": a display that does not answer
    (with its field and place), one that answers on the other bus (wired to the wrong bus), one
    at another address on its bus (its address jumpers), an address nobody expects."""
    out = []
    expected = {b["bus"]: {d["addr"]: d for d in bd["displays"] if d["bus"] == b["bus"]} for b in bd["i2c"]}
    answered = {bus: set(r) if isinstance(r, list) else set() for bus, r in found.items()}
    missing = {bus: [a for a in sorted(exp) if a not in answered.get(bus, ())] for bus, exp in expected.items()}
    unknown = {bus: [a for a in sorted(answered.get(bus, ())) if a not in expected[bus]] for bus in expected}
    explained = set()  # (bus, addr) of missing displays a diagnosis names
    said_unknown = set()
    # A display that answers on the other bus: it is wired to the wrong bus.
    for bus in expected:
        for addr in list(unknown[bus]):
            for other in expected:
                if other != bus and addr in missing[other] and (other, addr) not in explained:
                    d = expected[other][addr]
                    out.append(
                        (
                            "fail",
                            other,
                            "the display at 0x%02x (%s; %s) answers on bus %d instead: its SDA and "
                            "SCL go to bus %d's wires, not to bus %d's"
                            % (addr, display_label(d), place(bd, d), bus, bus, other),
                        )
                    )
                    explained.add((other, addr))
                    said_unknown.add((bus, addr))
                    break
    # A display that answers at another address on its own bus: its address jumpers.
    for bus in expected:
        for addr in unknown[bus]:
            if (bus, addr) in said_unknown:
                continue
            candidates = [m for m in missing[bus] if (bus, m) not in explained]
            if not candidates or not 0x70 <= addr <= 0x77:
                continue
            m = min(candidates, key=lambda a: (bin(a ^ addr).count("1"), a))
            d = expected[bus][m]
            out.append(
                (
                    "fail",
                    bus,
                    "0x%02x answers where 0x%02x (%s; %s) should be: likely its address jumpers: "
                    "%s" % (addr, m, display_label(d), place(bd, d), jumper_text(addr, m)),
                )
            )
            explained.add((bus, m))
            said_unknown.add((bus, addr))
    for bus in expected:
        moved = [a for a in expected[bus] if (bus, a) in explained]  # said above: found on the other bus
        if expected[bus] and found.get(bus) == [] and not moved:
            out.append(
                (
                    "fail",
                    bus,
                    "no display answers (%d expected): the bus itself first: SDA and SCL swapped, "
                    "no common ground, the backpacks without power, or the bus not on these pins" % len(expected[bus]),
                )
            )
            continue
        for addr in missing[bus]:
            if (bus, addr) not in explained and isinstance(found.get(bus), list):
                d = expected[bus][addr]
                out.append(
                    (
                        "fail",
                        bus,
                        "the display at 0x%02x (%s; %s) does not answer: unplugged, loose wire or "
                        "wrong address (%s for 0x%02x; one at an address already in use answers as one with that "
                        "display: the identify mode shows which)"
                        % (addr, display_label(d), place(bd, d), jumper_text(addr, addr), addr),
                    )
                )
        rest = [a for a in unknown[bus] if (bus, a) not in said_unknown]
        if rest:
            out.append(
                (
                    "warn",
                    bus,
                    "%s answer%s but %s not in the board definition"
                    % (", ".join("0x%02x" % a for a in rest), "s"[: len(rest) == 1], "is" if len(rest) == 1 else "are"),
                )
            )
        if not missing[bus] and isinstance(found.get(bus), list):
            addrs = " ".join("0x%02x" % a for a in sorted(expected[bus]))
            out.append(
                (
                    "ok",
                    bus,
                    "all %d display%s answer (%s)" % (len(expected[bus]), "s"[: len(expected[bus]) != 1], addrs),
                )
            )
    return out


def check_i2c(board, bd, c):
    buses = [(b["bus"], b["scl"], b["sda"], b["freq"]) for b in bd["i2c"]]
    if not buses:
        c.ok("I2C: the board definition has no I2C bus")
        return
    out = board.exec(I2C_SCAN % (buses,), "scanning the I2C buses")
    found = {}
    import ast

    for line in out.splitlines():
        if line.strip():
            bus, result = ast.literal_eval(line.strip())
            found[bus] = result
    where = {bus: "I2C bus %d (SDA %d, SCL %d)" % (bus, sda, scl) for bus, scl, sda, _ in buses}
    for bus, _, _, _ in buses:
        if not isinstance(found.get(bus), list):
            c.fail("%s: cannot scan: %s" % (where[bus], found.get(bus)))
    for mark, bus, text in sorted(diagnose_i2c(bd, found), key=lambda said: said[1]):  # bus by bus
        getattr(c, mark)("%s: %s" % (where[bus], text))


def unix_time(t, epoch_year):
    """The board's time.time() in seconds since 1970. MicroPython's ports count from 1970 (unix)
    or from 2000 (the ESP32 and other embedded ports); time.gmtime(0)[0] says which."""
    return t + EPOCH_2000 if epoch_year == 2000 else t


def check_clock_and_history(board, c):
    t, epoch_year = board.eval(
        "(lambda t: (t.time(), t.gmtime(0)[0]))(__import__('time'))", "reading the board's clock"
    )
    t = unix_time(t, epoch_year)
    if t < CLOCK_SET:
        c.warn("clock: not set: match reports will have no start and end times (mpremote rtc --set)")
    else:
        import time

        c.ok("clock: %s (the board's time)" % time.strftime("%Y-%m-%d %H:%M", time.gmtime(t)))
    from ..reports.match import generation
    from .report import HISTORY

    entries = board.listdir(HISTORY) or []
    n = len([e for e in entries if generation(e[0]) is not None])
    c.ok("history: %d finished match%s in %s (carom report)" % (n, "es"[: 2 * (n != 1)], HISTORY))


def arguments(p):
    """Check the board on DEV and print a checklist: it answers, its MicroPython
    version (and .mpy compatibility), free flash and RAM, the deployed firmware,
    the configuration, the board definition, the I2C displays against the board
    definition, the clock, and that the app starts. Exit status 1 when something
    is wrong."""
    add_device_argument(p)
    p.add_argument(
        "--no-reset",
        dest="reset",
        action="store_false",
        help="do not reset the board at the end to watch the app start (it stays at the REPL)",
    )
    add_wait_argument(p)
    p.add_argument(
        "--identify",
        action="store_true",
        help="instead of the checks, run the board's identify mode: every display shows its field and "
        "its bus.address, then lights each segment; the LEDs light in turn, the buzzer sounds once; "
        "each button pressed on the board is printed here. A long press on the board ends it "
        "(exit 0), or Ctrl-C (exit 130); then the board restarts its app (not with --no-reset)",
    )
    p.set_defaults(run=run_doctor)


def run_doctor(args):
    if args.identify:
        return run_identify(args)
    c = Checklist()
    print("carom doctor: %s" % args.device)
    try:
        board = BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout)
        board.connect()
    except CommandError as e:
        c.fail("the board answers: %s" % e)
        raise CommandError("the board on %s does not answer" % args.device)
    try:
        c.ok("the board answers: a MicroPython REPL on %s" % args.device)
        run_checks(board, c, args)
    except LinkLost as e:
        c.fail(str(e))
    finally:
        board.close()
    if c.problems:
        raise CommandError("%d problem%s: %s" % (len(c.problems), "s"[: len(c.problems) != 1], "; ".join(c.problems)))
    print("all good%s" % (" (%d warning%s)" % (len(c.warnings), "s"[: len(c.warnings) != 1]) if c.warnings else ""))
    return 0


def run_checks(board, c, args):
    info = board.info()
    local = local_mpy_version()
    mpy = info["mpy"]
    what = "MicroPython %s on %s" % (info["release"] or info["version"], info["machine"])
    if check_release(info, what, c):  # a release too old is said: nothing else of it matters then
        if mpy is not None and local is not None and mpy != local:
            c.fail(
                "%s: it loads .mpy version %d, carom deploy's mpy-cross makes %d: flash a newer MicroPython "
                "(carom flash) or deploy with --source" % (what, mpy, local)
            )
        else:
            c.ok("%s%s" % (what, " (.mpy v%d, as carom deploy makes)" % mpy if mpy is not None else ""))
    free = info["flash_free"]
    c.level(
        "flash: %s free of %s" % (kb(free), kb(info["flash_total"])),
        free,
        FLASH_FAIL,
        "too little for the match journal and history",
        FLASH_WARN,
        "a deploy needs room for copies of the changed files",
    )
    ram = info["mem_free"]
    c.level(
        "RAM: %s free with the app stopped" % kb(ram),
        ram,
        RAM_FAIL,
        "too little for the app",
        RAM_WARN,
        "tight for the app",
    )
    check_firmware(board, c)
    name = check_config(board, c)
    bd = check_board_def(board, name, c) if name else None
    if bd is not None:
        check_i2c(board, bd, c)
    check_clock_and_history(board, c)
    if not args.reset:
        return
    role = bd["role"] if bd is not None else "wall"
    ok, lines = board.restart_and_watch(args.wait, role)
    if lines is None and role != "wall":
        c.ok("reset (a %s board: its start is not watched)" % role)
        return
    lines = lines or []  # --wait 0: nothing watched, so nothing seen
    problems = boot_problems(lines)
    if ok and not problems:
        c.ok("the app starts: %s" % next(ln for ln in lines if APP_RUNNING in ln))
    elif ok:
        c.warn("the app starts, but said: %s" % "; ".join(problems))
    elif problems:
        c.fail("the app does not start cleanly: %s" % "; ".join(problems))
    else:
        c.fail("the app did not say it runs within %.0f s after a reset" % args.wait)


# ---- the identify mode ---------------------------------------------------------------------

IDENTIFY_CODE = """\
import machine, startup
if hasattr(startup, 'identify'):
    startup.identify(machine)
else:
    print('identify: none in this firmware')
"""
IDENTIFY = "identify: "  # the mode's lines on the board's console (firmware/identify.py)


def run_identify(args, out=None):
    """`carom doctor --identify`: the app stopped (mpremote's raw REPL), the identify mode runs
    on the board (firmware/startup.py's identify()), and each line it prints (a button pressed, a
    display that does not answer) is printed here as it comes, until the mode is left on the
    board by a long press (0) or Ctrl-C here stops it (130); then the board is reset (its app
    runs again) unless --no-reset."""
    out = out or sys.stdout
    board = BoardIO(args.device, reset_on_close=args.reset, timeout=args.timeout)
    board.connect()
    said = []
    buf = bytearray()  # what the board sent of a line not yet ended

    def show(text):
        out.write("  %s\n" % text)
        out.flush()

    def consume(data):
        buf.extend(data)
        while b"\n" in buf:
            line, _, rest = bytes(buf).partition(b"\n")
            buf[:] = rest
            text = line.decode("utf-8", "replace").strip()
            if text.startswith(IDENTIFY):
                said.append(text[len(IDENTIFY) :])
                show(said[-1])
            elif text.startswith(APP_RUNNING) or text.startswith("carom: heap in use"):
                raise LinkLost("the board restarted during the identify mode (a reset, or its power)")
            elif text:
                show(text)

    try:
        print("carom doctor: %s: the identify mode (the app is stopped)" % args.device, file=out)
        with board.step("starting the identify mode"):
            board.transport.exec_raw_no_follow(IDENTIFY_CODE)
        try:
            with board.step("running the identify mode"):
                _, err = board.transport.follow(None, data_consumer=consume)
        except KeyboardInterrupt:
            with board.step("stopping the identify mode"):
                board.transport.serial.write(b"\x03")  # Ctrl-C on the board: the mode ends, dark
                board.transport.follow(board.timeout, data_consumer=consume)
            print("carom doctor: stopped (Ctrl-C); the identify mode ended on the board", file=out)
            return 130
        if err and b"KeyboardInterrupt" not in err:
            raise RemoteError(
                "the identify mode failed on the board: %s" % last_line(err.decode("utf-8", "replace")),
                err.decode("utf-8", "replace"),
            )
        if said and said[-1] == "none in this firmware":
            raise CommandError(
                "the firmware on %s has no identify mode: carom deploy puts this version's on it" % args.device
            )
        print(
            "carom doctor: the identify mode was left on the board%s"
            % ("; its app starts again" if args.reset else " (the board stays at the REPL: --no-reset)"),
            file=out,
        )
        return 0
    finally:
        board.close()
