"""`carom hall` as a person starts it, its TV page read back from its tiles, and the organiser's page
signed in: the hall tests (tests/host/test_hall*.py) and tools/pictures.py use them.
"""

import json
import re
import urllib.error
import urllib.request

from tools.run import CAROM, LineProcess, wait_for


class HallProc(LineProcess):
    """`carom hall` as a subprocess: its URL, its output, Ctrl-C."""

    name = "carom hall"

    def __init__(self, broker_port, *extra, timeout=30, env=None):
        super().__init__(
            [CAROM, "hall", "--broker", "127.0.0.1:%d" % broker_port, "--listen", "127.0.0.1:0", *extra], env=env
        )
        self.url = self.wait_line(r"the dashboard is at (http://\S+)", timeout).group(1)

    @property
    def code(self):
        """The organiser's sign-in code the hall printed (None when it read one from a file)."""
        for line in self.lines:
            m = re.search(r"the organiser signs in with the code (\S+)", line)
            if m:
                return m.group(1)
        return None

    def table(self, table):
        return {t["table"]: t for t in self.get("/api/tables")["tables"]}.get(table)

    def stop(self):
        return super().stop(timeout=20)

    def organise(self, action, body):
        """POST /api/organiser/<action> as the organiser's page does (its code, the JSON and the
        hall's header): (status, the answer's JSON), a refusal's too."""
        req = urllib.request.Request(
            self.url + "/api/organiser/" + action,
            data=json.dumps(body).encode(),
            headers={
                "Content-Type": "application/json",
                "X-Carom-Hall": "organiser",
                "X-Carom-Organiser-Code": self.code,
            },
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def stop_keeping_secrets(self, secrets):
        """Stop the hall (Ctrl-C): it must exit 0, and none of `secrets` (the tables' keys, a
        {table: key} dict) may be in anything it printed."""
        code = self.stop()
        output = "\n".join(self.lines)
        for key in secrets.values():
            assert key not in output
        assert code == 0, output


TILE_JS = """(id) => {
  const t = document.querySelector('.tile[data-table="' + CSS.escape(id) + '"]');
  if (!t) return null;
  const q = s => t.querySelector(s).textContent;
  const player = p => ({name: q('[data-player=' + p + '] .p-name'), score: q('[data-player=' + p + '] .p-score'),
                        innings: q('[data-player=' + p + '] .p-inn'),
                        at_table: t.querySelector('[data-player=' + p + ']').dataset.atTable});
  return {name: q('.t-name'), status: t.dataset.status, label: q('.t-status'), game: q('.t-game'),
          A: player('A'), B: player('B'), run: q('.f-run'), countdown: q('.f-countdown'), eq: q('.f-eq'),
          phase: q('.f-phase'), result: q('.f-result')};
}"""


class Page:
    """A page of the hall in its own browser context, open once it says it is ready.  fixed_time:
    the page's clock (Date) stands at that time (a datetime or epoch seconds; tools/pictures.py: the
    same picture every run); `context`: more of new_context's options (timezone_id, locale)."""

    def __init__(self, browser, url, width=1920, height=1080, fixed_time=None, **context):
        self.context = browser.new_context(viewport={"width": width, "height": height}, **context)
        self.page = self.context.new_page()
        self.errors = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        if fixed_time is not None:
            self.page.clock.set_fixed_time(fixed_time)
        self.page.goto(url)
        self.page.wait_for_selector("body[data-ready=true]")

    def tile(self, table):
        return self.page.evaluate(TILE_JS, table)

    def wait_tile(self, table, check, what, timeout=15):
        return wait_for(lambda: self.tile(table), lambda t: t is not None and check(t), timeout, what)

    def wait_scores(self, shown):
        """Wait until each tile shows its table's scores: shown, [(what, loadgen board)]."""
        for what, t in shown:
            d = t.doc()
            self.wait_tile(
                t.table,
                lambda tile, d=d: (
                    (tile["A"]["score"], tile["B"]["score"])
                    == (str(d["players"]["A"]["score"]), str(d["players"]["B"]["score"]))
                ),
                "%s's tile" % what,
            )

    def results(self):
        return self.page.evaluate("""() => [...document.querySelectorAll('#result-rows tr')].map(
            tr => [...tr.children].map(td => td.textContent))""")

    def close(self):
        assert not self.errors, self.errors
        self.context.close()


# The organiser's list of tables: {table: what its Board cell says}.
ORGANISER_ROWS_JS = """() => Object.fromEntries([...document.querySelectorAll('#tables tr[data-table]')].map(
    tr => [tr.dataset.table, tr.querySelector('td.board').textContent]))"""


def organiser_page(browser, hall, width=1400, height=1000, **options):
    """The organiser's page, signed in with the code the hall printed, as a person signs in
    (`options`: Page's)."""
    p = Page(browser, hall.url + "/organiser", width, height, **options)
    p.page.fill("#signin input[name=code]", hall.code)
    p.page.click("#signin button[type=submit]")
    p.page.wait_for_selector("#signin", state="hidden")
    return p
