"""The subcommands of `carom`: one module each, named in one table.

A command's module has `arguments(parser)`, which adds its options and sets
`run`, the handler that is called with the parsed arguments.  `cli.py` builds
one subparser per row of COMMANDS, in this order.
"""

import importlib

# name: (module in this package, the one line `carom --help` shows)
COMMANDS = {
    "board": ("board", "what a board is built from: parts, power, pins, wiring, its card, the docs pages"),
    "config": ("config", "show, get, set, import or export a board's config.json (checked before writing)"),
    "deploy": ("deploy", "copy the firmware (as .mpy) to a board, only what changed, safely"),
    "doctor": ("doctor", "check a board: REPL, MicroPython, flash, RAM, firmware, config, I2C displays, app start"),
    "flash": ("flash", "write a MicroPython firmware image to an ESP32 with esptool"),
    "hall": ("hall", "the hall dashboard: every table's match, live, from the MQTT broker"),
    "hall-broker": (
        "hallbroker",
        "the hall's mosquitto.conf lines and ACL file: logins, a login per client id, persistence",
    ),
    "hall-bridge": ("hallbridge", "the lines of a second hall's mosquitto.conf that bridge it to the first's broker"),
    "hall-key": ("hallkey", "give a wall board a new hall key (the hall's setups are signed with it), never printed"),
    "pair": ("pair", "pair a referee remote with a wall board (a new random key on both), or unpair"),
    "report": ("report", "pull the finished matches from a board as JSON, CSV, HTML or PDF match reports"),
    "sim": ("sim", "simulate a scoreboard: the simulator page, or the scripted mode (--headless)"),
    "voice": ("voice", "make a voice pack: the referee's calls spoken by espeak-ng or from the club's recordings"),
}


def module(name):
    """The module of command `name` (imported on first use)."""
    return importlib.import_module("." + COMMANDS[name][0], __name__)
