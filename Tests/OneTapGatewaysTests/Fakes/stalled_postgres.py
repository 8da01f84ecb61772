#!/usr/bin/env python3
"""A PostgreSQL server on loopback that lets a client in and then never answers (standard library only).

Written from PostgreSQL's documentation, "Frontend/Backend Protocol" (§55.2.1 Start-up, §55.7 Message Formats): it
reads the StartupMessage (a length, the protocol version 3.0 and the parameters; an SSLRequest is answered 'N', no
TLS), answers AuthenticationOk ('R', 0), a server_version ParameterStatus ('S') and ReadyForQuery ('Z', idle), then
reads whatever the client sends and answers nothing: a server that stalls right after authentication (overloaded),
for the client's time limits.

Prints its port on stdout's first line; serves until stdin closes.
"""
import os
import socket
import struct
import sys
import threading


def message(kind, payload):
    return kind + struct.pack("!I", len(payload) + 4) + payload


def serve(connection):
    try:
        while True:
            length = struct.unpack("!I", connection.recv(4, socket.MSG_WAITALL))[0]
            body = connection.recv(length - 4, socket.MSG_WAITALL)
            code = struct.unpack("!I", body[:4])[0]
            if code == 80877103:  # SSLRequest: no TLS here
                connection.sendall(b"N")
                continue
            if code == 80877104:  # GSSENCRequest: none either
                connection.sendall(b"N")
                continue
            break
        connection.sendall(
            message(b"R", struct.pack("!I", 0))
            + message(b"S", b"server_version\x0015.0\x00")
            + message(b"S", b"client_encoding\x00UTF8\x00")
            + message(b"Z", b"I")
        )
        while connection.recv(65536):
            pass
    except OSError:
        pass
    finally:
        connection.close()


def main():
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    print(listener.getsockname()[1], flush=True)

    def accept():
        while True:
            connection, _ = listener.accept()
            threading.Thread(target=serve, args=(connection,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()
    os._exit(0)


if __name__ == "__main__":
    main()
