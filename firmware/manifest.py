# Freeze the scoreboard firmware into a MicroPython build (micropython-lib conventions).
# The board's own asyncio, hashlib and espnow come with the ESP32 port.
metadata(description="Carom billiards scoreboard firmware", version="0.1.0")

module("rules.py", opt=3)
module("matchdoc.py", opt=3)
module("referee.py", opt=3)
module("ht16k33.py", opt=3)
module("buttons.py", opt=3)
module("boarddef.py", opt=3)
module("sound.py", opt=3)
module("view.py", opt=3)
module("controller.py", opt=3)
module("config.py", opt=3)
module("app.py", opt=3)
