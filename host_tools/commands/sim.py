"""`carom sim`: the simulator.

`--headless` is the scripted mode: referee events, one per line, from stdin
or `--script FILE`; after each line the match state document is printed as
one JSON line with a key `refused` (null, or the reason).  By default the
rules core runs on the real MicroPython unix port; `--cpython` runs the same
firmware modules inside this process instead.
"""

import contextlib
import json
import os
import sys

from ..errors import CommandError


def arguments(p):
    """Simulate a scoreboard on this computer.

    Without --headless, run the real firmware on virtual boards (--board NAME,
    default wall; --boards N of them) and serve the simulator page at
    --listen HOST:PORT (default http://127.0.0.1:8080) until Ctrl-C.

    With --headless, read referee events one per line (from --script FILE or
    stdin) and print the match state document after each line as one JSON
    line with a key "refused" (null, or the reason the event was refused).
    Events: new, lag, lag_collision, lag_fault, choose, point, miss, foul,
    undo, break_request, resume, left, extend, call, timeout, tiebreak,
    wait, close (see README.md).

    With --headless --board NAME, run the real firmware on a virtual board
    driven by press/hold/wait/power/plug lines, one JSON line after each.
    --micropython picks the interpreter it runs on (32: the 32-bit build,
    whose objects are the ESP32's size) and --heap SIZE gives the firmware
    a heap share of SIZE bytes (112K: a stock ESP32's heap; K and M as in
    -X heapsize). The emulation shares that MicroPython heap: its own bytes
    are measured at a calibration start and given on top, and the figures
    are printed on stderr. With --heap the firmware is laid out as .mpy, as
    `carom deploy` puts it on a board (--source: the .py files). A firmware
    that runs out of memory at boot stops carom with an error.

    --config FILE gives the virtual boards that config.json (each board a
    copy; checked first with the firmware's schema: a file the board would
    refuse stops carom). A config.json already in --flash that the board
    would refuse is said on stderr; the board then starts as a real one
    does, on its last good configuration (E 20) or the defaults (E 22).

    --hall HOST[:PORT] puts the page's boards on a Wi-Fi network that
    reaches the MQTT broker at HOST:PORT (default port 1883), so that they
    publish to a real `carom hall` on that broker: each board's config.json
    gets the network and the broker if it names none (its own mqtt.host and
    port, if it has them, are routed to HOST:PORT) and a table id of its own
    (t1, t2...) if it has none or shares one.
    """
    p.add_argument("--headless", action="store_true", help="scripted mode: events in, JSON lines out")
    p.add_argument("--script", metavar="FILE", help="read events from FILE instead of stdin")
    p.add_argument("--cpython", action="store_true", help="run the rules core in this Python, not on MicroPython")
    p.add_argument("--pretty", action="store_true", help="print a short human-readable line per event")
    p.add_argument(
        "--board",
        metavar="NAME",
        help="run the firmware on a virtual board (boards/NAME.json) driven by press/hold/wait lines",
    )
    p.add_argument("--flash", metavar="DIR", help="the virtual board's flash folder (kept; default: a temporary one)")
    p.add_argument(
        "--listen",
        metavar="HOST:PORT",
        default="127.0.0.1:8080",
        help="where the simulator page is served (default 127.0.0.1:8080; port 0: any free port)",
    )
    p.add_argument(
        "--boards",
        metavar="N",
        type=int,
        default=1,
        help="run N boards side by side on the page, each with its own flash (FLASH/board1..N)",
    )
    p.add_argument(
        "--remote",
        action="store_true",
        help="also run a referee remote (boards/referee.json) paired with the board over ESP-NOW, "
        "drawn beside it as the referee box (its flash: FLASH-remote)",
    )
    p.add_argument(
        "--micropython",
        metavar="PATH",
        help="with --headless --board: the MicroPython unix port to run the board on (default: the "
        "venv's, 64-bit); 32: the 32-bit build (CAROM_MICROPYTHON32, else "
        "../shared/tools/micropython32/micropython)",
    )
    p.add_argument(
        "--heap",
        metavar="SIZE",
        help="with --headless --board: the firmware's share of the MicroPython heap, e.g. 112K (a stock "
        "ESP32's) or 1M; the emulation's own bytes are measured and added on top (figures on stderr)",
    )
    p.add_argument(
        "--config",
        metavar="FILE",
        help="the virtual boards' config.json (names, match, wifi, mqtt...), checked before anything starts",
    )
    p.add_argument(
        "--hall",
        metavar="HOST[:PORT]",
        help="the boards join a Wi-Fi network that reaches this MQTT broker and publish to it "
        "(for carom hall --broker HOST:PORT); each board gets its own table id",
    )
    p.add_argument(
        "--source",
        action="store_true",
        help="with --heap: run the firmware's .py files rather than the .mpy that carom deploy puts on a board",
    )
    p.set_defaults(run=run_sim)


def summary(doc):
    """One line a person can follow: score, innings, run, phase."""
    a, b = doc["players"]["A"], doc["players"]["B"]
    turn = doc["turn"] or "-"
    parts = [
        "A %3d (%d inn, HR %d)" % (a["score"], a["innings"], a["high_run"]),
        "B %3d (%d inn, HR %d)" % (b["score"], b["innings"], b["high_run"]),
        "turn %s run %d" % (turn, doc["current_run"]),
        doc["phase"],
    ]
    if doc["countdown"] is not None:
        parts.append("last %d" % doc["countdown"])
    if doc["shot_clock"]:
        parts.append(
            "clock %ds/%ds TO %d:%d"
            % (doc["shot_clock"]["left_s"], doc["shot_clock"]["limit_s"], a["timeouts_left"], b["timeouts_left"])
        )
    if doc["break_left_s"] is not None:
        parts.append("break %d:%02d" % divmod(doc["break_left_s"], 60))
    if doc["last_foul"]:
        parts.append("foul %s" % doc["last_foul"])
    parts += _event_parts(doc)
    if doc["result"]:
        parts.append("result %s" % doc["result"])
        if doc.get("ended_by"):
            parts.append("by %s" % doc["ended_by"])
    if doc.get("refused"):
        parts.append("REFUSED: %s" % doc["refused"])
    return "  ".join(parts)


def _event_parts(doc):
    """The referee's helps: what follows a jump or a frozen ball, the restricted area's count
    and OUT, the lag's ties, the reviews used, the match's time (H:MM:SS)."""
    parts = []
    lag = doc.get("lag") or {}
    if lag.get("ties"):
        parts.append("lag ties %d" % lag["ties"])
    if doc.get("respot"):
        text = "respot %s" % doc["respot"]
        if doc.get("respot_balls"):
            text += " (%s)" % " ".join(doc["respot_balls"])
        if doc.get("spots"):
            text += " spots " + " ".join("%s:%s" % kv for kv in sorted(doc["spots"].items()))
        parts.append(text)
    area = doc.get("area")
    if area:
        parts.append(
            "%s %d/%d%s"
            % (
                "anchor" if area["anchor"] else "area",
                area["caroms"],
                area["limit"],
                " OUT" if area["out_next"] else "",
            )
        )
    used = [p for p in ("A", "B") if (doc.get("review_used") or {}).get(p)]
    if used:
        parts.append("review used " + " ".join(used))
    if doc.get("elapsed_s") is not None:
        h, rest = divmod(doc["elapsed_s"], 3600)
        parts.append("time %d:%02d:%02d" % (h, rest // 60, rest % 60))
    return parts + _format_parts(doc)


def _format_parts(doc):
    """The formats: a handicap's targets, the set and the sets won, the shoot-out's
    round, the warm-up's clock."""
    parts = []
    a, b = doc["players"]["A"], doc["players"]["B"]
    if doc.get("target") is None and "target" in a:
        parts.append("targets %d:%d" % (a["target"], b["target"]))
    sets = doc.get("sets")
    if sets:
        parts.append("set %d, sets %d:%d" % (sets["number"], sets["won"]["A"], sets["won"]["B"]))
    so = doc.get("shootout")
    if so:
        text = "shoot-out round %d" % (so["played"] + (1 if so["current"] else 0))
        if so["current"]:
            text += " %d:%d" % tuple(so["current"])
        parts.append(text)
    if doc.get("warmup"):
        parts.append("warm-up %s %d:%02d" % ((doc["warmup"]["player"],) + divmod(doc["warmup"]["left_s"], 60)))
    return parts


def check_folder(path, what="--flash"):
    """A folder carom may use or make: CommandError, before anything starts, when it is a file,
    cannot be made (a file or a missing or read-only folder on the way), or cannot be written."""
    import os

    if not path or not path.strip():
        raise CommandError("%s is empty; give a folder" % what)
    full = os.path.abspath(path)
    if os.path.exists(full):
        if not os.path.isdir(full):
            raise CommandError("%s %s is a file, not a folder" % (what, path))
        if not os.access(full, os.W_OK | os.X_OK):
            raise CommandError("%s %s: cannot write into this folder (permission denied)" % (what, path))
        return
    parent = full
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise CommandError("%s %s cannot be made: %s is a file, not a folder" % (what, path, parent))
    if not os.access(parent, os.W_OK | os.X_OK):
        raise CommandError("%s %s cannot be made in %s (permission denied)" % (what, path, parent))


def check_flash(flash, count=1, remote=False):
    """The flash folders the boards will use (as the page lays them out): FLASH, FLASH/boardN, FLASH-remote."""
    import os

    if flash is None:
        return
    check_folder(flash)
    try:
        os.makedirs(flash, exist_ok=True)  # made now, so that a place that refuses it is said before a start
    except OSError as e:
        raise CommandError("--flash %s cannot be made: %s" % (flash, e.strerror or e))
    if count > 1:
        for i in range(count):
            check_folder(os.path.join(flash, "board%d" % (i + 1)), "--flash %s: the folder" % flash)
    if remote:
        check_folder(flash.rstrip("/") + "-remote", "--flash %s with --remote: the folder" % flash)


def read_lines(args):
    """The script's lines (--script FILE, else stdin), read one at a time as UTF-8 text: a line
    that is not UTF-8, or longer than the referee takes (4096 characters), is refused with its
    reason like any refused event (scripted_rules.text_lines)."""
    from ..simulator.scripted_rules import text_lines

    if not args.script:
        stream = getattr(sys.stdin, "buffer", None)
        if stream is None:  # a text stream put in place of stdin (tests): its lines as they are
            return sys.stdin
        return text_lines(stream)
    try:
        f = open(args.script, "rb")
        f.peek(1)  # a folder or an unreadable file fails here, not mid-run
    except OSError as e:
        raise CommandError("cannot read the script %s: %s" % (args.script, e.strerror or e))

    def lines():
        with f:
            try:
                yield from text_lines(f)
            except OSError as e:
                raise CommandError("cannot read the script %s: %s" % (args.script, e.strerror or e))

    return lines()


def interpreter_arg(text):
    """--micropython: "32", a path, or a command on PATH; checked to be a MicroPython unix port."""
    import os
    import shutil

    from .. import micropython32_exe
    from ..simulator.vboard.heap import HeapError, probe

    if text == "32":
        exe = micropython32_exe()
        if exe is None:
            raise CommandError(
                "--micropython 32: no 32-bit MicroPython; set CAROM_MICROPYTHON32 or put it at "
                "../shared/tools/micropython32/micropython beside this checkout"
            )
    elif os.sep in text:
        exe = os.path.abspath(text)
        if not os.path.isfile(exe) or not os.access(exe, os.X_OK):
            raise CommandError("--micropython %s: no such program" % text)
    else:
        exe = shutil.which(text)
        if exe is None:
            raise CommandError("--micropython %s: no such program on PATH" % text)
    try:
        probe(exe, None)
    except HeapError as e:
        raise CommandError("--micropython %s: %s" % (text, e))
    return exe


def heap_arg(text, exe):
    """--heap: bytes, checked to start a bare interpreter."""
    from ..simulator.vboard.board import BoardError, default_micropython
    from ..simulator.vboard.heap import HeapError, parse_size, probe

    try:
        size = parse_size(text)
        probe(exe or default_micropython(), size)
    except (HeapError, BoardError) as e:
        raise CommandError("--heap %s: %s" % (text, e))
    return size


def run_board(args):
    from ..simulator.scripted_board import OutOfMemory, load_board, run_script

    load_board(args.board)  # a bad name or definition is a clear error before anything starts
    check_flash(args.flash)
    if args.hall:
        raise CommandError("--hall goes with the page (carom sim --hall HOST:PORT [--boards N]), not --headless")
    options = {}
    if args.config:
        options["config"] = board_config(read_config(args.config), args.board)
    else:
        warn_flash_config(args.flash, 0, 1)
    if args.micropython:
        options["micropython"] = interpreter_arg(args.micropython)
    if args.heap:
        options["firmware_heap"] = heap_arg(args.heap, options.get("micropython"))
        options["source"] = args.source
    elif args.source:
        raise CommandError("--source goes with --heap (without it the firmware runs from source anyway)")
    lines = read_lines(args)

    def write(text):
        sys.stdout.write(text)
        sys.stdout.flush()

    def log(text):
        print("carom sim: %s" % text, file=sys.stderr, flush=True)

    try:
        with board_errors():
            run_script(args.board, lines, write, args.flash, log=log, pretty_lines=args.pretty, **options)
    except OutOfMemory as e:
        raise CommandError(str(e))
    return 0


@contextlib.contextmanager
def board_errors():
    """The virtual board's failures, and its flash folder's, as carom: errors."""
    from ..simulator.vboard import BoardError

    try:
        yield
    except BoardError as e:
        raise CommandError("the virtual board failed: %s" % e)
    except OSError as e:
        if e.filename is None:
            raise
        raise CommandError("the virtual board's flash: %s: %s" % (e.filename, e.strerror or e))


def run_page(args):
    """The simulator page: boards on the virtual board, served until Ctrl-C."""
    import shutil
    import tempfile

    from ..simulator.page import ListenError, run
    from ..simulator.page.server import flash_dirs
    from ..simulator.scripted_board import load_board

    if args.micropython or args.heap or args.source:
        raise CommandError("--micropython, --heap and --source go with --headless --board NAME")
    config = read_config(args.config) if args.config else None
    board = args.board or (config or {}).get("board") or "wall"
    if config is not None:
        config = board_config(config, board)
    load_board(board)  # a bad name or definition is a clear error before anything starts
    if not 1 <= args.boards <= 16:
        raise CommandError("--boards must be 1..16")
    if args.script or args.pretty or args.cpython:
        raise CommandError("--script, --pretty and --cpython go with --headless")
    if args.remote and args.boards != 1:
        raise CommandError("--remote goes with one board (no --boards)")
    hall = hall_arg(args.hall) if args.hall else None
    check_flash(args.flash, args.boards, args.remote)

    def out(text):
        print(text, flush=True)

    flash, tmp = args.flash, None
    if flash is None and (config is not None or hall is not None):
        tmp = tempfile.mkdtemp(prefix="carom-sim-")  # the boards' flash, laid out here with their config.json
        flash = os.path.join(tmp, "flash")
    ready = None
    try:
        walls = flash_dirs(flash, 1 if args.remote else args.boards)
        for i, folder in enumerate(walls):
            if config is not None:
                write_config(folder, config)
            if hall is None:
                warn_flash_config(folder, i, len(walls))
        if hall is not None:
            ready = join_hall(hall, walls, board, out)
        with board_errors():
            return run(board, args.listen, count=args.boards, flash=flash, out=out, remote=args.remote, ready=ready)
    except (ValueError, ListenError) as e:
        raise CommandError(str(e))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


# ---- config.json: --config, the one in --flash, and --hall's network ------------------------------------


def read_config(path):
    """--config FILE: the dict the user wrote, checked as the board's firmware/config.py load()
    checks it (size, UTF-8, JSON, schema); CommandError naming what is wrong."""
    from .config import as_the_board_reads

    try:
        with open(path, "rb") as f:
            raw = f.read(_READ_MOST)  # more than the board reads: refused below for its size
    except OSError as e:
        raise CommandError("--config %s: %s" % (path, e.strerror or e))
    try:
        as_the_board_reads(raw, path)
    except ValueError as e:
        raise CommandError("--config %s; the boards would refuse it (nothing was started)" % e)
    return json.loads(raw.decode("utf-8"))


_READ_MOST = 64 * 1024  # of a config.json: the board reads 4 KB at most


def board_config(config, board):
    """--config's dict for boards NAME: its "board" must agree with --board."""
    named = config.get("board")
    if named is not None and named != board:
        raise CommandError("--config names board %r but --board is %r: give one, or the same" % (named, board))
    return dict(config, board=board)


def write_config(folder, config):
    """config.json in a board's flash folder (made if missing), as firmware/config.py writes it."""
    from .config import config_bytes

    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "config.json"), "wb") as f:
            f.write(config_bytes(config))
    except OSError as e:
        raise CommandError("cannot write the board's config.json in %s: %s" % (folder, e.strerror or e))


def flash_config(folder):
    """(the dict in folder/config.json or None when there is none, None or the reason the board
    refuses it: what load() says, with what the board runs instead)."""
    from .config import as_the_board_reads, firmware_config

    if folder is None:
        return None, None
    path = os.path.join(folder, "config.json")
    try:
        with open(path, "rb") as f:
            raw = f.read(_READ_MOST)
    except FileNotFoundError:
        return None, None
    except OSError as e:
        return None, "%s: %s" % (path, e.strerror or e)
    try:
        as_the_board_reads(raw, path)
    except ValueError as e:
        fw, _ = firmware_config()
        good = os.path.join(folder, fw.good_path("config.json"))
        try:
            with open(good, "rb") as f:
                as_the_board_reads(f.read(_READ_MOST), good)
        except (OSError, ValueError):
            runs = "it has no good copy (config.good.json), so it runs the defaults, showing E %d" % (
                fw.ERROR_CONFIG_DEFAULTS
            )
        else:
            runs = "it runs its last good configuration (config.good.json), showing E %d" % fw.ERROR_CONFIG
        return None, "%s; the board refuses it: %s" % (e, runs)
    return json.loads(raw.decode("utf-8")), None


def warn_flash_config(folder, i, count):
    """Say on stderr that a board's config.json in --flash is one it refuses (it starts anyway,
    as a real board does, on its good copy or the defaults, with the error on its display), or
    that it names a Wi-Fi network and a broker the board will not find without --hall."""
    cfg, problem = flash_config(folder)
    who = "board %d: " % (i + 1) if count > 1 else ""
    if problem:
        print("carom sim: warning: %s%s" % (who, problem), file=sys.stderr, flush=True)
    elif isinstance(cfg, dict) and (cfg.get("wifi") or {}).get("ssid") and (cfg.get("mqtt") or {}).get("host"):
        print(
            "carom sim: note: %sconfig.json names the Wi-Fi %r and the MQTT broker %s: here the board finds no "
            "network and keeps looking (carom sim --hall HOST:PORT gives the boards one that reaches a broker)"
            % (who, cfg["wifi"]["ssid"], cfg["mqtt"]["host"]),
            file=sys.stderr,
            flush=True,
        )


HALL_SSID = "carom-sim"  # the network a board joins when its config.json names none (open)


def hall_arg(text):
    """--hall HOST[:PORT] -> (host as given, port, its IPv4 address)."""
    import socket

    from ..hall.broker import parse_broker

    try:
        host, port = parse_broker(text)
    except ValueError:
        raise CommandError(
            "--hall wants HOST[:PORT], the MQTT broker carom hall uses, e.g. 127.0.0.1:1883, not %r" % text
        )
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)
    except OSError as e:
        raise CommandError("--hall %s: no IPv4 address for %s (%s)" % (text, host, e.strerror or e))
    return host, port, infos[0][4][0]


def hall_configs(hall, folders, board):
    """Each board's config.json with the hall's network and broker, and its own table id; returns
    [(config, AccessPoint, what to say)].  A config.json the board refuses stops carom (it would not
    reach the hall: it runs its good copy or the defaults)."""
    from ..simulator.vboard import AccessPoint

    host, port, ip = hall
    out, tables = [], set()
    for i, folder in enumerate(folders):
        cfg, problem = flash_config(folder)
        if problem:
            raise CommandError("--hall: %s; fix it (carom config import) or remove it" % problem)
        cfg = dict(cfg or {"board": board})
        wifi = dict(cfg.get("wifi") or {})
        if not wifi.get("ssid"):
            wifi = {"ssid": HALL_SSID, "password": ""}
        mqtt = dict(cfg.get("mqtt") or {})
        if not mqtt.get("host"):
            mqtt["host"], mqtt["port"] = ip, port
        mqtt.setdefault("port", 1883)
        table = mqtt.get("table") or ""
        if not table or table in tables:
            n = i + 1
            while "t%d" % n in tables:
                n += 1
            table = mqtt["table"] = "t%d" % n
        tables.add(table)
        cfg["wifi"], cfg["mqtt"] = wifi, mqtt
        ap = AccessPoint(
            wifi["ssid"], wifi.get("password") or "", connect_s=0.5, routes={(mqtt["host"], mqtt["port"]): (ip, port)}
        )
        where = "%s:%d" % (mqtt["host"], mqtt["port"])
        to = "%s:%d" % (host, port)
        said = "table %s on Wi-Fi %r, MQTT to %s%s" % (
            table,
            wifi["ssid"],
            where,
            "" if where == "%s:%d" % (ip, port) else " (reaches " + to + ")",
        )
        out.append((cfg, ap, said))
    return out


def join_hall(hall, folders, board, out):
    """Write each board's config.json for the hall and return the page's ready(url, sessions),
    which gives each wall board its access point."""
    import socket

    host, port, ip = hall
    boards = hall_configs(hall, folders, board)
    for folder, (cfg, ap, said) in zip(folders, boards):
        write_config(folder, cfg)
    try:
        socket.create_connection((ip, port), 2).close()
    except OSError as e:
        print(
            "carom sim: warning: --hall %s:%d: nothing answers there yet (%s); the boards keep trying"
            % (host, port, e.strerror or e),
            file=sys.stderr,
            flush=True,
        )

    def ready(url, sessions):
        from ..simulator.vboard import BoardError

        for s in sessions:
            if s.index < len(boards) and not s.layout.get("remote"):
                try:
                    s.vb.set_wifi(boards[s.index][1])
                except BoardError as e:  # its process ended: the page shows the board failed, and why
                    print(
                        "carom sim: warning: board %d is not on the hall's network: %s" % (s.index + 1, e),
                        file=sys.stderr,
                        flush=True,
                    )
                    continue
                out("carom sim: board %d: %s" % (s.index + 1, boards[s.index][2]))

    return ready


def run_sim(args):
    if not args.headless:
        return run_page(args)
    if args.board:
        return run_board(args)
    if args.micropython or args.heap or args.source:
        raise CommandError("--micropython, --heap and --source go with --board NAME (the virtual board)")
    if args.config or args.hall:
        raise CommandError(
            "--config and --hall go with the virtual board (the page, or --headless --board NAME); "
            "the scripted rules take `new` lines"
        )
    from ..simulator.scripted_rules import ordered, scripted_docs

    lines = read_lines(args)
    for text, doc in scripted_docs(lines, "cpython" if args.cpython else "micropython"):
        if args.pretty:
            print("%-28s %s" % (text, summary(doc)))  # the whole event, however long
        else:
            print(json.dumps(ordered(doc)))
        sys.stdout.flush()
    return 0
