#!/usr/bin/env python3
"""slowunix.py - slow readers on a Unix control socket (issue 27 item 3).

    slowunix.py SOCKET N PATH BYTES_PER_S SECONDS

N connections to SOCKET, each asking for PATH (a large answer) and
reading it at BYTES_PER_S (a quarter every 250 ms) with a small receive
buffer; a connection the daemon closed, or whose answer ended, is opened
again at once.  Runs for SECONDS, then prints "opened O closed C busy B
bytes N" (busy: answers that began with a 503) and exits 0.
"""
import socket
import sys
import time

sock, n, path, rate, secs = (sys.argv[1], int(sys.argv[2]), sys.argv[3],
                             int(sys.argv[4]), float(sys.argv[5]))
req = ("GET %s HTTP/1.1\r\nHost: x\r\n\r\n" % path).encode()
conns = {}
opened = closed = busy = total = 0


def open_one():
    global opened
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    try:
        s.connect(sock)
        s.sendall(req)
    except OSError:
        s.close()
        return None
    s.setblocking(False)
    opened += 1
    return s


for i in range(n):
    conns[i] = [open_one(), True]
end = time.monotonic() + secs
chunk = max(1, rate // 4)
while time.monotonic() < end:
    t = time.monotonic()
    for i, c in conns.items():
        s = c[0]
        if s is None:
            c[0], c[1] = open_one(), True
            continue
        try:
            data = s.recv(chunk)
        except BlockingIOError:
            continue
        except OSError:
            data = b""
        if data and c[1]:
            busy += data.startswith(b"HTTP/1.1 503")
            c[1] = False
        total += len(data)
        if not data:
            s.close()
            closed += 1
            c[0], c[1] = open_one(), True
    time.sleep(max(0.0, 0.25 - (time.monotonic() - t)))
print("opened %d closed %d busy %d bytes %d" % (opened, closed, busy, total))
