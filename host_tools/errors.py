"""The one exception the CLI turns into `carom: message` and exit status 1."""


class CommandError(Exception):
    pass
