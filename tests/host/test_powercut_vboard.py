"""Power cuts at random moments on the virtual board: the match always comes back.

What is tried: a match played with random presses (points, ends of inning,
fouls, undo by long press); 200 times the power is cut at a random moment
of a press (before it registers, while held, after the release, while the
display and the flash are being written) and switched on again.  After each
restart the displays must show the state after the last completed press or
the one before it, never anything else; and the flash holds the same match
(host-side load of the journal).  The board on which this runs is the real
firmware on the MicroPython unix port; the power cut kills its process.
"""

import random

from host_tools import firmware_path
from host_tools.simulator.scripted_board import ScriptedBoard

FIELDS = ("A.score", "B.score", "A.innings", "B.innings", "A.run", "B.run", "A.high_run", "B.high_run")
CONFIG = {"board": "wall", "match": {"game": "straight_rail", "target": 500}}


def seen(sb):
    s = sb.state()
    return {k: s["fields"][k] for k in FIELDS}


def shows(doc):
    """What the board's fields show for a match state document."""
    a, b = doc["players"]["A"], doc["players"]["B"]
    run = {"A": "  ", "B": "  "}
    shooter = doc["turn"]
    if shooter:
        run[shooter] = "%2d" % doc["current_run"]
    return {
        "A.score": "%4d" % a["score"],
        "B.score": "%4d" % b["score"],
        "A.innings": "%2d" % a["innings"],
        "B.innings": "%2d" % b["innings"],
        "A.run": run["A"],
        "B.run": run["B"],
        "A.high_run": "%4d" % a["high_run"],
        "B.high_run": "%4d" % b["high_run"],
    }


class Model:
    """The rules core on the host, fed the same actions as the board's buttons."""

    def __init__(self):
        firmware_path()
        import matchdoc
        import rules

        self.rules, self.matchdoc = rules, matchdoc
        self.m = rules.Match(game="straight_rail", target=500)
        self.m.lag(rules.A, 0)
        self.m.choose(rules.A, False, 0)

    def copy(self):
        c = Model.__new__(Model)
        c.rules, c.matchdoc = self.rules, self.matchdoc
        c.m = self.rules.Match(game="straight_rail", target=500)
        import rules_setup

        for i in range(self.m.n):
            rules_setup.apply(c.m, *self.m.entry(i))
        return c

    def act(self, button, long):
        r, m = self.rules, self.m
        p = r.A if button.startswith("A.") else r.B
        if button == "foul":
            m.foul(r.NOBODY, r.FOULS.index("other"), 0)
        elif long:
            m.undo(0)
        elif button.endswith(".end"):
            m.miss(p, 0)
        else:
            m.point(p, 0)

    def doc(self):
        return self.matchdoc.doc(self.m, 0)


def untimed(doc):
    """The document without the match's elapsed time: the board's presses take real time, the
    model's none (every other clock is off in this match)."""
    doc.pop("elapsed_s")
    return doc


def test_two_hundred_power_cuts(tmp_path):
    firmware_path()
    import matchdoc
    import rules
    import store

    rng = random.Random(20261130)
    model = Model()
    flash = tmp_path / "flash"
    with ScriptedBoard("wall", str(flash), config=CONFIG) as sb:
        vb = sb.vb
        sb.line("press A.point")  # A breaks
        assert seen(sb) == shows(model.doc())
        cuts = presses = came_through = 0
        while cuts < 200:
            turn = model.doc()["turn"]
            button, hold = rng.choice(
                [
                    (turn + ".point", 0.1),
                    (turn + ".point", 0.1),
                    (turn + ".point", 0.1),
                    (turn + ".end", 0.1),
                    ("foul", 0.1),
                    (turn + ".point", 1.3),
                ]
            )  # 1.3 s: undo
            long = hold > 1
            if rng.random() < 0.5:  # a press that completes
                assert sb.line("hold %s %s" % (button, hold)) is None
                model.act(button, long)
                presses += 1
                assert seen(sb) == shows(model.doc()), "press %d (%s)" % (presses, button)
                continue
            # A press the power cut interrupts somewhere: before it registers, while held,
            # after the release, around the display and flash writes.
            after = model.copy()
            after.act(button, long)
            vb.press(button)
            vb.advance(rng.choice([0, 0.005, 0.02, 0.05, 0.06, 0.1, hold]))
            if rng.random() < 0.6:
                vb.release(button)
                vb.advance(rng.choice([0, 0.01, 0.04, 0.05, 0.06, 0.2, 0.5]))
            vb.power_off()
            cuts += 1
            # The flash holds the match before the press or after it, nothing else.
            m = rules.Match()
            assert store.MatchStore(str(flash / "data")).restore(m, 0), "cut %d: no match on the flash" % cuts
            saved = untimed(matchdoc.doc(m, 0))
            before_doc, after_doc = untimed(model.doc()), untimed(after.doc())
            assert saved in (before_doc, after_doc), "cut %d during %s: the flash holds neither" % (cuts, button)
            if saved == after_doc and after_doc != before_doc:
                model = after
                came_through += 1
            vb.release(button)
            vb.power_on()
            vb.advance(0.6)
            assert seen(sb) == shows(saved), "cut %d: the displays do not show the saved match" % cuts
        assert presses > 100 and came_through > 10, (presses, came_through)


def test_flash_holds_the_same_match_as_the_displays(tmp_path):
    """The journal read on the host gives the match the board shows."""
    firmware_path()
    import matchdoc
    import rules
    import store

    with ScriptedBoard("wall", str(tmp_path / "flash"), config=CONFIG) as sb:
        # A breaks, makes 2 and ends; B makes 1 and fouls; the foul is undone (long press);
        # A's point is refused: B is at the table again.
        for line in (
            "press A.point",
            "press A.point",
            "press A.point",
            "press A.end",
            "press B.point",
            "press foul",
            "hold A.point 1.3",
            "press A.point",
        ):
            assert sb.line(line) is None
        shown = sb.state()["fields"]
        sb.vb.power_off()
        m = rules.Match()
        assert store.MatchStore(str(tmp_path / "flash" / "data")).restore(m, 0)
        doc = matchdoc.doc(m, 0)
        assert "%4d" % doc["players"]["A"]["score"] == shown["A.score"]
        assert "%4d" % doc["players"]["B"]["score"] == shown["B.score"]
        assert doc["players"]["A"]["runs"] == [2] and doc["players"]["B"]["runs"] == [1]
        assert doc["turn"] == "B" and doc["players"]["B"]["fouls"] == 0
