"""The simulator: the real firmware on the real MicroPython, on this computer.

vboard/             the virtual board: the firmware's process with displays,
                    buttons, flash, serial REPL, Wi-Fi and radio emulated
page/               `carom sim`: the page in the browser, one or more boards
scripted_board.py   `carom sim --headless --board NAME`: presses in, displays out
scripted_rules.py   `carom sim --headless`: referee lines in, state documents (or --pretty lines) out
segments.py         what a display shows, read back from the chip's RAM
board_config.py     the boards' flash folders and config.json, as `carom sim` lays them out
hall_network.py     `carom sim --hall`: the boards on a network that reaches the hall's broker
"""
