"""Serve the built site on 127.0.0.1 the way a static web host does.

The browser tests and the page-weight measurement (:mod:`gradcut.tools.weight`) need a server
that behaves like the one readers will meet, not like ``python -m http.server``:

- text types (HTML, CSS, JS, JSON, SVG) are sent gzip-compressed when the browser asks
  for it, as GitHub Pages, Netlify and a stock nginx or Apache do;
- every response may be cached for ten minutes (``Cache-Control: max-age=600``, what
  GitHub Pages sends) and carries an ``ETag`` for revalidation;
- a missing path gets status 404 and the site's 404 page, chosen by the longest
  matching prefix of ``not_found`` (by default the root ``404.html``, which is what
  GitHub Pages and Netlify serve for any missing path);
- the site may live under a path ``prefix`` (``/project/``), as on a project site.

``python -m gradcut.tools.serve _build/html`` serves a build for a look in a browser.
"""

import argparse
import contextlib
import email.utils
import functools
import gzip
import hashlib
import mimetypes
import posixpath
import sys
import threading
import urllib.parse
from collections.abc import Iterator
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

# gzip level of nginx's and Apache's usual configuration (nginx's default is 1; 6 is what
# most hosts set, and what GitHub Pages' output matches closely).
GZIP_LEVEL = 6
CACHE_CONTROL = "max-age=600"
TEXT_TYPES = {
    "application/javascript",
    "application/json",
    "application/xml",
    "image/svg+xml",
    "text/css",
    "text/html",
    "text/javascript",
    "text/plain",
    "text/xml",
}
_EXTRA_TYPES = {
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".woff2": "font/woff2",
    ".woff": "font/woff",
    ".ttf": "font/ttf",
    ".svg": "image/svg+xml",
    ".ipynb": "application/json",
    ".inv": "application/octet-stream",
}


def content_type(path: Path) -> str:
    return _EXTRA_TYPES.get(path.suffix.lower()) or (
        mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    )


def is_text(ctype: str) -> bool:
    return ctype.split(";")[0].strip() in TEXT_TYPES


@functools.lru_cache(maxsize=512)
def compressed(data: bytes) -> bytes:
    # Cached: the same theme files are asked for by every page, and compressing them
    # again each time would make the server, not the page, the slow part of a load.
    # mtime=0: the same file gives the same bytes (and ETag) on every request
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


class _Handler(BaseHTTPRequestHandler):
    server: "SiteServer"
    protocol_version = "HTTP/1.1"

    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass  # a test run's output is about the site, not about each request

    def do_HEAD(self):
        self._respond(body=False)

    def do_GET(self):
        self._respond(body=True)

    def _respond(self, body: bool) -> None:
        site = self.server
        url_path = urllib.parse.urlsplit(self.path).path
        rel = site.relative(url_path)
        status = HTTPStatus.OK
        file = site.resolve(rel) if rel is not None else None
        if file is not None and file.is_dir():
            if not url_path.endswith("/"):
                self._redirect(url_path + "/")
                return
            file = file / "index.html" if (file / "index.html").is_file() else None
        if file is None or not file.is_file():
            status = HTTPStatus.NOT_FOUND
            file = site.not_found_page(rel or "")
        site.record(url_path, status)
        if file is None:
            self._send(status, b"Not found\n", "text/plain; charset=utf-8", body=body)
            return
        ctype = content_type(file)
        if is_text(ctype):
            ctype += "; charset=utf-8"
        data = file.read_bytes()
        encoding = None
        if is_text(ctype) and "gzip" in self.headers.get("Accept-Encoding", ""):
            data, encoding = compressed(data), "gzip"
        etag = '"%s"' % hashlib.sha1(data).hexdigest()[:16]
        if status == HTTPStatus.OK and self.headers.get("If-None-Match") == etag:
            self.send_response(HTTPStatus.NOT_MODIFIED)
            self.send_header("ETag", etag)
            self.send_header("Cache-Control", CACHE_CONTROL)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        headers = {"ETag": etag, "Vary": "Accept-Encoding"}
        if status == HTTPStatus.OK:
            headers["Cache-Control"] = CACHE_CONTROL
            headers["Last-Modified"] = email.utils.formatdate(file.stat().st_mtime, usegmt=True)
        if encoding:
            headers["Content-Encoding"] = encoding
        self._send(status, data, ctype, body=body, headers=headers)

    def _redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.MOVED_PERMANENTLY)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _send(self, status, data: bytes, ctype: str, body: bool, headers=None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        if body:
            self.wfile.write(data)


class SiteServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        # A browser that goes to the next page drops the requests still under way, as
        # readers' browsers do: nothing to report. Anything else is.
        if isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            return
        super().handle_error(request, client_address)

    def __init__(self, root: Path, prefix: str = "/", not_found: dict[str, str] | None = None):
        self.root = Path(root).resolve()
        self.prefix = "/" + prefix.strip("/") + "/" if prefix.strip("/") else "/"
        self.not_found = {"": "404.html"} if not_found is None else dict(not_found)
        self.requests: list[tuple[str, int]] = []
        self._lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), _Handler)

    @property
    def url(self) -> str:
        """The site's root URL, ending in a slash."""
        host, port = self.server_address[:2]
        return f"http://{host}:{port}{self.prefix}"

    def relative(self, url_path: str) -> str | None:
        """The path inside the site, or None when the URL is outside the prefix."""
        path = urllib.parse.unquote(url_path)
        if not (path + "/").startswith(self.prefix):
            return None
        return path[len(self.prefix) :]

    def resolve(self, rel: str) -> Path | None:
        parts = [p for p in posixpath.normpath("/" + rel).split("/") if p and p != ".."]
        path = self.root.joinpath(*parts)
        return path if path.exists() else None

    def not_found_page(self, rel: str) -> Path | None:
        for key in sorted(self.not_found, key=len, reverse=True):
            if rel.startswith(key):
                page = self.root / self.not_found[key]
                return page if page.is_file() else None
        return None

    def record(self, path: str, status: int) -> None:
        with self._lock:
            self.requests.append((path, int(status)))


@contextlib.contextmanager
def serve(root: Path, prefix: str = "/", not_found: dict[str, str] | None = None) -> Iterator[SiteServer]:
    """Serve ``root`` on a free port of 127.0.0.1 in a background thread."""
    server = SiteServer(root, prefix=prefix, not_found=not_found)
    thread = threading.Thread(target=server.serve_forever, name="gradcut-serve", daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gradcut.tools.serve", description=__doc__.split("\n")[0])
    parser.add_argument("site", nargs="?", default="_build/html", help="the built site (default: _build/html)")
    parser.add_argument("--prefix", default="/", help="path the site lives under (default: /)")
    args = parser.parse_args(argv)
    with serve(Path(args.site), prefix=args.prefix) as server:
        print(f"Serving {args.site} at {server.url} (Ctrl-C stops)", flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
