"""Simulated boards for the hall (`carom hall`), for the tests, `make bench` and a demo; not shipped.

loadgen.py     tables publishing real state documents and reports (the firmware's own modules)
tourneyrun.py  a tournament played from the draw to the final on loadgen's boards
"""
