"""`carom pair`: pair a referee remote with its wall board, or unpair a board.

    carom pair --wall DEV --remote DEV2     a new random key on both, each told the other's MAC
    carom pair --unpair --device DEV        forget the pairing (radio.peer and radio.key to null)

Through mpremote (host_tools/link/boardio.py): each board's MAC address is read on
the board, a fresh 32-byte key is made on the host (secrets.token_bytes), and
both boards' config.json get radio.peer and radio.key (and the remote the
wall's Wi-Fi channel: ESP-NOW hears only its own channel), checked with the
firmware's schema and written atomically; then both are reset. The key is
never printed or logged; `carom config show` shows it as ***.
"""

import secrets

from ..link.boardio import BoardIO, add_timeout_argument
from .config import FILE, checked_config, parse_board_config, write_config
from ..errors import CommandError

MAC_CODE = (
    "import network; w = network.WLAN(network.STA_IF); w.active(True); "
    "print(w.config('mac').hex(), w.config('channel'))"
)


def radio_of(board):
    """(MAC as aa:bb:.., Wi-Fi channel) of a board."""
    text = board.exec(MAC_CODE, "reading the MAC address").strip().splitlines()
    words = text[-1].split() if text else []
    if len(words) != 2 or len(words[0]) != 12:
        raise CommandError("the board did not give its MAC address and channel (%r)" % (text[-1:],))
    mac = words[0]
    try:
        channel = int(words[1])
    except ValueError:
        channel = None
    return ":".join(mac[i : i + 2] for i in range(0, 12, 2)), channel


def set_radio(board, peer, key, device, channel=None):
    """Put radio.peer and radio.key (and the channel) into the board's config.json (checked first)."""
    current = parse_board_config(board.read_file(FILE))
    new = dict(current)
    radio = dict(new.get("radio") or {})
    radio["peer"] = peer
    radio["key"] = key
    radio["channel"] = channel
    new["radio"] = radio
    write_config(board, checked_config(new, "config.json on %s" % device))
    board.remove("/radio.last")  # a new pairing: the remote's numbers start afresh


def arguments(p):
    """Pair a referee remote with its wall board over their USB cables.

    Reads both MAC addresses, makes a new random 32-byte key, and writes
    radio.peer (the other board's MAC) and radio.key into both boards'
    config.json; then resets both. --unpair --device DEV forgets a pairing.
    The key is never printed.
    """
    p.add_argument("--wall", metavar="DEV", help="the wall board: a serial port or a pyserial URL")
    p.add_argument("--remote", metavar="DEV", help="the referee remote: a serial port or a pyserial URL")
    p.add_argument("--unpair", action="store_true", help="forget the pairing of --device")
    p.add_argument("--device", "-d", metavar="DEV", help="with --unpair: the board to unpair")
    add_timeout_argument(p)
    p.set_defaults(run=run_pair)


def run_pair(args):
    if args.unpair:
        if not args.device or args.wall or args.remote:
            raise CommandError("usage: carom pair --unpair --device DEV")
        with BoardIO(args.device, reset_on_close=True, timeout=args.timeout) as board:
            set_radio(board, None, None, args.device)
        print("unpaired %s" % args.device)
        return 0
    if not args.wall or not args.remote:
        raise CommandError("usage: carom pair --wall DEV --remote DEV (or --unpair --device DEV)")
    if args.wall == args.remote:
        raise CommandError("the wall board and the remote must be two boards")
    with BoardIO(args.wall, timeout=args.timeout) as wall, BoardIO(args.remote, timeout=args.timeout) as remote:
        wall_mac, channel = radio_of(wall)
        remote_mac, _ = radio_of(remote)
        key = secrets.token_bytes(32).hex()
        # The remote must use the wall's channel (the wall's Wi-Fi access point decides it).
        set_radio(remote, wall_mac, key, args.remote, channel if channel and 1 <= channel <= 14 else None)
        remote.remove("/remote.boot")  # a new pairing: the remote's boot counter starts again at 1
        set_radio(wall, remote_mac, key, args.wall)
        wall.restart()
        remote.restart()
    print("paired the wall board %s with the remote %s (a new key on both)" % (wall_mac, remote_mac))
    return 0
