"""The chip's time estimated by `make bench` (tools/bench/chiptime.py): a host time times
the ratio of this machine's pystone score to published ESP32 scores.

What is tried, with no network (the tests fetch nothing): every published score names its
source, board and MicroPython; the factor is ordered and comes from the host's score and the
published ones; an estimate scales with the host time; the goals' verdicts at both ends of
the range; a step's collections counted from its bytes at the published time of one, its file
time left out; and a bench without the program (not fetched, no network) says so and estimates
nothing, where every estimate reads "-".
"""

import urllib.request

import pytest

from tools.bench import chiptime, longmatch


@pytest.fixture
def host(monkeypatch):
    """The host's score, as a measured one would be (the program is not run here)."""
    monkeypatch.setitem(chiptime._cache, "host", 200000.0)
    return 200000.0


def test_every_published_score_names_its_source_board_and_micropython():
    assert len(chiptime.PUBLISHED) >= 2
    for p in chiptime.PUBLISHED:
        assert p["source"].startswith("https://gh.072103.xyz/micropython/"), p
        assert "ESP32" in p["board"] and "240 MHz" in p["board"]
        assert p["micropython"] and p["how"] and 100 < p["pystones"] < 100000


def test_the_factor_is_the_host_over_the_published_scores_and_scales_linearly(host):
    low, high = chiptime.factor()
    scores = [p["pystones"] for p in chiptime.PUBLISHED]
    assert low == host / max(scores) and high == host / min(scores) and low < high
    a = chiptime.estimate(1.0)
    b = chiptime.estimate(3.0)
    assert b[0] == pytest.approx(3 * a[0]) and b[1] == pytest.approx(3 * a[1])
    assert chiptime.label(1.0) == "%.0f-%.0f ms" % a
    assert chiptime.label(10.0).endswith(" s")


def test_a_goal_is_met_at_both_ends_at_the_low_end_only_or_not(host):
    low, high = chiptime.factor()
    assert longmatch.verdict(20 / high, 20) == "met"
    assert longmatch.verdict(20 / low, 20) == "met at the low end only"
    assert longmatch.verdict(20 / low * 1.01, 20) == "NOT met"


def test_every_published_collection_time_names_its_source_and_the_range_spans_them():
    assert chiptime.GC_MS == (min(g["ms"] for g in chiptime.GC_PUBLISHED), max(g["ms"] for g in chiptime.GC_PUBLISHED))
    for g in chiptime.GC_PUBLISHED:
        assert g["source"].startswith("https://gh.072103.xyz/") and g["how"], g


def test_a_steps_collections_are_counted_from_its_bytes_at_the_published_time(host):
    every = chiptime.GC_EVERY
    assert [chiptime.collections(n) for n in (0, 1, every, every + 1, 3 * every)] == [0, 1, 1, 2, 3]
    low, high = chiptime.estimate(0.05)
    assert chiptime.estimate_with_collections(0.05, 0) == (low, high)
    got = chiptime.estimate_with_collections(0.05, every + 1)
    assert got == pytest.approx((low + 2 * chiptime.GC_MS[0], high + 2 * chiptime.GC_MS[1]))
    # a step just within the goal on its own time is past it with a collection
    _, f_high = chiptime.factor()
    assert longmatch.verdict(19.9 / f_high, 20) == "met"
    assert longmatch.verdict(19.9 / f_high, 20, 100) != "met"
    # its file time is the flash's on the chip: left out of the CPU's estimate
    assert longmatch.chip_high(1000, 0, 400) == pytest.approx(chiptime.estimate(0.6)[1])


def test_without_the_program_and_no_network_nothing_is_estimated(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(chiptime, "HOME", str(tmp_path / "nothing-here"))
    monkeypatch.setattr(chiptime, "_cache", {})
    # An interpreter named (not run: the program is missing first), so that a checkout without
    # the 32-bit MicroPython reads the same reason.
    monkeypatch.setattr(chiptime, "micropython32_exe", lambda: str(tmp_path / "micropython"))

    def offline(*args, **kw):
        raise OSError("no network")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(chiptime.NoEstimate, match="could not be fetched"):
        chiptime.program()
    assert chiptime.label(5.0) == "-"
    assert longmatch.verdict(5.0, 20) == "?"
    assert chiptime.chiptime_section() is None
    assert "no estimate: pystone_lowmem could not be fetched" in capsys.readouterr().out


def test_an_archive_that_is_not_the_one_checked_is_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(chiptime, "HOME", str(tmp_path / "bench"))

    class Forged:
        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

        def read(self):
            return b"not the archive"

    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **kw: Forged())
    with pytest.raises(chiptime.NoEstimate, match="SHA-256"):
        chiptime.program()
    assert not (tmp_path / "bench").exists()
