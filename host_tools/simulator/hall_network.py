"""`carom sim --hall HOST[:PORT]`: the page's boards on a Wi-Fi network that reaches the hall's
MQTT broker, each with a table id of its own (their config.json rewritten, an access point each).
"""

import sys

from ..errors import CommandError
from .board_config import flash_config, write_config


HALL_SSID = "carom-sim"  # the network a board joins when its config.json names none (open)


def hall_configs(hall, folders, board):
    """Each board's config.json with the hall's network and broker, and its own table id; returns
    [(config, AccessPoint, what to say)].  A config.json the board refuses stops carom (it would not
    reach the hall: it runs its good copy or the defaults)."""
    from .vboard import AccessPoint

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
        from .vboard import BoardError

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
