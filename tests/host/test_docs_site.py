"""The documentation site builds offline in strict mode (mkdocs.yml): no broken link, no page
missing from the navigation, no warning.

What is tried: the pages as they are in the checkout (docs/), with the files `make docs` makes and
git does not keep (each board's card) made into a copy first, built into a scratch folder with
`mkdocs build --strict`; then a page with a broken link and a page the navigation does not name are
added to the copy, and each must fail the build with its warning.
"""

import os
import shutil
import subprocess
import sys

import pytest
import yaml

from host_tools import ROOT
from host_tools.hardware import artefacts

mkdocs = pytest.importorskip("mkdocs", reason="mkdocs-material is in the test extras (pip install -e .[test])")


def site(tmp_path, edit=None):
    """Build a copy of docs/ with the checkout's mkdocs.yml (its docs_dir and site_dir moved into
    tmp_path); edit(docs folder, config) may change them first. Returns the finished process."""
    docs = tmp_path / "docs"
    shutil.copytree(os.path.join(ROOT, "docs"), docs)
    artefacts.write(_boards(), str(docs / "build"))  # the card: made here, not kept in git
    with open(os.path.join(ROOT, "mkdocs.yml"), encoding="utf-8") as f:
        config = yaml.safe_load(f)
    config["docs_dir"] = str(docs)
    config["site_dir"] = str(tmp_path / "site")
    if edit:
        edit(docs, config)
    path = tmp_path / "mkdocs.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def _boards():
    sys.path.insert(0, os.path.join(ROOT, "firmware"))
    import boarddef

    folder = os.path.join(ROOT, "boards")
    return [boarddef.load(os.path.join(folder, n)) for n in sorted(os.listdir(folder)) if n.endswith(".json")]


def test_the_site_builds_in_strict_mode(tmp_path):
    got = site(tmp_path)
    assert got.returncode == 0, got.stderr
    assert "WARNING" not in got.stderr, got.stderr
    for page in ("index.html", "simulator.html", "build/index.html", "reference/config.html", "hall/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_a_broken_link_fails_the_build(tmp_path):
    def edit(docs, config):
        with open(docs / "table" / "buttons.md", "a", encoding="utf-8") as f:
            f.write("\nSee [the lost page](no-such-page.md).\n")

    got = site(tmp_path, edit)
    assert got.returncode != 0 and "no-such-page.md" in got.stderr, got.stderr


def test_a_page_left_out_of_the_navigation_fails_the_build(tmp_path):
    def edit(docs, config):
        (docs / "table" / "orphan.md").write_text("# An orphan\n", encoding="utf-8")

    got = site(tmp_path, edit)
    assert got.returncode != 0 and "orphan.md" in got.stderr, got.stderr
