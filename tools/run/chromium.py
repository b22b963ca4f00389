"""Debian's Chromium under Playwright, headless, as the tests and tools/pictures.py drive it.

No sandbox (the tests run as root in containers) and nothing the browser would fetch by itself
(background networking, component updates, sync): a page sees only the server it was sent to.
"""

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


def launch(playwright):
    """The browser, from a started sync_playwright()."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
