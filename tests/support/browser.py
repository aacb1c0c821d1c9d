"""Headless Chromium driven over the DevTools protocol, for the tests that check a page in a
real browser (the reports at laptop and phone widths).

Chromium is started with ``--remote-debugging-pipe``: it reads protocol commands from its
file descriptor 3 and writes replies and events to 4, each message a JSON text ended by a
NUL byte. No websocket, no third-party client. A page is opened in a fresh target whose
viewport is set with ``Emulation.setDeviceMetricsOverride`` (``mobile`` below 600 px, so
the page's ``<meta name="viewport">`` is honoured as on a phone): the window size of a
headless browser has a floor of about 500 px, so ``--window-size=390,...`` alone does not
give a phone's viewport.

    browser = find_browser()                  # None when no Chromium is installed
    with Chromium(browser) as chrome:
        page = chrome.open(Path("report.html"), width=390, height=844)
        page.overflow, page.console_errors, page.broken_images
        chrome.screenshot(Path("shot.png"))   # the whole page of the last open()

``PAGE_PROBE`` measures the page from inside it: the document's scroll width against the
width asked for (horizontal overflow of the page), the elements sticking out of the viewport
(for the message), and every image that did not load.
"""
from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
#: widths below this are emulated as a phone (touch, the viewport meta tag honoured)
PHONE_BELOW = 600
#: seconds a page may take to load (a report is ~1 MB of inline images; CI machines are slow)
LOAD_SECONDS = 120.0

PAGE_PROBE = r"""
((asked) => {
  const root = document.documentElement;
  const width = asked;
  const wide = [];
  for (const el of document.body.querySelectorAll("*")) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    // inside a scrolling box (a wide table) is fine: the box scrolls, not the page
    let clipped = false;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const style = getComputedStyle(p);
      if (style.overflowX === "auto" || style.overflowX === "scroll" || style.overflowX === "hidden") {
        clipped = true; break;
      }
    }
    if (!clipped && box.right > width + 0.5) {
      const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
        + (el.className && typeof el.className === "string" ? "." + el.className.split(" ").join(".") : "");
      wide.push(`${name} to ${Math.round(box.right)} px`);
    }
  }
  const images = Array.from(document.images);
  const broken = images.filter(img => !(img.complete && img.naturalWidth > 0))
    .map(img => (img.alt || img.src.slice(0, 60)));
  const small = images.filter(img => img.naturalWidth > 0)
    .map(img => ({alt: img.alt, shown: img.getBoundingClientRect().width, natural: img.naturalWidth}));
  return JSON.stringify({
    scrollWidth: root.scrollWidth, clientWidth: width, innerWidth: window.innerWidth,
    height: root.scrollHeight, wide: wide.slice(0, 12), images: images.length, broken,
    shown: small,
  });
})(%d)
"""


_LAUNCH = ("import os, sys; reader, writer = int(sys.argv[1]), int(sys.argv[2]); "
           "os.dup2(reader, 3); os.dup2(writer, 4); os.close(reader); os.close(writer); "
           "os.execv(sys.argv[3], sys.argv[3:])")


def find_browser() -> str | None:
    """The path of an installed Chromium (or Chrome): ``GLORY_AI_CHROMIUM`` if set, else the
    first of :data:`BROWSERS` on the PATH; None when there is none."""
    named = os.environ.get("GLORY_AI_CHROMIUM")
    if named:
        return named if os.access(named, os.X_OK) else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    """The browser did not answer, or answered a command with an error."""


@dataclass
class PageResult:
    """What a page looked like in the browser at one width."""

    url: str
    width: int
    scroll_width: int
    client_width: int
    height: int
    wide: list[str]
    images: int
    broken_images: list[str]
    shown: list[dict[str, Any]]
    console_errors: list[str] = field(default_factory=list)

    @property
    def overflow(self) -> int:
        """How many CSS pixels the page is wider than the window asked for (0: no horizontal
        scroll). On a phone the layout viewport grows to a page that is too wide, so the
        page's width is compared with the window's, not with the viewport's."""
        return max(0, self.scroll_width - self.width, self.client_width - self.width)


class Chromium:
    """A headless Chromium process and its DevTools pipe (a context manager)."""

    def __init__(self, binary: str) -> None:
        self.binary = binary
        self._profile = tempfile.TemporaryDirectory(prefix="glory-chromium-")
        # the browser's own chatter goes to a file (a pipe nobody reads would fill and block it)
        self._log = open(Path(self._profile.name) / "stderr.log", "wb")  # noqa: SIM115 - closed in close()
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the pipe's ends moved to descriptors 10 and up, so that putting them on 3 and 4
        # cannot overwrite one with the other
        ends = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10) for fd in (to_browser_r, from_browser_w)]
        os.close(to_browser_r)
        os.close(from_browser_w)
        args = [binary, "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars",
                "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--mute-audio", f"--user-data-dir={self._profile.name}",
                "--remote-debugging-pipe", "about:blank"]
        # a small Python puts the two ends on the descriptors 3 and 4 that Chromium expects
        # and becomes the browser (a POSIX shell's redirections take one-digit descriptors)
        self._process = subprocess.Popen(
            [sys.executable, "-c", _LAUNCH, *map(str, ends), *args],
            pass_fds=ends, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=self._log)
        for fd in ends:
            os.close(fd)
        self._buffer = b""
        self._next_id = 0
        self._events: list[dict[str, Any]] = []
        self._session: str | None = None
        self._target: str | None = None

    # ---- the protocol ----------------------------------------------------------------------

    def _send(self, method: str, params: dict[str, Any] | None = None,
              session: str | None = None, timeout: float = 60.0) -> dict[str, Any]:
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        while True:
            reply = self._receive(timeout)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._events.append(reply)

    def _receive(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self._from_browser], [], [], max(left, 0.0))
            if not ready:
                raise BrowserError(f"no answer from {self.binary} in {timeout:.0f} s")
            chunk = os.read(self._from_browser, 1 << 20)
            if not chunk:
                error = (Path(self._profile.name) / "stderr.log").read_text(errors="replace")
                raise BrowserError(f"{self.binary} closed its DevTools pipe: {error[-1500:]}")
            self._buffer += chunk
        text, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(text)

    def _wait_event(self, method: str, timeout: float) -> dict[str, Any]:
        for i, event in enumerate(self._events):
            if event.get("method") == method and event.get("sessionId") == self._session:
                return self._events.pop(i)
        deadline = time.monotonic() + timeout
        while True:
            event = self._receive(max(deadline - time.monotonic(), 0.0))
            if event.get("method") == method and event.get("sessionId") == self._session:
                return event
            self._events.append(event)

    def _page(self, method: str, params: dict[str, Any] | None = None,
              timeout: float = 60.0) -> dict[str, Any]:
        return self._send(method, params, session=self._session, timeout=timeout)

    # ---- pages -----------------------------------------------------------------------------

    def open(self, page: Path | str, width: int, height: int = 900) -> PageResult:
        """Load ``page`` (a file or URL) in a fresh tab of the given viewport, wait for its
        load event, and measure it (:data:`PAGE_PROBE`); console errors and uncaught
        exceptions of the page are in ``console_errors``."""
        if self._target is not None:
            self._send("Target.closeTarget", {"targetId": self._target})
        url = page.resolve().as_uri() if isinstance(page, Path) else page
        self._events.clear()
        self._target = self._send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._send("Target.attachToTarget",
                                   {"targetId": self._target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self._page(f"{domain}.enable")
        self._page("Emulation.setDeviceMetricsOverride",
                   {"width": width, "height": height, "deviceScaleFactor": 1,
                    "mobile": width < PHONE_BELOW})
        self._page("Page.navigate", {"url": url})
        self._wait_event("Page.loadEventFired", LOAD_SECONDS)
        probe = self._page("Runtime.evaluate", {"expression": PAGE_PROBE % width, "returnByValue": True},
                           timeout=LOAD_SECONDS)
        if "exceptionDetails" in probe:
            raise BrowserError(f"the page probe failed: {probe['exceptionDetails']}")
        measured = json.loads(probe["result"]["value"])
        # let late console messages arrive (none is expected from a static page)
        self._page("Runtime.evaluate", {"expression": "1", "returnByValue": True})
        return PageResult(url=url, width=width, scroll_width=measured["scrollWidth"],
                          client_width=measured["clientWidth"], height=measured["height"],
                          wide=measured["wide"], images=measured["images"],
                          broken_images=measured["broken"], shown=measured["shown"],
                          console_errors=self._console_errors())

    def _console_errors(self) -> list[str]:
        errors = []
        for event in self._events:
            if event.get("sessionId") != self._session:
                continue
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.exceptionThrown":
                details = params.get("exceptionDetails", {})
                errors.append(details.get("exception", {}).get("description") or details.get("text", "?"))
            elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
                errors.append(" ".join(str(a.get("value", a.get("description", "")))
                                       for a in params.get("args", [])))
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                entry = params["entry"]
                errors.append(f"{entry.get('text', '')} {entry.get('url', '')}".strip())
        return errors

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page last opened."""
        result = self._page("Runtime.evaluate", {"expression": expression, "returnByValue": True})
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        """A PNG of the page last opened: the whole page, or the viewport."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            width = self.evaluate("document.documentElement.scrollWidth")
            height = self.evaluate("document.documentElement.scrollHeight")
            params.update(captureBeyondViewport=True,
                          clip={"x": 0, "y": 0, "width": width, "height": height, "scale": 1})
        data = self._page("Page.captureScreenshot", params, timeout=LOAD_SECONDS)["data"]
        path.write_bytes(base64.b64decode(data))
        return path

    # ---- lifetime --------------------------------------------------------------------------

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self._send("Browser.close", timeout=10.0)
            except (BrowserError, OSError):
                pass
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        self._log.close()
        self._profile.cleanup()

    def __enter__(self) -> Chromium:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
