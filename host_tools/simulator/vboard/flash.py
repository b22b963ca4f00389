"""The board's flash: a host folder that the board mounts as "/" (host side;
the board's side is mp/_vb_flash.py)."""

import os
import shutil

from .errors import BoardError


class Flash:
    def __init__(self, folder):
        self.dir = os.path.abspath(folder)
        os.makedirs(self.dir, exist_ok=True)

    def path(self, name):
        """Host path of a file on the flash ("/config.json" -> folder/config.json)."""
        path = os.path.normpath(os.path.join(self.dir, name.lstrip("/")))
        if path != self.dir and not path.startswith(self.dir + os.sep):
            raise BoardError("%r is outside the flash" % name)
        return path

    def deploy(self, source, dest="/", files=None):
        """Copy firmware into the flash, under `dest` ("/boards" ...).

        source: a folder (its top-level *.py and *.json files, or the names in
        `files`), or a list of files and folders (a folder is copied whole).
        Returns the flash paths written.
        """
        target = self.path(dest)
        os.makedirs(target, exist_ok=True)
        if isinstance(source, (list, tuple)):
            paths = [os.fspath(p) for p in source]
        else:
            source = os.fspath(source)
            names = files or sorted(
                n
                for n in os.listdir(source)
                if n.endswith((".py", ".json")) and os.path.isfile(os.path.join(source, n))
            )
            paths = [os.path.join(source, n) for n in names]
        written = []
        for path in paths:
            name = os.path.basename(os.path.normpath(path))
            if os.path.isdir(path):
                shutil.copytree(
                    path, os.path.join(target, name), dirs_exist_ok=True, ignore=shutil.ignore_patterns("__pycache__")
                )
            else:
                shutil.copyfile(path, os.path.join(target, name))
            written.append("/" + os.path.relpath(os.path.join(target, name), self.dir))
        return written

    def write_file(self, name, data):
        """Write a file (str or bytes), creating folders."""
        path = self.path(name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
