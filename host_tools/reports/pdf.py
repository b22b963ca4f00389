"""HTML to PDF through a headless Chromium (chromium --headless --print-to-pdf)."""

import os
import shutil
import subprocess
import tempfile

from ..errors import CommandError

CHROMIUMS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "microsoft-edge")


def find_chromium():
    """A browser that prints HTML to PDF headless, or None."""
    env = os.environ.get("CAROM_CHROMIUM")
    if env:
        return env if os.path.exists(env) or shutil.which(env) else None
    for name in CHROMIUMS:
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


def html_to_pdf(chromium, html_path, pdf_path, timeout=90):
    profile = tempfile.mkdtemp(prefix="carom-pdf-")
    cmd = [
        chromium,
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--disable-extensions",
        "--user-data-dir=" + profile,
        "--no-pdf-header-footer",
        "--print-to-pdf-no-header",
        "--print-to-pdf=" + os.path.abspath(pdf_path),
        "file://" + os.path.abspath(html_path),
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
    try:
        if os.path.exists(pdf_path):
            os.remove(pdf_path)
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CommandError("%s did not print %s to PDF within %d s" % (chromium, html_path, timeout))
    except OSError as e:
        raise CommandError("cannot run %s: %s" % (chromium, e))
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    try:
        with open(pdf_path, "rb") as f:
            ok = f.read(5) == b"%PDF-"
    except OSError:
        ok = False
    if not ok:
        tail = " ".join((out.stderr or "").strip().splitlines()[-2:])
        raise CommandError("%s did not make %s (exit %d): %s" % (chromium, pdf_path, out.returncode, tail))
