# Emulated `aioespnow` (installed as sys.modules["aioespnow"]), as the ESP32
# port's: ESPNow with asyncio methods (the object is pollable: _vb_espnow).
# Loaded lazily (a module __getattr__): asyncio is imported only when the
# firmware uses this module, after the shim put the virtual time in place.

import _vb_espnow as espnow

MAX_DATA_LEN = espnow.MAX_DATA_LEN
KEY_LEN = espnow.KEY_LEN
MAX_TOTAL_PEER_NUM = espnow.MAX_TOTAL_PEER_NUM
MAX_ENCRYPT_PEER_NUM = espnow.MAX_ENCRYPT_PEER_NUM

_impl = None


def _load():
    global _impl
    if _impl is None:
        import asyncio

        class AIOESPNow(espnow.ESPNow):
            async def arecv(self):
                yield asyncio.core._io_queue.queue_read(self)
                return self.recv(0)

            async def airecv(self):
                yield asyncio.core._io_queue.queue_read(self)
                return self.irecv(0)

            async def asend(self, mac, msg=None, sync=None):
                if msg is None:
                    msg, mac = mac, None
                yield asyncio.core._io_queue.queue_write(self)
                return self.send(mac, msg, sync)

            def __aiter__(self):
                return self

            async def __anext__(self):
                return await self.airecv()

        def ESPNow():
            return AIOESPNow()

        _impl = {"AIOESPNow": AIOESPNow, "ESPNow": ESPNow}
    return _impl


def __getattr__(name):
    impl = _load()
    if name in impl:
        return impl[name]
    raise AttributeError(name)
