"""A TCP proxy whose link can be cut and restored: a network outage between a client and a server.

Cut, every connection through it is closed and new ones are refused (nothing listens), as when a
link or a broker's host goes away; a paused server (SIGSTOP) is another fault: its connections
stay open and what was sent to it is still processed when it resumes.
"""

import contextlib
import socket
import threading

from tests.kafka_broker import free_port


class CuttableProxy:
    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self.lock = threading.Lock()
        self.listener: socket.socket | None = None
        self.open: set[socket.socket] = set()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(64)
        self.listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def cut(self) -> None:
        """Refuse new connections and reset the open ones."""
        with self.lock:
            listener, self.listener = self.listener, None
            sockets, self.open = self.open, set()
        if listener is not None:
            listener.close()
        for sock in sockets:
            _close(sock)

    def restore(self) -> None:
        self.start()

    def stop(self) -> None:
        self.cut()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # cut
            try:
                server = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                _close(client)
                continue
            with self.lock:
                if self.listener is not listener:  # cut meanwhile
                    _close(client)
                    _close(server)
                    return
                self.open |= {client, server}
            threading.Thread(target=_pump, args=(client, server), daemon=True).start()
            threading.Thread(target=_pump, args=(server, client), daemon=True).start()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            sink.sendall(data)
    except OSError:
        pass
    _close(source)
    _close(sink)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()
