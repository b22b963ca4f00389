"""The link to a real board over its serial port (mpremote underneath).

boardio.py: BoardIO (run code, read and write files, restart and watch the
boot), the --device/--reset options, and the progress bar the commands share.
"""
