# The board runs the scoreboard app for the board named in config.json.
import app

app.main()
