"""pyproject.toml builds without a warning: no screens of `project.license` deprecation, nor the
"Editable installation" box, on the first `make sim`.

The build runs offline: setuptools (>= 77, in the test extras) from the venv, no build
isolation, no index. The whole project is built as pip builds it for `pip install -e .`.
What the wheel holds: host_tools and its data, none of the repository's harness (tools/: the
bench, the simulated hall boards).
"""

import os
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def setuptools_version():
    try:
        import setuptools
    except ImportError:
        return None
    return tuple(int(x) for x in setuptools.__version__.split(".")[:2])


def test_the_license_is_an_spdx_string_and_the_backend_takes_it():
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        project = tomllib.load(f)
    assert project["project"]["license"] == "MIT"
    assert "setuptools>=77" in project["build-system"]["requires"]  # the first that takes an SPDX string


def source_copy(tmp_path):
    src = tmp_path / "src"
    shutil.copytree(
        ROOT,
        src,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "build",
            "*.egg-info",
            "__pycache__",
            ".pytest_cache",
            ".hypothesis",
            "node_modules",
            "tests",
            "docs",
            "sim-flash*",
        ),
    )
    return src


NEW_SETUPTOOLS = pytest.mark.skipif(
    (setuptools_version() or (0,)) < (77,), reason="setuptools >= 77 not in the venv (tools/venv.sh)"
)


def build_wheel(tmp_path):
    """`pip wheel` of a copy of the project into tmp_path/out, offline: the CompletedProcess."""
    src = source_copy(tmp_path)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-build-isolation",
            "--no-deps",
            "--no-index",
            "-w",
            str(tmp_path / "out"),
            str(src),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )


@NEW_SETUPTOOLS
def test_building_the_project_prints_no_warning(tmp_path):
    got = build_wheel(tmp_path)
    output = got.stdout + got.stderr
    assert got.returncode == 0, output
    assert "license" not in output.lower(), output
    assert "warning" not in output.lower(), output
    (wheel,) = os.listdir(tmp_path / "out")
    import zipfile

    with zipfile.ZipFile(tmp_path / "out" / wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in meta.splitlines()


@NEW_SETUPTOOLS
def test_the_editable_install_prints_no_warning(tmp_path):
    """What `pip install -e .` (tools/venv.sh) asks setuptools for: the editable wheel (PEP 660), with
    everything setuptools says, which pip shows: no warning box, and the project's root on the path."""
    src = source_copy(tmp_path)
    out = tmp_path / "out"
    out.mkdir()
    got = subprocess.run(
        [
            sys.executable,
            "-c",
            "from setuptools.build_meta import build_editable; print(build_editable(%r))" % str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=src,
    )
    output = got.stdout + got.stderr
    assert got.returncode == 0, output
    for word in ("warning", "license", "Editable installation", "!!"):
        assert word.lower() not in output.lower(), output
    import zipfile

    (wheel,) = os.listdir(out)
    with zipfile.ZipFile(out / wheel) as z:
        (pth,) = [n for n in z.namelist() if n.endswith(".pth")]
        assert z.read(pth).decode().strip() == str(src)


HARNESS = ("tools/", "host_tools/bench/", "host_tools/hall/loadgen.py", "host_tools/hall/tourneyrun.py")


@NEW_SETUPTOOLS
def test_the_wheel_ships_the_package_without_the_test_and_bench_harness(tmp_path):
    """The wheel holds host_tools and its data (the printable pages' styles among them), and none of
    the repository's harness: the bench (tools/bench), the simulated hall boards (tools/hall: loadgen,
    tourneyrun)."""
    got = build_wheel(tmp_path)
    assert got.returncode == 0, got.stdout + got.stderr
    (wheel,) = os.listdir(tmp_path / "out")
    import zipfile

    with zipfile.ZipFile(tmp_path / "out" / wheel) as z:
        names = z.namelist()
    shipped = [n for n in names if ".dist-info/" not in n]
    assert all(n.startswith("host_tools/") for n in shipped), [n for n in shipped if not n.startswith("host_tools/")]
    assert not [n for n in shipped if n.startswith(HARNESS) or "loadgen" in n or "tourneyrun" in n]
    for data in (
        "host_tools/hall/tournament/print.css",
        "host_tools/reports/sheet.css",
        "host_tools/hall/tournament/__init__.py",
        "host_tools/cli.py",
    ):
        assert data in shipped, data


def test_no_shipped_module_imports_the_harness():
    """A `carom` command runs from the wheel: nothing under host_tools imports tools (the bench, the
    simulated hall boards), which the wheel does not hold."""
    import ast

    found = []
    for folder, _, files in os.walk(os.path.join(ROOT, "host_tools")):
        for name in files:
            if not name.endswith(".py") or os.path.basename(folder) == "mp":  # mp/: MicroPython modules
                continue
            path = os.path.join(folder, name)
            with open(path, encoding="utf-8") as f:
                tree = ast.parse(f.read(), path)
            for node in ast.walk(tree):
                if isinstance(node, ast.Import):
                    mods = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and not node.level:
                    mods = [node.module or ""]
                else:
                    continue
                found += [
                    "%s: %s" % (os.path.relpath(path, ROOT), m) for m in mods if m == "tools" or m.startswith("tools.")
                ]
    assert not found, found
