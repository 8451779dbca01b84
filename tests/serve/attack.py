#!/usr/bin/env python3
"""Bounded attackers for `charter serve`'s network tests (limits_test.sh,
slow_test.sh): each talks TLS to 127.0.0.1:PORT, is bounded in bytes, count
and time, and prints one line saying what the server did.

  attack.py CA PORT chunked TOTAL_BYTES     a chunked body of up to TOTAL bytes
  attack.py CA PORT pipeline FILE...        the requests in FILEs, in one write
  attack.py CA PORT raw FILE                the bytes of FILE, then the answer
  attack.py CA PORT slow N SECONDS          N connections sending a request head
                                            a byte a second, for SECONDS at most
  attack.py CA PORT hold N SECONDS          N connections that handshake, then wait
  attack.py CA PORT tcp N SECONDS           N TCP connections that never start TLS
"""
import select
import socket
import ssl
import sys
import time


def connect(ca, port, timeout=5.0):
    ctx = ssl.create_default_context(cafile=ca)
    raw = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    return ctx.wrap_socket(raw, server_hostname="127.0.0.1")


def read_response(sock, deadline):
    """One HTTP response (status line, headers, Content-Length body): (status, headers, body) or None."""
    data = b""
    while b"\r\n\r\n" not in data:
        if time.monotonic() > deadline:
            return None, data
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ssl.SSLError, OSError):
            return None, data
        if not chunk:
            return None, data
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        k, v = line.split(":", 1)
        headers[k.strip().lower()] = v.strip()
    length = int(headers.get("content-length", "0"))
    while len(rest) < length and time.monotonic() < deadline:
        try:
            chunk = sock.recv(65536)
        except (socket.timeout, ssl.SSLError, OSError):
            break
        if not chunk:
            break
        rest += chunk
    return (status, headers, rest[:length]), rest[length:]


def chunked(ca, port, total):
    """Sends 64 KiB chunks until TOTAL bytes or an answer; prints the status and the bytes sent."""
    s = connect(ca, port)
    s.sendall(b"POST /v1/admission HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (65536, b" " * 65536)
    sent = 0
    deadline = time.monotonic() + 10
    answered = False
    early = b""
    while sent < total and time.monotonic() < deadline:
        if select.select([s], [], [], 0)[0] or s.pending():
            # Readable: an answer, or only a TLS 1.3 session ticket.
            s.settimeout(0)
            try:
                early = s.recv(65536)
                answered = True
                break
            except (ssl.SSLWantReadError, BlockingIOError):
                pass
            except OSError:
                answered = True
                break
            s.settimeout(5)
        try:
            s.sendall(chunk)
        except OSError:
            answered = True
            break
        sent += 65536
    if not answered:
        try:
            s.sendall(b"0\r\n\r\n")
        except OSError:
            pass
    s.settimeout(5)
    resp, _ = read_response(PrefixSock(s, early), time.monotonic() + 5)
    if resp is None:
        print(f"no answer; sent {sent}")
    else:
        print(f"{resp[0]} sent {sent} {resp[2].decode(errors='replace').strip()}")


class PrefixSock:
    """A socket whose first recv returns bytes already read."""

    def __init__(self, sock, prefix):
        self.sock, self.prefix = sock, prefix

    def recv(self, n):
        if self.prefix:
            p, self.prefix = self.prefix, b""
            return p
        return self.sock.recv(n)


def split_responses(data):
    """The whole responses at the start of DATA: [(status, body)], and the rest."""
    out = []
    while b"\r\n\r\n" in data:
        head, rest = data.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        length = 0
        for line in lines[1:]:
            k, v = line.split(":", 1)
            if k.strip().lower() == "content-length":
                length = int(v)
        if len(rest) < length:
            break
        out.append((int(lines[0].split(" ")[1]), rest[:length]))
        data = rest[length:]
    return out, data


def pipeline(ca, port, files):
    """Sends the requests of FILES in one write; prints each answer read, in order."""
    s = connect(ca, port)
    s.sendall(b"".join(open(f, "rb").read() for f in files))
    s.settimeout(0.5)
    data = b""
    answers = []
    deadline = time.monotonic() + 5
    while len(answers) < len(files) and time.monotonic() < deadline:
        try:
            chunk = s.recv(65536)
        except (socket.timeout, ssl.SSLError):
            continue
        except OSError:
            break
        if not chunk:
            break
        data += chunk
        answers, _ = split_responses(data)
    for status, body in answers:
        print(status, body.decode(errors="replace").strip())
    print(f"{len(answers)} answers")


def raw(ca, port, file):
    s = connect(ca, port)
    try:
        s.sendall(open(file, "rb").read())
    except OSError:
        pass
    s.settimeout(5)
    resp, _ = read_response(s, time.monotonic() + 5)
    if resp is None:
        print("no answer")
    else:
        print(resp[0], resp[2].decode(errors="replace").strip())


def tcp(port, n, seconds):
    """N TCP connections that send nothing; prints, for each, `closed` or `open` at the end."""
    conns = [socket.create_connection(("127.0.0.1", port), timeout=5) for _ in range(n)]
    print("connected", flush=True)
    done = set()
    end = time.monotonic() + seconds
    while time.monotonic() < end and len(done) < n:
        for k, c in enumerate(conns):
            if k not in done and select.select([c], [], [], 0)[0]:
                try:
                    c.recv(1)
                except OSError:
                    pass
                done.add(k)
        time.sleep(0.1)
    for k, c in enumerate(conns):
        print("closed" if k in done else "open")
        c.close()


def slow(ca, port, n, seconds, hold_only=False):
    """N connections; each sends a request head a byte a second (or nothing,
    with hold_only). Prints, for each, what the server answered, or `open` if
    the connection was still waiting at the end."""
    head = b"POST /v1/admission HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}"
    conns = []
    for _ in range(n):
        try:
            c = connect(ca, port, timeout=1.0)
            if not hold_only:
                c.sendall(head[:1])
            conns.append(c)
        except OSError as e:
            conns.append(None)
            print(f"refused {type(e).__name__}", flush=True)
    print("connected", flush=True)
    done = {}
    end = time.monotonic() + seconds
    i = 1
    while time.monotonic() < end and len(done) < n:
        for k, c in enumerate(conns):
            if c is None or k in done:
                continue
            try:
                if not hold_only and i < len(head):
                    c.sendall(head[i:i + 1])
                c.settimeout(0.01)
                data = c.recv(65536)
                done[k] = data.split(b"\r\n")[0].decode(errors="replace") if data else "closed"
            except (socket.timeout, ssl.SSLWantReadError):
                pass
            except OSError:
                done[k] = "closed"
        i += 1
        time.sleep(1)
    for k, c in enumerate(conns):
        if c is not None:
            print(done.get(k, "open"))
            c.close()


def main():
    ca, port, what = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    args = sys.argv[4:]
    if what == "chunked":
        chunked(ca, port, int(args[0]))
    elif what == "pipeline":
        pipeline(ca, port, args)
    elif what == "raw":
        raw(ca, port, args[0])
    elif what == "slow":
        slow(ca, port, int(args[0]), float(args[1]))
    elif what == "tcp":
        tcp(port, int(args[0]), float(args[1]))
    elif what == "hold":
        slow(ca, port, int(args[0]), float(args[1]), hold_only=True)
    else:
        sys.exit(f"unknown attack {what}")


if __name__ == "__main__":
    main()
