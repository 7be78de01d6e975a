# A backend that answers each connection with its bytes and its FIN in one segment (MSG_MORE,
# then shutdown), and a client that counts the segments its socket received (TCP_INFO's
# tcpi_segs_in): what a relay in between does with the FIN shows in that count.
#   fin-with-data.py serve ADDR            prints the port, then serves until killed
#   fin-with-data.py count ADDR PORT N     prints one JSON object {segments_in: connections}
import json, socket, struct, sys

def serve(addr):
    ls = socket.socket()
    ls.bind((addr, 0))
    ls.listen(128)
    print(ls.getsockname()[1], flush=True)
    while True:
        c, _ = ls.accept()
        try:
            c.recv(4096)
            c.send(b"HTTP/1.0 200 OK\r\n\r\nhello\n", socket.MSG_MORE)
            c.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # a health check that connected and reset
        c.close()

def count(addr, port, n):
    seen = {}
    for _ in range(n):
        s = socket.create_connection((addr, port), timeout=5)
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        while s.recv(4096):
            pass
        # struct tcp_info (linux/tcp.h): tcpi_segs_in is the u32 at byte 140.
        segs = struct.unpack_from("I", s.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 232), 140)[0]
        seen[segs] = seen.get(segs, 0) + 1
        s.close()
    print(json.dumps(seen))

if sys.argv[1] == "serve":
    serve(sys.argv[2])
else:
    count(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
