"""`carom deploy`: put the firmware on a board through mpremote, safely.

    carom deploy --device /dev/ttyUSB0 --board wall [--source]

1. Build (host_tools/build.py): firmware/*.py to .mpy with mpy-cross (main.py
   and boot.py stay source; `--source` keeps every module as .py), and
   boards/*.json for /boards/.
2. Ask the board (one exec, hashlib on the board) for the SHA-256 of every
   file the build has, of each module's other form (an `X.py` shadows an
   `X.mpy`: MicroPython imports the .py first), of the files the previous
   deploy listed in /deploy.json, and of anything left in /.deploy/.
3. Copy ONLY the files whose hash differs, each under /.deploy/<path>
   (staging), and check each copy's hash on the board.  A staged file whose
   hash already matches (an earlier deploy cut short) is not sent again.
4. Switch, in an order that a disconnect or a power cut cannot turn into a
   board that does not boot:
   - one changed file and nothing to remove: a single os.rename over the old
     file (LittleFS renames atomically).
   - otherwise: /.deploy/plan.json lists the renames and removals; then ONE
     exec, sent whole before it starts (so the host going away cannot stop
     it half way), renames /.deploy/guard.py over /main.py, every staged file
     into place, removes the stale files, moves /deploy.json (the manifest)
     and finally the firmware's own main.py into place, LAST.  Should the
     power go in those milliseconds, the board boots into the guard
     main.py, which finishes the same plan (every step can be done again)
     and restarts the board: it then runs the new firmware, whole.
   Before the switch the old firmware is untouched: a cut while copying
   leaves the old firmware running (and the staged copies for next time).
   With --voice PACK the voice pack (a folder `carom voice` made) is one more file,
   /voice.pack, copied the same way (never removed by a deploy without it).
5. config.json: written as {"board": NAME} (checked by firmware/config.py)
   when there is none; when there is one for another board, its `board` is
   set (temp file + rename).
6. Reset (mpremote's `reset`) and watch the boot for the app's
   "carom: running on board NAME" (or what went wrong).
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from .. import ROOT, firmware_path
from ..boards import check_board_name, role_of
from ..link.boardio import (
    APP_RUNNING,
    BoardIO,
    Progress,
    add_device_argument,
    add_reset_argument,
    add_wait_argument,
    boot_problems,
    kb,
)
from .config import config_bytes
from ..errors import CommandError

STAGE = "/.deploy"
PLAN = STAGE + "/plan.json"
GUARD = STAGE + "/guard.py"
MANIFEST = "/deploy.json"
KEEP_SOURCE = ("main.py", "boot.py")
VOICE_PATH = "/voice.pack"  # the voice pack (firmware/voicenames.py: PACK_FILE), copied with --voice
MAX_VOICE_BYTES = 1024 * 1024  # a pack is under 400 KB; a larger file is not one
FREE_MARGIN = 16 * 1024  # flash kept free beyond the staged copies

# Runs on the board: removes the staging folder and what is in it.
CLEAN_CODE = """\
def _carom_clean(d):
    import os
    try:
        for e in os.ilistdir(d):
            if e[1] == 0x4000:
                _carom_clean(d + '/' + e[0])
            else:
                os.remove(d + '/' + e[0])
        os.rmdir(d)
    except OSError:
        pass
"""

# Runs on the board: in the commit exec and in the guard main.py. Every step
# can be done again: a rename whose source is gone was done before a cut.
FINISH_CODE = (
    CLEAN_CODE
    + """\
def _carom_finish(stop=-1):
    import os, json
    def mv(a, b):
        try:
            os.stat(a)
        except OSError:
            return
        try:
            os.rename(a, b)
        except OSError:
            os.remove(b)
            os.rename(a, b)
    with open('/.deploy/plan.json') as f:
        plan = json.load(f)
    for d in plan['mkdir']:
        try:
            os.mkdir(d)
        except OSError:
            pass
    n = 0
    for a, b in plan['rename']:
        if n == stop:
            return False
        mv(a, b)
        n += 1
    for p in plan['remove']:
        try:
            os.remove(p)
        except OSError:
            pass
    mv('/.deploy/deploy.json', '/deploy.json')
    mv('/.deploy/main.py', '/main.py')
    _carom_clean('/.deploy')
    return True
"""
)

GUARD_CODE = (
    """\
# main.py written by `carom deploy`, here only while a deploy switches files
# into place. A deploy cut short (power, cable) is finished at boot: every
# staged file goes into place, the firmware's own main.py last, and the board
# restarts into the new firmware.
"""
    + FINISH_CODE
    + """\
try:
    _ok = _carom_finish()
except Exception as e:
    print('carom deploy: cannot finish the interrupted deploy:', e)
    _ok = False
if _ok:
    print('carom deploy: finished an interrupted deploy; restarting')
    import machine
    machine.reset()
"""
)

GUARD_SHA = hashlib.sha256(GUARD_CODE.encode()).hexdigest()


def sha(data):
    return hashlib.sha256(data).hexdigest()


def build_local(source, names=None):
    """{"/path": bytes} of the firmware as the board's flash should hold it; `names` (a dict)
    receives the rename plan of its .mpy files (build.build)."""
    from ..build import build

    tmp = tempfile.mkdtemp(prefix="carom-deploy-")
    try:
        written = build(tmp, source=source, names=names)
        files = {}
        for rel in written:
            with open(os.path.join(tmp, rel), "rb") as f:
                files["/" + rel] = f.read()
        return files
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def firmware_id(files):
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode() + b"\0" + sha(files[path]).encode() + b"\n")
    return h.hexdigest()[:12]


def git_version():
    try:
        out = subprocess.run(
            ["git", "-C", ROOT, "describe", "--always", "--dirty", "--tags"], capture_output=True, text=True, timeout=10
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def make_manifest(files, source, names=None):
    """The deploy's manifest (/deploy.json). "names": the rename plan its .mpy files were
    built with, {short name: firmware name}, so that a traceback from the board reads back
    without this checkout (`python -m host_tools.shortnames --device PORT`)."""
    manifest = {
        "format": 1,
        "firmware": firmware_id(files),
        "version": git_version(),
        "source": bool(source),
        "deployed_at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "files": {p: sha(files[p]) for p in sorted(files)},
    }
    if names:
        manifest["names"] = {short: name for name, short in sorted(names.items(), key=lambda kv: kv[1])}
    return manifest


def counterpart(path):
    """The other form of a module: /x.mpy <-> /x.py (None for main.py, boot.py, JSON)."""
    if path.count("/") != 1:
        return None
    name = path[1:]
    if name in KEEP_SOURCE:
        return None
    if name.endswith(".mpy"):
        return "/" + name[:-4] + ".py"
    if name.endswith(".py"):
        return "/" + name[:-3] + ".mpy"
    return None


def is_firmware_path(path):
    """What a deploy may remove: a top-level module or a board definition (never config,
    data, main.py or boot.py), whatever an old manifest lists."""
    if path.startswith("/boards/"):
        name = path[len("/boards/") :]
        return "/" not in name and name.endswith(".json")
    return path.count("/") == 1 and path.endswith((".py", ".mpy")) and path[1:] not in KEEP_SOURCE


def staged(path):
    return STAGE + path


def read_manifest(board):
    raw = board.read_file(MANIFEST)
    if raw is None:
        return None
    try:
        m = json.loads(raw.decode())
        return m if isinstance(m, dict) and isinstance(m.get("files"), dict) else None
    except ValueError:
        return None


class Deployer:
    """One deploy on a connected BoardIO; `out` gets the steps and the bar."""

    def __init__(self, board, files, source, out=None, names=None):
        """files: build_local's; names: the rename plan they were built with (kept in the
        manifest)."""
        self.board = board
        self.files = files
        self.source = source
        self.names = names
        self.out = out or sys.stderr
        self.local = {p: sha(d) for p, d in files.items()}
        self.copied = []
        self.removed = []
        self.resumed = []
        self.finished_old = False

    def say(self, text):
        self.out.write(text + "\n")
        self.out.flush()

    # ---- what the board has ---------------------------------------------------------

    def survey(self):
        """Hash everything that matters on the board; finish an interrupted switch first."""
        board = self.board
        self.old_manifest = read_manifest(board)
        old_files = [p for p in (self.old_manifest or {}).get("files", {}) if isinstance(p, str)]
        paths = set(self.files) | {"/main.py"} | set(old_files)
        paths |= {c for c in map(counterpart, self.files) if c}
        paths |= {staged(p) for p in self.files}
        self.remote = board.hashes(sorted(paths))
        if self.remote.get("/main.py") == GUARD_SHA:
            self.say("An earlier deploy was cut short while switching files: finishing it first")
            out = board.exec(FINISH_CODE + "print(_carom_finish())", "finishing the interrupted deploy")
            if out.strip() != "True":
                raise CommandError("could not finish the interrupted deploy on the board: %s" % out.strip())
            self.finished_old = True
            self.old_manifest = read_manifest(board)
            self.remote = board.hashes(sorted(paths))
        self.changed = [p for p in sorted(self.files) if self.remote.get(p) != self.local[p]]
        stale = set()
        for p in self.files:
            c = counterpart(p)
            if c and c not in self.files and self.remote.get(c) is not None:
                stale.add(c)
        for p in old_files:
            if p not in self.files and is_firmware_path(p) and self.remote.get(p) is not None:
                stale.add(p)
        self.stale = sorted(stale)

    def check_board(self):
        info = self.board.info()
        self.say(
            "Board: MicroPython %s on %s, %s of flash free, %s of RAM free"
            % (info["version"], info["machine"], kb(info["flash_free"]), kb(info["mem_free"]))
        )
        if not self.source:
            mpy = [d for p, d in self.files.items() if p.endswith(".mpy")]
            if mpy and info["mpy"] is not None and mpy[0][:1] == b"M" and mpy[0][1] != info["mpy"]:
                raise CommandError(
                    "the board's MicroPython loads .mpy version %d, this mpy-cross makes version %d: flash a "
                    "matching MicroPython (carom flash), or deploy the source with --source; nothing was written"
                    % (info["mpy"], mpy[0][1])
                )

    # ---- copying ------------------------------------------------------------------

    def stage(self, paths):
        """Copy the files to /.deploy/ (unless a good copy is there) and check every hash."""
        board = self.board
        todo = [p for p in paths if self.remote.get(staged(p)) != self.local[p]]
        self.resumed = [p for p in paths if p not in todo]
        need = sum(len(self.files[p]) for p in todo)
        free = board.info()["flash_free"]
        if need + FREE_MARGIN > free:
            raise CommandError(
                "not enough free flash on the board: %s to copy, %s free; nothing was switched" % (kb(need), kb(free))
            )
        folders = sorted({os.path.dirname(staged(p)) for p in paths})
        for d in folders:
            board.makedirs(d)
        if todo:
            bar = Progress(self.out, "Copying %d file%s (%s)" % (len(todo), "s"[: len(todo) != 1], kb(need)), need)
            done = 0
            bar.update(0)
            try:
                for p in todo:
                    data = self.files[p]

                    def progress(n, total, base=done):
                        bar.update(base + n)

                    board.write_file(staged(p), data, progress=progress)
                    done += len(data)
                    bar.update(done)
            finally:
                bar.interrupt()
        got = board.hashes([staged(p) for p in paths])
        bad = [p for p in paths if got[staged(p)] != self.local[p]]
        if bad:
            raise CommandError(
                "the copies of %s on the board do not match what was sent; nothing was switched "
                "(run carom deploy again)" % ", ".join(bad)
            )

    def clean(self):
        self.board.exec(CLEAN_CODE + "_carom_clean(%r)" % STAGE, "removing %s" % STAGE)

    # ---- switching ------------------------------------------------------------------

    def plan(self):
        renames = [[staged(p), p] for p in self.changed if p != "/main.py"]
        folders = sorted({os.path.dirname(p) for p in self.changed if os.path.dirname(p) != "/"})
        return {"mkdir": folders, "rename": renames, "remove": self.stale}

    def run(self, stop_after=None):
        """The whole deploy of the firmware files; returns True when something changed.
        stop_after (tests only): stop the switch after that many renames, as a power cut would."""
        self.check_board()
        self.survey()
        manifest = make_manifest(self.files, self.source, self.names)
        old = self.old_manifest or {}
        if not self.changed and not self.stale:
            if any(self.remote.get(staged(p)) for p in self.files):
                self.clean()  # copies left by a deploy cut short before its switch
            if old.get("files") != manifest["files"] or old.get("names") != manifest.get("names"):
                self.board.write_file_atomic(MANIFEST, dump(manifest))
                self.say("The firmware was already there; wrote the manifest %s" % MANIFEST)
            return False
        if len(self.changed) == 1 and not self.stale:
            (path,) = self.changed
            self.stage([path])
            self.board.rename(staged(path), path)  # one atomic rename: old or new, never half
            self.board.write_file_atomic(MANIFEST, dump(manifest))
            self.clean()
            self.copied = [path]
            return True
        to_stage = list(self.changed)
        if "/main.py" not in to_stage:
            to_stage.append("/main.py")  # the plan ends by renaming main.py into place
        self.stage(to_stage)
        board = self.board
        board.write_file(STAGE + "/deploy.json", dump(manifest))
        board.write_file(PLAN, dump(self.plan()))
        board.write_file(GUARD, GUARD_CODE.encode())
        check = board.hashes([GUARD, PLAN, STAGE + "/deploy.json"])
        if (
            check[GUARD] != GUARD_SHA
            or check[PLAN] != sha(dump(self.plan()))
            or check[STAGE + "/deploy.json"] != sha(dump(manifest))
        ):
            raise CommandError(
                "the deploy plan on the board does not match what was sent; nothing was switched "
                "(run carom deploy again)"
            )
        stop = -1 if stop_after is None else int(stop_after)
        # One exec, sent whole before it runs: the host cannot stop it half way.
        out = board.exec(
            "import os\ntry:\n os.rename(%r, '/main.py')\nexcept OSError:\n os.remove('/main.py')\n"
            " os.rename(%r, '/main.py')\n%sprint(_carom_finish(%d))" % (GUARD, GUARD, FINISH_CODE, stop),
            "switching the new firmware into place",
        )
        if stop_after is None and out.strip() != "True":
            raise CommandError("switching the firmware did not finish on the board: %s" % out.strip())
        self.copied = list(self.changed)
        self.removed = list(self.stale)
        return True


def dump(obj):
    return (json.dumps(obj, indent=1, sort_keys=True) + "\n").encode()


def ensure_config(board, name, out):
    """config.json: {"board": NAME} when missing; `board` set when it names another board.
    Returns what was done, or None."""
    firmware_path()
    import config

    raw = board.read_file("/" + config.FILE)
    if raw is None:
        d = {"board": name}
        config.normalize(d, config.FILE)
        board.write_file_atomic("/" + config.FILE, config_bytes(d))
        return 'wrote config.json: {"board": "%s"}' % name
    try:
        d = json.loads(raw.decode())
    except ValueError as e:
        out.write(
            "warning: config.json on the board is not valid JSON (%s); left as it is: fix it with "
            "carom config import FILE\n" % e
        )
        return None
    current = d.get("board") if isinstance(d, dict) else None
    if current == name:
        return None
    import config_edit

    try:
        new = config_edit.set_path(d, "board", name, config.FILE)
    except ValueError as e:
        out.write(
            "warning: config.json on the board is invalid (%s); its board was not set to %s: fix it with "
            "carom config\n" % (e, name)
        )
        return None
    board.write_file_atomic("/" + config.FILE, config_bytes(new))
    return "config.json: board %s -> %s" % (current or "(default wall)", name)


def voice_pack(path):
    """The bytes of the voice pack at `path` (a pack folder, or its voice.pack), checked."""
    from ..userfile import read_bounded
    from ..voice import make, pack

    if os.path.isdir(path):
        if not os.path.isfile(os.path.join(path, make.PACK)):
            raise CommandError("the voice pack folder %s has no %s (carom voice makes one)" % (path, make.PACK))
        path = os.path.join(path, make.PACK)
    data = read_bounded(path, MAX_VOICE_BYTES, "the voice pack")
    try:
        p = pack.Pack(data)
    except (pack.PackError, UnicodeError) as e:
        raise CommandError("%s: %s (carom voice makes one)" % (path, e))
    damaged = p.damaged()
    if damaged:
        raise CommandError("%s: damaged clips %s: make it again with carom voice" % (path, ", ".join(damaged)))
    return data


def arguments(p):
    """Build the firmware (mpy-cross .mpy; main.py and boot.py as source) and copy
    to the board only the files whose SHA-256 differs, through mpremote.

    New files are staged in /.deploy/ and checked; then they are renamed into
    place with main.py last, so a board that loses power or its cable at any
    moment still boots the old firmware or the new one, never a mix. Writes
    /deploy.json (the manifest), config.json for --board when there is none,
    resets the board and watches it start.
    """
    add_device_argument(p)
    p.add_argument(
        "--board",
        "-b",
        required=True,
        metavar="NAME",
        help="the board definition to run (boards/NAME.json): wall, mini, ...",
    )
    p.add_argument("--source", action="store_true", help="deploy the .py sources instead of .mpy (for debugging)")
    p.add_argument(
        "--voice",
        metavar="PACK",
        help="copy a voice pack too (a folder carom voice made, or its voice.pack): the board speaks the "
        "referee's calls in its language; without it the board's pack stays as it is",
    )
    add_reset_argument(p, "starts the new firmware")
    add_wait_argument(p)
    p.set_defaults(run=run_deploy)


def run_deploy(args):
    check_board_name(args.board)
    out = sys.stderr
    voice = voice_pack(args.voice) if args.voice else None  # checked before anything is built or sent
    out.write("Building the firmware%s...\n" % (" (sources)" if args.source else " with mpy-cross"))
    names = {}
    files = build_local(args.source, names)
    if voice is not None:
        files[VOICE_PATH] = voice
    out.write("Connecting to %s...\n" % args.device)
    with BoardIO(args.device, out=out, reset_on_close=args.reset, timeout=args.timeout) as board:
        dep = Deployer(board, files, args.source, out, names)
        changed = dep.run()
        config_note = ensure_config(board, args.board, out)
        for p in dep.copied:
            print("copied %s" % p[1:])
        for p in dep.removed:
            print("removed %s" % p[1:])
        if dep.finished_old:
            print("finished an earlier deploy that was cut short")
        if changed:
            print(
                "deployed %d of %d files to %s (firmware %s%s)"
                % (len(dep.copied), len(files), args.device, firmware_id(files), ", sources" if args.source else "")
            )
        else:
            print(
                "up to date: all %d files on %s match (firmware %s); nothing copied"
                % (len(files), args.device, firmware_id(files))
            )
        if config_note:
            print(config_note)
        if not args.reset:
            print("not reset: the board is at the REPL (the app starts at the next reset)")
            return 0
        ok, lines = board.restart_and_watch(args.wait, role_of(args.board))
        lines = lines or []
        problems = boot_problems(lines)
        if ok:
            print("reset; the board started: %s" % next(ln for ln in lines if APP_RUNNING in ln))
        elif ok is None and not problems:
            print(
                "reset"
                + (
                    "; nothing seen of the app within %.0f s (check with carom doctor)" % args.wait
                    if args.wait > 0 and lines
                    else ""
                )
            )
        for ln in problems:
            print("the board said: %s" % ln)
        if ok is False:
            raise CommandError("the firmware is deployed but the board reports a problem at boot: %s" % problems[0])
    return 0
