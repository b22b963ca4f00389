# The board's flash: a host folder mounted as "/".
#
# vfs.VfsPosix(folder) mounted at "/" cannot rename absolute paths on this
# port (both paths are built in one shared buffer, so the old one is lost and
# os.rename("/a", "/b") fails with ENOENT). This small VFS maps every path to
# the host folder itself and calls a root-less VfsPosix with full host paths.
# Paths cannot leave the folder ("/.." stays "/").

import vfs

_BLOCK = 4096


class FlashVfs:
    def __init__(self, folder, size=0x200000):
        self._root = folder.rstrip("/")
        self._posix = vfs.VfsPosix()
        self._cwd = "/"
        self._size = size

    def _norm(self, path):
        if not path.startswith("/"):
            path = self._cwd + "/" + path
        parts = []
        for p in path.split("/"):
            if p == "" or p == ".":
                continue
            if p == "..":
                if parts:
                    parts.pop()
            else:
                parts.append(p)
        return "/" + "/".join(parts)

    def _host(self, path):
        return self._root + self._norm(path)

    def mount(self, readonly, mkfs):
        pass

    def umount(self):
        pass

    def open(self, path, mode):
        return self._posix.open(self._host(path), mode)

    def ilistdir(self, path):
        # LittleFS on the ESP32 yields (name, type, 0, size); VfsPosix leaves out the size.
        folder = self._host(path)
        for entry in self._posix.ilistdir(folder):
            name, kind = entry[0], entry[1]
            size = 0 if kind == 0x4000 else self._posix.stat(folder + "/" + name)[6]
            yield (name, kind, 0, size)

    def chdir(self, path):
        norm = self._norm(path)
        if not self._posix.stat(self._root + norm)[0] & 0x4000:
            raise OSError(20)  # ENOTDIR
        self._cwd = norm

    def getcwd(self):
        return self._cwd

    def mkdir(self, path):
        self._posix.mkdir(self._host(path))

    def remove(self, path):
        self._posix.remove(self._host(path))

    def rename(self, old, new):
        self._posix.rename(self._host(old), self._host(new))

    def rmdir(self, path):
        self._posix.rmdir(self._host(path))

    def stat(self, path):
        return self._posix.stat(self._host(path))

    def statvfs(self, path):
        blocks = self._size // _BLOCK
        used = min(blocks, 2 + self._used_blocks(self._root))
        free = blocks - used
        return (_BLOCK, _BLOCK, blocks, free, free, 0, 0, 0, 0, 255)

    def _used_blocks(self, folder):
        n = 0
        for entry in self._posix.ilistdir(folder):
            name, kind = entry[0], entry[1]
            full = folder + "/" + name
            if kind == 0x4000:
                n += 1 + self._used_blocks(full)
            else:
                n += (self._posix.stat(full)[6] + _BLOCK - 1) // _BLOCK
        return n
