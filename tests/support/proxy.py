"""A TCP relay on loopback in front of a server, whose connections a test can cut: a network that
drops every open connection at once (both ends see them close) and then carries new ones again,
as when a laptop's Wi-Fi blinks. Used to test a page whose socket drops mid-run."""
from __future__ import annotations

import contextlib
import socket
import threading
import time

from .ports import free_port


class Relay:
    """Forwards 127.0.0.1:`port` to 127.0.0.1:`target`; `cut()` closes every open connection."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self.cuts = 0
        self.accepted = 0  # connections relayed so far
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", self.port))
        self._stopped = threading.Event()
        self._down_until = 0.0  # time.monotonic() before which new connections are refused
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._stopped.is_set():
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed by stop()
                return
            cuts = self.cuts
            if time.monotonic() < self._down_until:  # the network is still down
                client.close()
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target))
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open |= {client, upstream}
            if self.cuts != cuts:  # cut while this one was being connected: it goes too
                self._close(client)
                self._close(upstream)
                continue
            self.accepted += 1
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(src, dst), daemon=True).start()

    def _pipe(self, src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                self._close(s)

    def _close(self, s: socket.socket) -> None:
        with self._lock:
            self._open.discard(s)
        with contextlib.suppress(OSError):
            s.shutdown(socket.SHUT_RDWR)
        s.close()

    def cut(self, down_s: float = 0.0) -> None:
        """Every connection open now is closed at both ends; new ones are refused for `down_s`
        seconds, then go through."""
        self._down_until = time.monotonic() + down_s
        with self._lock:
            sockets = list(self._open)
        for s in sockets:
            self._close(s)
        self.cuts += 1

    def stop(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):  # wakes the accepting thread (close alone does not)
            self._listener.shutdown(socket.SHUT_RDWR)
        self._listener.close()
        self.cut()
