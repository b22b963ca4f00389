"""`make bench` (`python -m tools.bench`): the figures, measured, never asserted.

__main__.py prints every section; heap.py is the firmware's heap at 32-bit,
radio.py the radio's cost per frame and its throughput, hall.py the hall
dashboard under load; figures.py writes what a run printed to docs/develop/figures.md.
"""
