"""`carom hall`'s process: the dashboard (dashboard.py), its HTTP side (routes.py), the MQTT
subscription (broker.py) and the tournament (organiser.py) put together and run until Ctrl-C.
"""

import asyncio
import os
import socket
import sqlite3
import tempfile
import time

from .. import web
from ..web import ListenError  # noqa: F401 (host_tools.hall's)
from . import organiser as org
from . import signin
from .broker import Subscriber, parse_broker
from .dashboard import Dashboard
from .model import Hall
from .routes import Server

PORT = 8090  # the default --listen port, shown in --listen's error message


def parse_listen(text):
    """'127.0.0.1:8090', ':8090', '[::1]:8090', 'localhost:0' (0: any free port) -> (host, port)."""
    return web.parse_listen(text, PORT)


def default_client_id(port):
    """Stable across restarts (the broker keeps the session's reports), distinct per listening port."""
    host = "".join(c for c in socket.gethostname() if c.isalnum() or c in "-_")[:32] or "host"
    return "carom-hall-%s-%d" % (host, port)


CLIENT_ID_CHECK = {
    True: "carom hall: the broker makes each login its own client id: no board's login can take the hall's session",
    False: "carom hall: warning: the broker lets a login connect with any client id, so a board's login can throw the"
    " hall (or another board) off the broker; set use_username_as_clientid true (carom hall-broker prints"
    " the configuration)",
    None: "carom hall: warning: could not check the broker's client ids (no answer)",
    "anonymous": "carom hall: warning: no --user: on a broker without logins anyone on the network can take the"
    " hall's client id and throw it off (reports are still checked by their signatures); carom"
    " hall-broker prints a configuration with logins",
}


def open_organiser(db, prefix, out, tournament=None, keys=None):
    """The Organiser on the tournament file `db` (None: a temporary file, removed at the end) and
    the key file `keys` (None: hall-keys.json beside `db`; none without `db`).
    Returns (organiser, cleanup)."""
    tmpdir = None
    if db is None:
        tmpdir = tempfile.mkdtemp(prefix="carom-hall-")
        db = os.path.join(tmpdir, "tournament.sqlite")
    if tournament is None:
        from .tournament import Tournament as tournament
    try:
        t = tournament(db)  # ValueError naming the file when it is not a tournament's
        store = org.SentStore(db)
    except (OSError, sqlite3.Error, ValueError) as e:
        if tmpdir is not None:
            import shutil

            shutil.rmtree(tmpdir, ignore_errors=True)
        if isinstance(e, ValueError):
            raise
        raise ValueError("cannot use the tournament file %s: %s" % (db, e)) from None
    if tmpdir is not None:
        out(
            "carom hall: the tournament is kept in a temporary file only (no --db FILE): it is gone when"
            " carom hall stops"
        )
    else:
        out("carom hall: the tournament is in %s" % db)
    if keys is None and tmpdir is None:
        keys = os.path.join(os.path.dirname(os.path.abspath(db)), "hall-keys.json")
    if keys is not None:
        from .setups import Keys

        try:
            found = Keys(keys).tables()
        except (OSError, ValueError) as e:
            raise ValueError(str(e)) from None
        if found:
            listed = ", ".join(found[:20]) + (" ..." if len(found) > 20 else "")
        else:
            listed = "none yet: carom hall-key --keys %s --table ID gives a board its key" % keys
        out("carom hall: the tables' hall keys are in %s (%d tables: %s)" % (keys, len(found), listed))
    else:
        out("carom hall: no key file (--keys FILE, or --db FILE: hall-keys.json beside it): no setup can be sent")
    o = org.Organiser(t, store, org.KeyFile(keys), publish=None, prefix=prefix, out=out)

    def cleanup():
        store.close()
        close = getattr(t, "close", None)
        if close is not None:
            close()
        if tmpdir is not None:
            import shutil

            shutil.rmtree(tmpdir, ignore_errors=True)

    return o, cleanup


def run(
    broker,
    listen="127.0.0.1:8090",
    prefix="carom",
    client_id=None,
    results_file=None,
    out=print,
    ready=None,
    stop=None,
    user=None,
    password=None,
    db=None,
    keys=None,
    tournament=None,
    organiser_code=None,
):
    """Serve the dashboard until Ctrl-C / SIGTERM (or `stop`, a threading.Event, is set).

    `db`: the tournament's SQLite file (None: a temporary one); `keys`: the hall's key file
    (setups.Keys; None: hall-keys.json beside `db`); `tournament`: the class (tests).
    `ready(url, dashboard)` is called once the page answers.  `organiser_code`: the organiser's
    sign-in code (None: a new one, printed once).  Raises ValueError for a bad --broker,
    --listen or --db and ListenError when the address cannot be served.
    """
    host, port = parse_broker(broker)
    sock = web.listen(listen, PORT)
    try:
        organiser, cleanup = open_organiser(db, prefix, out, tournament, keys)
        try:
            if organiser_code is None:
                organiser_code = signin.new_code()
                out(
                    "carom hall: the organiser signs in with the code %s (shown only here; --organiser-code-file"
                    " keeps one across restarts)" % organiser_code
                )
            return asyncio.run(
                _main(
                    sock,
                    host,
                    port,
                    prefix,
                    client_id or default_client_id(sock.getsockname()[1]),
                    results_file,
                    out,
                    ready,
                    stop,
                    user,
                    password,
                    organiser,
                    signin.SignIn(organiser_code),
                )
            )
        finally:
            cleanup()
    finally:
        sock.close()


async def _main(
    sock,
    host,
    port,
    prefix,
    client_id,
    results_file,
    out,
    ready,
    stop,
    user=None,
    password=None,
    organiser=None,
    sign_in=None,
):
    loop = asyncio.get_running_loop()
    stopping = web.stop_signals(loop)
    address = "%s:%d" % (host if ":" not in host else "[%s]" % host, port)
    dash = Dashboard(
        Hall(prefix, organiser.keys.key if organiser is not None else None), address, results_file, out, organiser
    )

    def on_message(topic, payload, retained, ack):
        dash.received(topic, payload, time.time(), loop, ack)  # stamped on paho's thread, when the message arrived

    def on_link(connected, detail):
        try:
            loop.call_soon_threadsafe(dash.link, connected, detail, time.time())
        except RuntimeError:
            pass

    subscriber = Subscriber(host, port, prefix, client_id, on_message, on_link, user, password)
    if organiser is not None:
        organiser.publish = subscriber.publish
    url = web.url_of(sock)

    def checked(own):
        try:
            loop.call_soon_threadsafe(out, CLIENT_ID_CHECK[own])
        except RuntimeError:
            pass

    def started():
        subscriber.start(checked)
        if not user:
            out(CLIENT_ID_CHECK["anonymous"])
        out(
            "carom hall: tables under %s/<table>/ on the broker %s (client id %s%s)"
            % (prefix, address, client_id, ", user %s" % ascii(user) if user else "")
        )
        out("carom hall: the dashboard is at %s  (Ctrl-C stops it); the organiser's page at %s/organiser" % (url, url))
        if ready:
            ready(url, dash)

    async def closing():
        out("carom hall: stopping")
        await loop.run_in_executor(None, subscriber.stop)
        dash.close()

    await web.serve(Server(dash, sign_in), sock, stopping, stop, started, closing)
    return 0
