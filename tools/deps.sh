#!/bin/sh
# Install the Debian packages the tests need, only when they are missing:
#   chromium   the browser the simulator page's Playwright tests drive (/usr/bin/chromium)
#   mosquitto  an MQTT broker for the hall tests
#   graphviz   the dot that WireViz draws the wiring with (make docs, carom board wiring)
#   espeak-ng  the speech synthesizer `carom voice` makes the wall board's voice packs with
# Uses apt-get (as root, or through sudo); runs `apt-get update` first. Does nothing
# when everything is there, so `make test` can call it every time.
set -e
missing=
command -v chromium >/dev/null 2>&1 || [ -x /usr/bin/chromium ] || missing="$missing chromium"
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || missing="$missing mosquitto"
command -v dot >/dev/null 2>&1 || missing="$missing graphviz"
command -v espeak-ng >/dev/null 2>&1 || missing="$missing espeak-ng"
[ -z "$missing" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "carom: missing$missing and no apt-get to install them; install them by hand" >&2
    exit 1
fi
SUDO=
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        SUDO=sudo
    else
        echo "carom: missing$missing; installing needs root or sudo" >&2
        exit 1
    fi
fi
echo "carom: installing$missing (apt-get)" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
