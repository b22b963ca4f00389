"""The simulator: the real firmware on the real MicroPython, on this computer.

vboard/             the virtual board: the firmware's process with displays,
                    buttons, flash, serial REPL, Wi-Fi and radio emulated
page/               `carom sim`: the page in the browser, one or more boards
scripted_board.py   `carom sim --headless --board NAME`: presses in, displays out
scripted_rules.py   `carom sim --headless`: referee lines in, state documents out
segments.py         what a display shows, read back from the chip's RAM
"""
