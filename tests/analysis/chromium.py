"""Headless Chromium driven over the DevTools protocol on a pipe (``--remote-debugging-pipe``:
JSON messages ending in a NUL byte, commands on the browser's fd 3, replies on its fd 4), with
the standard library alone. :func:`find_chromium` finds the browser (``GLORY_AI_CHROMIUM``, or
``chromium`` / ``chromium-browser`` / ``google-chrome`` on the PATH); :class:`Chromium` opens a
page at a given width and reports what a reader would meet: the page's width against the
window's, the images that did not load, the console errors, and a screenshot."""
from __future__ import annotations

import base64
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: how long one page may take to load, seconds (a report inlines a few MB of images)
LOAD_TIMEOUT = 60.0

# measured in the page once it has loaded: its width against the window's, and every image
_MEASURE = """(width => JSON.stringify({
  window: window.innerWidth,
  page: Math.max(document.documentElement.scrollWidth, document.body ? document.body.scrollWidth : 0),
  height: Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0),
  images: Array.from(document.images).map(img => ({
    alt: img.alt, loaded: img.complete && img.naturalWidth > 0,
    source: (img.currentSrc || img.src || '').slice(0, 60),
    width: img.getBoundingClientRect().width, natural: img.naturalWidth})),
  overflowing: Array.from(document.querySelectorAll('body *')).filter(e => {
    const r = e.getBoundingClientRect();
    return r.width > 0 && (r.right > width + 0.5 || r.left < -0.5)
      && !e.closest('.scroll, pre, details:not([open])');
  }).slice(0, 5).map(e => e.tagName.toLowerCase() + (e.className ? '.' + e.className : '')
      + ' ' + Math.round(e.getBoundingClientRect().right) + 'px')
}))(%d)"""


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) binary, or None."""
    named = os.environ.get("GLORY_AI_CHROMIUM")
    if named:
        return named if Path(named).exists() else None
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


@dataclass
class PageCheck:
    """What a page showed at one width: the window's and the page's width (CSS px), its
    images (alt, loaded, ...), the console errors, and the screenshot (PNG bytes)."""

    url: str
    width: int
    window: int
    page: int
    images: list[dict[str, Any]]
    errors: list[str]
    overflowing: list[str] = field(default_factory=list)
    screenshot: bytes = b""

    def problems(self) -> list[str]:
        """Every problem a reader would meet, in words (empty: none)."""
        out = []
        if self.page > self.width or self.window != self.width:
            out.append(f"the page is {self.page} px wide in a {self.width} px window "
                       f"(layout viewport {self.window} px): it scrolls sideways"
                       + (f" ({', '.join(self.overflowing)})" if self.overflowing else ""))
        out += [f"image {img['alt']!r} did not load ({img['source']}...)"
                for img in self.images if not img["loaded"]]
        out += [f"console error: {e}" for e in self.errors]
        return out


class ChromiumError(RuntimeError):
    pass


class Chromium:
    """A headless Chromium; use as a context manager. ``check(path, width)`` loads a page in
    a phone-like (mobile, below 600 px) or desktop window of that width."""

    def __init__(self, binary: str) -> None:
        self._profile = tempfile.TemporaryDirectory(prefix="glory_ai_chromium.")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the browser reads commands on its fd 3 and writes replies on its fd 4: a small
        # Python moves the pipe's ends there (from fds above 9, so that no move overwrites
        # another) and becomes the browser
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)
        command = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                   "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                   "--disable-background-networking", "--disable-sync", "--mute-audio",
                   "--hide-scrollbars", "--force-color-profile=srgb",
                   f"--user-data-dir={self._profile.name}", "about:blank"]
        shim = ("import os, sys; os.dup2(int(sys.argv[1]), 3); os.dup2(int(sys.argv[2]), 4); "
                "os.close(int(sys.argv[1])); os.close(int(sys.argv[2])); "
                "os.execv(sys.argv[3], sys.argv[3:])")
        self._proc = subprocess.Popen(
            [sys.executable, "-c", shim, *map(str, ends), *command],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=ends, start_new_session=True)
        for fd in ends:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except (ChromiumError, OSError):
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._profile.cleanup()

    # ---- the protocol -------------------------------------------------------------------

    def _read_message(self, deadline: float) -> dict[str, Any]:
        import select

        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ChromiumError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                raise ChromiumError(f"the browser closed its pipe (exit status {self._proc.poll()})")
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None,
             timeout: float = LOAD_TIMEOUT) -> dict[str, Any]:
        """Send one command and wait for its reply (events that arrive meanwhile are kept)."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        data = json.dumps(message).encode() + b"\0"
        while data:
            data = data[os.write(self._to_browser, data):]
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise ChromiumError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            self._events.append(reply)

    def _wait_for(self, method: str, session: str, timeout: float = LOAD_TIMEOUT) -> None:
        deadline = time.monotonic() + timeout
        while not any(e.get("method") == method and e.get("sessionId") == session
                      for e in self._events):
            self._events.append(self._read_message(deadline))

    # ---- a page ---------------------------------------------------------------------------

    def check(self, path: str | os.PathLike, width: int, height: int = 900,
              screenshot: bool = False) -> PageCheck:
        """Load the page at ``path`` in a window ``width`` CSS px wide (a phone's, with its
        viewport rules, below 600 px), and measure it."""
        url = Path(path).resolve().as_uri()
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self._events = []
        try:
            for domain in ("Page", "Runtime", "Log"):
                self.send(f"{domain}.enable", session=session)
            mobile = width < 600
            self.send("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
                      session=session)
            if mobile:
                self.send("Emulation.setTouchEmulationEnabled", {"enabled": True}, session=session)
            self.send("Page.navigate", {"url": url}, session=session)
            self._wait_for("Page.loadEventFired", session)
            measured = json.loads(self.send("Runtime.evaluate", {"expression": _MEASURE % width,
                                                                 "returnByValue": True},
                                            session=session)["result"]["value"])
            shot = b""
            if screenshot:
                full = {"x": 0, "y": 0, "width": max(width, measured["page"]),
                        "height": measured["height"], "scale": 1}
                shot = base64.b64decode(self.send(
                    "Page.captureScreenshot", {"format": "png", "clip": full,
                                               "captureBeyondViewport": True},
                    session=session)["data"])
            errors = []
            for event in self._events:
                if event.get("sessionId") != session:
                    continue
                params = event.get("params", {})
                if event.get("method") == "Runtime.consoleAPICalled" and params.get("type") == "error":
                    errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                           for a in params.get("args", [])))
                elif event.get("method") == "Runtime.exceptionThrown":
                    details = params.get("exceptionDetails", {})
                    errors.append(details.get("exception", {}).get("description")
                                  or details.get("text", "an exception"))
                elif (event.get("method") == "Log.entryAdded"
                      and params.get("entry", {}).get("level") == "error"):
                    entry = params["entry"]
                    errors.append(f"{entry.get('text')} {entry.get('url', '')}".strip())
            return PageCheck(url=url, width=width, window=measured["window"], page=measured["page"],
                             images=measured["images"], errors=errors,
                             overflowing=measured["overflowing"], screenshot=shot)
        finally:
            self.send("Target.closeTarget", {"targetId": target})
