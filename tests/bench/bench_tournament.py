"""A 64-player tournament from the draw to the final on simulated boards; prints one JSON line.

A real mosquitto on a free loopback port, `carom hall --db --keys` as a subprocess, 16 tables each
played by a SetupBoard (host_tools/hall/tourneyrun.py: setups checked with the table's key, matches
to 5 played out stroke by stroke with the firmware's rules core, every state and the report
published): 8 groups of 8 (224 matches), the top 2 of each into a knock-out (15 matches).  Measured:
the time from the draw to the champion, the hall process's peak memory (VmHWM) and CPU time, the
setups sent and the matches played.  Everything on one machine; times are reported, never asserted.

    .venv/bin/python tests/bench/bench_tournament.py [players] [tables]     (about a minute)
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "host"))

from host_tools.hall.setups import Keys  # noqa: E402
from host_tools.hall.tourneyrun import TournamentRun  # noqa: E402
from mosquitto import Mosquitto, available  # noqa: E402


def proc_status(pid, key):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])  # kB
    return None


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main(players=64, tables=16):
    if not available():
        print(json.dumps({"skipped": "mosquitto is not installed (tools/deps.sh)"}))
        return
    folder = tempfile.mkdtemp(prefix="carom-bench-tournament-")
    broker = Mosquitto().start()
    keys = Keys(os.path.join(folder, "hall-keys.json"))
    names = ["t%d" % (i + 1) for i in range(tables)]
    for t in names:
        keys.new_key(t)
    carom = os.path.join(os.path.dirname(sys.executable), "carom")
    hall = subprocess.Popen([carom, "hall", "--broker", "127.0.0.1:%d" % broker.port, "--listen", "127.0.0.1:0",
                             "--db", os.path.join(folder, "cup.sqlite"), "--keys", keys.path],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    run = None
    try:
        url = None
        for line in hall.stdout:
            m = re.search(r"the dashboard is at (http://\S+)", line)
            if m:
                url = m.group(1)
            if url and " connected (" in line:
                break
        threading_drain(hall)
        rss_before = proc_status(hall.pid, "VmRSS")
        cpu_before = cpu_seconds(hall.pid)
        run = TournamentRun(url, broker.port, keys, names, seed=1)
        groups = max(1, players // 8)
        run.organise(players=players, fmt="groups_knockout", groups=groups, advance=2, target=5, seed=7)
        r = run.play(timeout=1200)
        out = {"players": players, "tables": tables, "groups": groups, "matches": r["matches"], "done": r["done"],
               "byes": r["byes"], "played": r["played"], "setups": r["setups"], "refused": r["refused"],
               "states": r["states"], "champion": r["champion"] is not None, "seconds": round(r["seconds"], 1),
               "hall_cpu_s": round(cpu_seconds(hall.pid) - cpu_before, 1),
               "hall_rss_start_kb": rss_before, "hall_rss_end_kb": proc_status(hall.pid, "VmRSS"),
               "hall_peak_kb": proc_status(hall.pid, "VmHWM"),
               "db_bytes": os.path.getsize(os.path.join(folder, "cup.sqlite"))}
        print(json.dumps(out))
    finally:
        if run is not None:
            run.close()
        hall.terminate()
        try:
            hall.wait(20)
        except subprocess.TimeoutExpired:
            hall.kill()
        broker.close()
        shutil.rmtree(folder, ignore_errors=True)


def threading_drain(proc):
    """Keep reading the hall's output (a full pipe would stop it)."""
    import threading

    threading.Thread(target=lambda: [None for _ in proc.stdout], daemon=True).start()


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
