"""Filesystems that lose power on purpose, for the match store's tests (pytest and MicroPython).

MemFs     -- files in a dict, with the calls store.MatchStore uses.
FaultFs   -- the store's fs calls over a MemFs or a real directory
             (store.PosixFs), numbering every write boundary; it cuts the power at
             one of them: open for writing, before a write, after part of a
             write, after a write, before/after a rename, before/after a
             remove, before a mkdir.  After the cut every call raises
             PowerCut; reboot() gives the files as the cut left them.
             Two models of what a cut leaves:
               TORN:   bytes land as they are written; a cut in a write
                       leaves part of it; "wb" empties the file at open
                       (FAT-like, the pessimistic case).
               LFS:    LittleFS: a file's new content lands at close, all
                       or nothing; a new file appears (empty) at open; an
                       existing file opened "wb" keeps its old content until
                       close; rename and remove are atomic.
RamFlash  -- NOR flash in RAM for os.VfsLfs2 (MicroPython): counts erases
             and programmed bytes and can log every operation, so a test
             can rebuild the flash as it was at any point of a save
             (image()) and mount the real LittleFS on it.
VfsFs     -- a mounted-or-not VFS object (os.VfsLfs2) as the store's fs.
"""

TORN = "torn"
LFS = "lfs"
_ENOENT = 2


class PowerCut(BaseException):
    """The power went off here.  Not an OSError, so the store cannot take it for a flash error."""


def _missing(path):
    return OSError(_ENOENT, path)


def _parent(path):
    return path.rpartition("/")[0]


def partial_lengths(n):
    """How many bytes of an n-byte write a cut may leave: 1, half, all but one."""
    out = []
    for k in (1, n // 2, n - 1):
        if 0 < k < n and k not in out:
            out.append(k)
    return out


class _Reader:
    def __init__(self, data):
        self.data = data
        self.at = 0

    def read(self, n=-1):
        end = len(self.data) if n < 0 else min(len(self.data), self.at + n)
        out = bytes(self.data[self.at : end])
        self.at = end
        return out

    def readinto(self, buf):
        """As a file's: the next bytes into buf (a bytearray, an array, a memoryview of one)."""
        mv = memoryview(buf)
        if hasattr(mv, "cast"):  # CPython: a memoryview of an array of ints, as bytes
            mv = mv.cast("B")
        else:  # MicroPython's has no cast, and its len() counts items: the bytes at its address
            import uctypes

            mv = uctypes.bytearray_at(uctypes.addressof(buf), len(bytes(mv)))
        data = self.read(len(mv))
        mv[: len(data)] = data
        return len(data)

    def close(self):
        pass


class _MemWriter:
    def __init__(self, fs, path):
        self.fs = fs
        self.path = path

    def write(self, data):
        self.fs.files[self.path].extend(data)
        return len(data)

    def close(self):
        pass


class MemFs:
    """Files (path -> bytearray) and directories in RAM; paths as the store builds them."""

    def __init__(self, files=None, dirs=None):
        self.files = files if files is not None else {}
        self.dirs = dirs if dirs is not None else set()

    def clone(self):
        """A copy with its own files."""
        files = {}
        for path in self.files:
            files[path] = bytearray(self.files[path])
        return MemFs(files, set(self.dirs))

    def _dir_ok(self, path):
        parent = _parent(path)
        return parent == "" or parent in self.dirs

    def open(self, path, mode):
        if "r" in mode:
            if path not in self.files:
                raise _missing(path)
            return _Reader(self.files[path])
        if not self._dir_ok(path):
            raise _missing(path)
        if "w" in mode or path not in self.files:
            self.files[path] = bytearray()
        return _MemWriter(self, path)

    def rename(self, a, b):
        if a not in self.files or not self._dir_ok(b):
            raise _missing(a)
        self.files[b] = self.files.pop(a)

    def remove(self, path):
        if path not in self.files:
            raise _missing(path)
        del self.files[path]

    def stat(self, path):
        if path in self.files:
            return (0x8000, 0, 0, 0, 0, 0, len(self.files[path]), 0, 0, 0)
        if path in self.dirs or path == "":
            return (0x4000, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        raise _missing(path)

    def listdir(self, path):
        if path != "" and path not in self.dirs:
            raise _missing(path)
        out = []
        for p in self.files:
            if _parent(p) == path:
                out.append(p[len(path) + 1 :])
        for p in self.dirs:
            if _parent(p) == path:
                out.append(p[len(path) + 1 :])
        return out

    def mkdir(self, path):
        if path in self.dirs or path in self.files or not self._dir_ok(path):
            raise OSError(17, path)
        self.dirs.add(path)


class _TornWriter:
    """Bytes land as written; a cut inside a write leaves part of it."""

    def __init__(self, fs, path, handle):
        self.fs = fs
        self.path = path
        self.handle = handle

    def write(self, data):
        fs = self.fs
        n = len(data)
        fs._boundary("before writing %d bytes to %s" % (n, self.path))
        for k in partial_lengths(n):
            fs._boundary("%d of %d bytes written to %s" % (k, n, self.path), self.handle, data[:k])
        self.handle.write(data)
        fs._boundary("after writing %d bytes to %s" % (n, self.path))
        return n

    def close(self):
        self.fs._alive()
        self.fs._handles.remove(self.handle)
        self.handle.close()


class _LfsWriter:
    """LittleFS: the file's new content is committed at close, all or nothing."""

    def __init__(self, fs, path, old):
        self.fs = fs
        self.path = path
        self.buf = bytearray(old)

    def write(self, data):
        self.fs._boundary("writing %d bytes to %s (not yet committed)" % (len(data), self.path))
        self.buf.extend(data)
        return len(data)

    def close(self):
        fs = self.fs
        fs._boundary("before the commit of %s at close" % self.path)
        h = fs.inner.open(self.path, "wb")
        h.write(self.buf)
        h.close()


def read_all(fs, path):
    """The whole content of a file, or None when it is missing."""
    try:
        f = fs.open(path, "rb")
    except OSError:
        return None
    try:
        return f.read()
    finally:
        f.close()


class FaultFs:
    """The store's fs calls over `inner` (a MemFs, or store.PosixFs on a real directory),
    with numbered write boundaries and a power cut at one of them (see the module doc)."""

    def __init__(self, inner=None, model=TORN):
        self.inner = inner if inner is not None else MemFs()
        self.model = model
        self.steps = 0  # write boundaries passed so far
        self.cut_at = -1
        self.cut = None  # what was going on when the power went off
        self.dead = False
        self._handles = []  # inner files open for writing

    def arm(self, k):
        """Cut the power at the k-th write boundary from now (0: the next one)."""
        self.cut_at = self.steps + k

    def reboot(self):
        """The same files, as the cut left them, on a new fs object (the old one stays dead)."""
        return FaultFs(self.inner, self.model)

    def _alive(self):
        if self.dead:
            raise PowerCut("the power is off")

    def _boundary(self, what, handle=None, landed=None):
        self._alive()
        k = self.steps
        self.steps += 1
        if k == self.cut_at:
            if handle is not None:
                handle.write(landed)
            self.dead = True
            self.cut = what
            for h in self._handles:  # what was written so far is on the medium
                h.close()
            self._handles = []
            raise PowerCut(what)

    def open(self, path, mode):
        self._alive()
        if "r" in mode:
            return self.inner.open(path, mode)
        self._boundary("opening %s %r" % (path, mode))
        if self.model == LFS:
            old = read_all(self.inner, path)
            if old is None:
                self.inner.open(path, "wb").close()  # littlefs creates the name at open
                old = b""
            return _LfsWriter(self, path, b"" if "w" in mode else old)
        h = self.inner.open(path, mode)
        self._handles.append(h)
        return _TornWriter(self, path, h)

    def rename(self, a, b):
        self._boundary("before renaming %s to %s" % (a, b))
        self.inner.rename(a, b)
        self._boundary("after renaming %s to %s" % (a, b))

    def remove(self, path):
        self._boundary("before removing %s" % path)
        self.inner.remove(path)
        self._boundary("after removing %s" % path)

    def mkdir(self, path):
        self._boundary("before mkdir %s" % path)
        self.inner.mkdir(path)

    def stat(self, path):
        self._alive()
        return self.inner.stat(path)

    def listdir(self, path):
        self._alive()
        return self.inner.listdir(path)


class FailingFs(MemFs):
    """MemFs whose writes fail with OSError (a full or broken flash) while `failing` is set."""

    def __init__(self):
        MemFs.__init__(self)
        self.failing = False

    def _check(self):
        if self.failing:
            raise OSError(28, "no space left")

    def open(self, path, mode):
        if "r" not in mode:
            self._check()
        return MemFs.open(self, path, mode)

    def rename(self, a, b):
        self._check()
        MemFs.rename(self, a, b)

    def remove(self, path):
        self._check()
        MemFs.remove(self, path)

    def mkdir(self, path):
        self._check()
        MemFs.mkdir(self, path)


class RamFlash:
    """NOR flash in RAM, as a block device for os.VfsLfs2 (extended interface)."""

    def __init__(self, blocks=32, block_size=4096, data=None):
        self.block_size = block_size
        if data is None:
            data = bytearray(b"\xff" * (blocks * block_size))
        self.data = data
        self.blocks = len(data) // block_size
        self.erases = [0] * self.blocks
        self.programmed = 0  # bytes
        self.log = None  # a list: every operation is added as (address, bytes, or None for an erase)

    def readblocks(self, block, buf, offset=0):
        at = block * self.block_size + offset
        buf[:] = self.data[at : at + len(buf)]

    def writeblocks(self, block, buf, offset=None):
        if offset is None:  # the simple interface: erase, then program
            self._erase(block)
            offset = 0
        at = block * self.block_size + offset
        if self.log is not None:
            self.log.append((at, bytes(buf)))
        self.data[at : at + len(buf)] = buf
        self.programmed += len(buf)

    def ioctl(self, op, arg):
        if op == 4:
            return self.blocks
        if op == 5:
            return self.block_size
        if op == 6:
            self._erase(arg)
        return 0

    def _erase(self, block):
        self.erases[block] += 1
        at = block * self.block_size
        if self.log is not None:
            self.log.append((at, None))
        self.data[at : at + self.block_size] = b"\xff" * self.block_size

    def total_erases(self):
        total = 0
        for n in self.erases:
            total += n
        return total


def image(base, log, k, partial, block_size=4096):
    """The flash after operations log[:k], plus half of log[k] when partial."""
    data = bytearray(base)
    n = k + 1 if partial else k
    for i in range(n):
        at, buf = log[i]
        if buf is None:
            size = block_size
            if i == k:
                size //= 2  # an erase cut halfway
            data[at : at + size] = b"\xff" * size
        else:
            size = len(buf) // 2 if i == k else len(buf)
            data[at : at + size] = buf[:size]
    return data


class VfsFs:
    """A VFS object (os.VfsLfs2) used directly as the store's fs, without mounting it."""

    def __init__(self, vfs):
        self.vfs = vfs
        self.open = vfs.open
        self.rename = vfs.rename
        self.remove = vfs.remove
        self.stat = vfs.stat
        self.mkdir = vfs.mkdir

    def listdir(self, path):
        return [entry[0] for entry in self.vfs.ilistdir(path or "/")]
