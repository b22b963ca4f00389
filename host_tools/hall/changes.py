"""The organiser's changes, applied: the body of POST /api/organiser/<action> (the actions:
routes.py), once the HTTP side let it in, checked field by field (organiser.check_*) and made on
the tournament.
"""

import json

from . import organiser as org


def apply(dash, action, body):
    """One change on the hall `dash` (dashboard.Dashboard); the pages hear of it.
    Returns the answer; Refused (400: the field; 409: not now; 404) else."""
    o = dash.organiser
    t = o.t
    try:
        if action == "view":
            dash.publish_view(org.check_view(body))
            return {"view": o.view}
        if action == "configure":
            t.configure(**org.check_configure(body))
        elif action == "players":
            players = org.check_players(body)
            known = {p["name"] for p in t.players()}
            if len(known) + len(players) > org.MAX_PLAYERS:
                raise org.Refused("at most %d players" % org.MAX_PLAYERS, 409)
            for p in players:  # all or none: a name twice is refused before any is added
                if p["name"] in known:
                    raise org.Refused(
                        "name: %s is already a player (names must differ: the boards' reports"
                        " are matched by them)" % json.dumps(p["name"], ensure_ascii=False),
                        409,
                    )
                known.add(p["name"])
            ids = [t.add_player(**p) for p in players]
            dash.tournament_changed(full=True)
            return {"added": ids}
        elif action == "table":
            table = org.check_table(body)
            tables = [r["table"] for r in t.tables()]
            if table not in tables and len(tables) >= org.MAX_TABLES:
                raise org.Refused("at most %d tables" % org.MAX_TABLES, 409)
            t.add_table(table)
        elif action == "untable":
            table = org.check_table(body)
            t.remove_table(table)
            o.withdraw(table, clear=True)
        elif action == "draw":
            t.draw(seed=org.check_draw(body))
        elif action == "decide":
            t.decide(*org.check_decide(body))
        elif action in CORRECTIONS:
            CORRECTIONS[action](dash, o, t, body)
        else:
            raise org.Refused("no such change: %s" % ascii(action[:40]), 404)
    except (ValueError, KeyError) as e:
        if isinstance(e, org.Refused):
            raise
        raise org.Refused(str(e.args[0] if isinstance(e, KeyError) and e.args else e)[:300], 409) from None
    dash.tournament_changed(full=True)
    return {"ok": True}


def _walkover(dash, o, t, body):
    match, present = org.check_walkover(body)
    _withdraw_from(o, [t.walkover(match, present)])


def _withdraw_player(dash, o, t, body):
    player, excluded = org.check_withdraw(body)
    _withdraw_from(o, t.withdraw(player, excluded=excluded))


def _result(dash, o, t, body):
    match, a, b, winner = org.check_result(body)
    _withdraw_from(o, [t.enter_result(match, a, b, winner)])


def _move(dash, o, t, body):
    match, table = org.check_move(body)
    _withdraw_from(o, [t.move(match, table)])  # the new table gets it from send_due (tournament_changed)


def _unsend(dash, o, t, body):
    """The setup a table's board holds (waiting, or in an empty lag) taken back; its match waits
    for a table again.  Refused while the board plays it (a started match is never taken back)."""
    table = org.check_table(body)
    on = t.setup_of(table)
    if on is None:
        raise org.Refused("table %s holds no setup of the hall's: no match of the tournament is on it" % table, 409)
    board = dash.hall.tables.get(table)
    state = board.state if board is not None else None
    if t.match(on[0])["status"] == "playing" and not org.board_free(state):
        raise org.Refused("match %d is played on %s: a started match is never taken back" % (on[0], table), 409)
    t.unassign(on[0])
    o.withdraw(table)


def _withdraw_from(o, tables):
    for table in tables:
        if table is not None:
            o.withdraw(table)


# The organiser's corrections: action -> handler(organiser, tournament, body).
CORRECTIONS = {
    "walkover": _walkover,
    "withdraw": _withdraw_player,
    "result": _result,
    "move": _move,
    "unsend": _unsend,
}
