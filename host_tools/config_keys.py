"""What each config.json key is for, in a reader's words: docs/reference/config.md.

firmware/config.py's SCHEMA holds each key's type, range, default and whether it is a secret (the
board checks them); the sentences live here, on the host, where they cost the board no RAM. A test
(tests/host/test_docs_reference.py) checks that every key of the schema has its line here and that
no line names a key the schema does not have.
"""

# The dotted path of each key: what it sets.
KEYS = {
    "board": "the board definition this board runs: `boards/<board>.json` on the board",
    "name": "the table's name, e.g. `Table 3`",
    "players.A.name": "player A's name (shown in capitals, accents dropped)",
    "players.A.club": "player A's club",
    "players.B.name": "player B's name",
    "players.B.club": "player B's club",
    "match.game": "the game of a new match",
    "match.target": "the points to play to",
    "match.innings_limit": "the innings limit (0: none)",
    "match.equalizing": "the player who did not break gets his equalizing inning",
    "match.draw": "a level end may stand as a draw",
    "match.shot_clock": "the shot clock's seconds a stroke (0: no shot clock)",
    "match.timeouts": "the time-outs each player has (null: the rules' default)",
    "match.timeout_s": "the seconds a time-out adds to the shot (null: one more shot period)",
    "match.break_s": "the half-time break's seconds",
    "match.breaker_ball": "the ball the player who breaks plays with",
    "match.target_A": "a handicap: player A's own target (null: the target)",
    "match.target_B": "a handicap: player B's own target (null: the target)",
    "match.sets": "the sets to win, each to the target (0: no sets)",
    "match.deciding_target": "the deciding set's target (null: the target); only with `match.sets`",
    "match.shootout": "a level end that may not stand goes to a shoot-out (with `match.draw` false, or sets)",
    "match.warmup_s": "each player's warm-up before the first stroke, in seconds (0: none)",
    "display.brightness": "the brightness of every display (null: each display's own, from the board definition)",
    "sound.volume": "the buzzer's volume (0: silent)",
    "voice.on": "speak the referee's calls, on a board with a speaker and a voice pack",
    "voice.volume": "the voice's volume: 100 is the amplifier's full gain, each 17 less about 6 dB quieter (0: silent)",
    "voice.language": "the pack the board should have (it speaks the pack it has; a start with another says so)",
    "voice.calls": "the calls said",
    "voice.totals": "each point's running total too (the countdown takes over in the last points)",
    "buttons.debounce_ms": "a press shorter than this is contact bounce (null: the board definition's)",
    "buttons.long_ms": "a press held this long is a long press (null: the board definition's)",
    "buttons.stuck_ms": "a button held this long is stuck: E 1x (null: the board definition's)",
    "buttons.lockout_ms": "the lockout buttons are ignored this long after the turn passes (null: the board's)",
    "radio.peer": "the paired referee remote's (or wall board's) MAC address; null: not paired (`carom pair`)",
    "radio.key": "the pairing key the radio frames are signed with; null: not paired (`carom pair`)",
    "radio.wall_buttons": "what the wall board's own buttons may still do while a remote is paired",
    "radio.channel": "the Wi-Fi channel the remote sends on: the wall board's (null: the default)",
    "wifi.ssid": "the hall's Wi-Fi network (empty: no Wi-Fi)",
    "wifi.password": "the Wi-Fi password (empty: an open network)",
    "mqtt.host": "the MQTT broker, best an IP address (empty: no MQTT)",
    "mqtt.port": "the broker's port",
    "mqtt.user": "the broker's login, if it wants one (the hall's ACLs: the table id)",
    "mqtt.password": "the broker's password",
    "mqtt.table": "the table's id in the topics (empty: `t` and the last three bytes of the MAC address)",
    "mqtt.prefix": "the topics' prefix (`club/hall1` for several halls on one broker)",
    "mqtt.keepalive_s": "how often a quiet board pings the broker; a silent board shows offline after 1.5 times this",
    "hall.key": "the key the hall's setups and the board's reports are signed with (null: no setups taken, "
    "reports unsigned; `carom hall-key` sets it)",
}

# What each top-level section is, for the page's headings.
SECTIONS = {
    "": "The board and the table",
    "players": "The players' names of a new match",
    "match": "The options of a new match",
    "display": "The displays",
    "sound": "The buzzer",
    "voice": "The voice: the referee's calls spoken",
    "buttons": "The button timings, over the board definition's `timings` (debounce < long < stuck)",
    "radio": "The pairing with a referee remote",
    "wifi": "The hall's Wi-Fi",
    "mqtt": "The MQTT broker the board publishes its match to",
    "hall": "The hall's setups",
}
