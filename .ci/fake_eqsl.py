"""A stand-in for eQSL.cc for .ci/fuzz, so that the fuzzer reaches the eQSL side of
/v1/logbooks (connecting, the pushes and Inbox reads that follow) without eQSL: every POST to
/qslcard/ImportADIF.cfm is answered 200 with the page eQSL answers for a record it took
("Result: 1 out of 1 records added"), every GET of /qslcard/DownloadInBox.cfm with eQSL's page
for an empty Inbox ("You have no log entries"). Prints its address (http://127.0.0.1:PORT) on
stdout, then serves until killed."""

from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        known = self.path.lower() == "/qslcard/importadif.cfm"
        body = (
            b"<HTML><BODY>Result: 1 out of 1 records added<BR></BODY></HTML>"
            if known
            else b"Not Found"
        )
        self.send_response(200 if known else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        known = self.path.lower().split("?")[0] == "/qslcard/downloadinbox.cfm"
        body = (
            b"<HTML><BODY><H3>You have no log entries</H3></BODY></HTML>"
            if known
            else b"Not Found"
        )
        self.send_response(200 if known else 404)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
