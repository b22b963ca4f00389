"""A real mosquitto broker on a free loopback port, started and stopped by the tests."""

import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time

from host_tools.hall import brokerconf

EXE = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Mosquitto:
    """mosquitto on 127.0.0.1:port; what it logs (its stderr: connections, timeouts) collects in
    self.log, across restarts."""

    def __init__(self, port=None):
        self.port = port or free_port()
        self.log = []
        self.dir = tempfile.mkdtemp(prefix="carom-mosquitto-")
        self.conf = os.path.join(self.dir, "mosquitto.conf")
        with open(self.conf, "w") as f:
            f.write("listener %d 127.0.0.1\nallow_anonymous true\npersistence false\n" % self.port)
        self.proc = None

    def start(self, timeout=10):
        self.proc = subprocess.Popen(
            [EXE, "-c", self.conf], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
        )
        reader = threading.Thread(target=self._read_log, args=(self.proc,), daemon=True)
        reader.start()
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                socket.create_connection(("127.0.0.1", self.port), 0.2).close()
                return self
            except OSError:
                if self.proc.poll() is not None:
                    reader.join(timeout=5)  # its last lines (it ended: the pipe is at its end)
                    raise RuntimeError("mosquitto did not start: %s" % "".join(self.log))
                time.sleep(0.05)
        raise RuntimeError("mosquitto is not listening on %d" % self.port)

    def _read_log(self, proc):
        for line in proc.stderr:
            self.log.append(line)

    def logged(self, text):
        """True if a line it logged contains `text`."""
        return any(text in line for line in list(self.log))

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def close(self):
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


class PersistentMosquitto(Mosquitto):
    """mosquitto with persistence, as a hall installs it: a client's session (its subscriptions
    and the QoS 1 messages queued for it) survives the broker's restart.  Without it a message
    sent in the moment before a subscriber has subscribed again is acknowledged and lost."""

    def __init__(self, port=None):
        super().__init__(port)
        with open(self.conf, "a") as f:
            f.write("persistence true\npersistence_location %s/\n" % self.dir)
        # Started as root, mosquitto drops to its own user: it must be able to write its database
        # here (else it says so in its log and keeps nothing, and the sessions are lost).
        os.chmod(self.dir, 0o777)


def available():
    return os.path.exists(EXE)


# The hall's broker as `carom hall-broker` prints it (docs/hall/broker.md shows that output: each board logs
# in as its table id, may write only its own table's topics and read only its own setups; the hall
# reads them all and writes the setups; no anonymous clients; a login is its client id).
ACL_EXAMPLE = brokerconf.acl()


class SecureMosquitto(Mosquitto):
    """mosquitto as `carom hall-broker` sets it up (listening on 127.0.0.1 only): no anonymous
    clients, a password_file made with mosquitto_passwd from `users` ({name: password}), ACL_EXAMPLE
    (or `acl`) as acl_file, each login its own client id (unless `login_is_client_id` is false)."""

    def __init__(self, users, acl=ACL_EXAMPLE, port=None, login_is_client_id=True):
        super().__init__(port)
        passwords = os.path.join(self.dir, "passwords")
        with open(passwords, "w") as f:  # plain "user:password" lines, hashed in place by mosquitto_passwd -U
            f.write("".join("%s:%s\n" % kv for kv in users.items()))
        subprocess.run(
            [shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd", "-U", passwords],
            check=True,
            capture_output=True,
            timeout=30,
        )
        acl_file = os.path.join(self.dir, "acl")
        with open(acl_file, "w") as f:
            f.write(acl)
        for name in (passwords, acl_file):
            os.chmod(name, 0o644)  # mosquitto drops from root to its own user before reading them
        os.chmod(self.dir, 0o777)  # ... and writes its database here
        text = brokerconf.conf(self.port, passwords, acl_file, self.dir + "/")
        text = text.replace("listener %d\n" % self.port, "listener %d 127.0.0.1\n" % self.port)  # this machine only
        if not login_is_client_id:
            text = text.replace("use_username_as_clientid true\n", "")
        with open(self.conf, "w") as f:
            f.write(text)
