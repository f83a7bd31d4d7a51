"""A stand-in for Club Log's API for .ci/fuzz, so that the fuzzer reaches the Club Log side of
/v1/logbooks (connecting, pushes, deletes, the back log's upload) without Club Log: every
realtime.php, delete.php and putlogs.php request is answered 200 "OK", as Club Log answers a
stored, deleted or queued upload. Prints its address (http://127.0.0.1:PORT) on stdout, then
serves until killed."""

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        known = self.path in ("/realtime.php", "/delete.php", "/putlogs.php")
        body = b"OK" if known else b"Not Found"
        self.send_response(200 if known else 404)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
