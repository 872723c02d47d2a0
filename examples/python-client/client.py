#!/usr/bin/env python3
"""Drive a shell through `ptywright serve --socket` with nothing but the
Python standard library.

    go run ./cmd/ptywright serve --socket /tmp/ptyw.sock &
    python3 examples/python-client/client.py /tmp/ptyw.sock

The protocol is JSON-RPC 2.0, one JSON object per line.
"""
import itertools
import json
import socket
import sys


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.reader = self.sock.makefile("r", encoding="utf-8", newline="\n")
        self.ids = itertools.count(1)

    def call(self, method, **params):
        req = {"jsonrpc": "2.0", "id": next(self.ids), "method": method}
        if params:
            req["params"] = params
        self.sock.sendall((json.dumps(req) + "\n").encode())
        while True:
            msg = json.loads(self.reader.readline())
            if msg.get("id") != req["id"]:
                continue  # a notification, or another call's answer
            if "error" in msg:
                err = msg["error"]
                raise RuntimeError(f"{method}: {err['code']} {err['message']}")
            return msg["result"]

    def close(self):
        self.reader.close()
        self.sock.close()


def main(path):
    c = Client(path)
    try:
        sid = c.call("session.create", program="/bin/sh", env={"PS1": "$ "}, rows=10, cols=60)["session"]
        c.call("session.wait", session=sid, matcher={"type": "contains_text", "value": "$"}, timeout_ms=5000)
        c.call("session.input", session=sid, action={"type": "text", "value": "echo $((6 * 7))\r"})
        res = c.call(
            "session.wait",
            session=sid,
            matcher={"type": "screen_regex", "value": r"(?m)^(\d+)$"},
            timeout_ms=5000,
        )
        print("answer:", res["outcome"]["capture"])
        print(c.call("session.snapshot", session=sid)["plain_text"])
        c.call("session.close", session=sid)
    finally:
        c.close()


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: client.py SOCKET")
    main(sys.argv[1])
