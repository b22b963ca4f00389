"""A display unplugged on the page shows its error code without a press, in Debian's Chromium.

Nobody touches a button: the display is unticked under "Displays plugged in", and the message
display shows E 70 within the firmware's retry period (firmware/view.py RETRY_MS) of the board's
clock, as the page drew it; plugged back in, the score is back and the code goes, as quickly.
Times are the board's virtual time, read from the event stream the page gets (test_web.RECORD_JS).
"""

from helpers import wait_for
from host_tools import firmware_path
from host_tools.simulator.page.pacing import MAX_STEP_S
from test_web import RECORD_JS, sim_page


def retry_s():
    firmware_path()
    import view

    return view.RETRY_MS / 1000


def first_state_after(p, log_text, pred):
    """(t of the log line `log_text`, t of the first state after it where pred(chips by key) holds)."""

    def times():
        events = p.page.evaluate("() => window.recorded")
        logged = [e["t"] for kind, e in events if kind == "log" and e["text"] == log_text]
        if not logged:
            return None, None
        seen = [
            e["t"]
            for kind, e in events
            if kind == "state" and e["board"] == 0 and e["t"] >= logged[0] and pred({c["key"]: c for c in e["chips"]})
        ]
        return logged[0], seen[0] if seen else None

    return wait_for(times, lambda v: v[1] is not None, 30, "a state after %r" % log_text)


def test_an_unplugged_display_shows_its_code_without_a_press(browser):
    with sim_page(browser) as (sim, p):
        page = p.page
        message = p.fields["message"][0]
        score = p.fields["A.score"][0]
        page.evaluate(RECORD_JS)
        page.uncheck('.board[data-board="0"] input[data-chip="%s"]' % score)
        p.wait_text("message", "E 70", timeout=30)  # drawn on the page, no button pressed
        unplugged, shown = first_state_after(p, "display %s unplugged" % score, lambda c: c[message]["text"] == "E 70")
        assert not any(" pressed " in x or "long press" in x for x in p.log_lines())  # nobody pressed a button
        late = shown - unplugged
        print("unplugged to E 70: %.2f virtual s (retry period %.1f s)" % (late, retry_s()))
        assert late <= retry_s() + MAX_STEP_S + 0.1, late
        assert p.chip(score)["present"] == "false"

        page.check('.board[data-board="0"] input[data-chip="%s"]' % score)
        p.wait_text("A.score", "   0", timeout=30)
        p.wait_text("message", lambda m: m != "E 70", timeout=30)
        plugged, back = first_state_after(
            p, "display %s plugged in" % score, lambda c: c[score]["lit"] and c[message]["text"] != "E 70"
        )
        assert back - plugged <= retry_s() + MAX_STEP_S + 0.1, back - plugged
        assert p.errors == []
