"""`carom sim`: the simulator.

`--headless` is the scripted mode: referee events, one per line, from stdin
or `--script FILE`; after each line the match state document is printed as
one JSON line with a key `refused` (null, or the reason).  By default the
rules core runs on the real MicroPython unix port; `--cpython` runs the same
firmware modules inside this process instead.
"""

import contextlib
import os
import sys

from ..errors import CommandError
from ..simulator.board_config import board_config, check_flash, read_config, warn_flash_config, write_config


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
    wait, close (the docs: docs/scripted.md).

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
        "--voice",
        metavar="PACK",
        help="the boards get this voice pack (carom voice makes one): the page plays what they say (Sound) and "
        "logs it; --headless: each line says what was said",
    )
    p.add_argument(
        "--source",
        action="store_true",
        help="with --heap: run the firmware's .py files rather than the .mpy that carom deploy puts on a board",
    )
    p.set_defaults(run=run_sim)


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
    if args.voice:
        from .deploy import voice_pack

        options["voice"] = voice_pack(args.voice)
    lines = read_lines(args)

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

    from ..simulator.hall_network import join_hall
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

    voice = None
    if args.voice:
        from .deploy import voice_pack

        voice = voice_pack(args.voice)
    flash, tmp = args.flash, None
    if flash is None and (config is not None or hall is not None or voice is not None):
        tmp = tempfile.mkdtemp(prefix="carom-sim-")  # the boards' flash, laid out here with their config.json
        flash = os.path.join(tmp, "flash")
    ready = None
    try:
        walls = flash_dirs(flash, 1 if args.remote else args.boards)
        lay_out_walls(walls, config, hall, voice)
        if hall is not None:
            ready = join_hall(hall, walls, board, out)
        with board_errors():
            return run(board, args.listen, count=args.boards, flash=flash, out=out, remote=args.remote, ready=ready)
    except (ValueError, ListenError) as e:
        raise CommandError(str(e))
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


def lay_out_walls(walls, config, hall, voice):
    """Each wall board's flash folder: its config.json (the page's --config), its voice pack."""
    for i, folder in enumerate(walls):
        if config is not None:
            write_config(folder, config)
        if voice is not None:
            os.makedirs(folder, exist_ok=True)
            with open(os.path.join(folder, "voice.pack"), "wb") as f:
                f.write(voice)
        if hall is None:
            warn_flash_config(folder, i, len(walls))


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
    from ..simulator.scripted_rules import run_script

    run_script(read_lines(args), write, "cpython" if args.cpython else "micropython", args.pretty)
    return 0


def write(text):
    """The scripted modes' output: on stdout at once, line by line."""
    sys.stdout.write(text)
    sys.stdout.flush()
