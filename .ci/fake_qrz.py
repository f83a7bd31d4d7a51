"""A stand-in for QRZ.com's Logbook API for .ci/fuzz, so that the fuzzer reaches the /v1/logbooks
endpoints past the question to QRZ: every key opens the book of the callsign given as argv[1],
every contact goes in, every delete succeeds, and the book has nothing to import. Prints its
address (http://127.0.0.1:PORT/api) on stdout, then serves until killed."""

import itertools
import sys
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CALLSIGN = sys.argv[1]
log_ids = itertools.count(1)


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        form = urllib.parse.parse_qs(self.rfile.read(length).decode())
        action = form.get("ACTION", [""])[0]
        if action == "STATUS":
            reply = {"RESULT": "OK", "DATA": f"CALLSIGN={CALLSIGN}&BOOKID=1&COUNT=0"}
        elif action == "INSERT":
            reply = {"RESULT": "OK", "LOGID": str(next(log_ids)), "COUNT": "1"}
        elif action == "DELETE":
            ids = form.get("LOGIDS", [""])[0].split(",")
            reply = {"RESULT": "OK", "COUNT": str(len(ids))}
        elif action == "FETCH":
            reply = {"RESULT": "FAIL", "COUNT": "0"}
        else:
            reply = {"RESULT": "FAIL", "REASON": f"unknown action {action}"}
        body = urllib.parse.urlencode(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"http://127.0.0.1:{server.server_address[1]}/api", flush=True)
server.serve_forever()
