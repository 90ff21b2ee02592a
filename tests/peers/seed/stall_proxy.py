# TCP proxy 127.0.0.1:LISTEN -> 127.0.0.1:TARGET; while the file STALL exists it stops reading
# from the target (etcd's sends back up: TCP window, then gRPC flow control, then etcd's channel).
import socket, sys, threading, os, time
listen, target, stall = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
def pipe(src, dst, watch_stall):
    try:
        while True:
            if watch_stall:
                while os.path.exists(stall):
                    time.sleep(0.05)
            data = src.recv(16384)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    for s in (src, dst):
        try: s.shutdown(socket.SHUT_RDWR)
        except OSError: pass
srv = socket.socket(); srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", listen)); srv.listen(64)
while True:
    c, _ = srv.accept()
    u = socket.socket()
    u.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 32768)
    u.connect(("127.0.0.1", target))
    threading.Thread(target=pipe, args=(c, u, False), daemon=True).start()
    threading.Thread(target=pipe, args=(u, c, True), daemon=True).start()
