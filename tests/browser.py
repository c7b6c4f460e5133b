"""A headless Chromium driven over the DevTools protocol, on a pipe.

Chromium's ``--remote-debugging-pipe`` reads protocol messages from its file
descriptor 3 and writes them to 4, each a JSON text ended by a NUL byte; no
port, no extra Python package. :class:`Browser` opens one page and answers
what the documentation tests ask: load a URL and collect the console errors
it produced, evaluate JavaScript, take a screenshot.
"""

from __future__ import annotations

import base64
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def find_chromium() -> str | None:
    """The path of an installed Chromium (Debian's ``chromium`` first)."""
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


class BrowserError(RuntimeError):
    """The browser did not answer, or answered a command with an error."""


class Browser:
    """One headless Chromium with one page, attached over the pipe."""

    def __init__(self, executable: str, profile: Path, width: int = 1280, height: int = 900) -> None:
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        args = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
            f"--user-data-dir={profile}", f"--window-size={width},{height}", "--remote-debugging-pipe",
            "about:blank",
        ]
        # bash puts the pipe ends where Chromium looks for them: 3 and 4.
        self._process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser_r} 4>&{from_browser_w}', executable, *args],
            pass_fds=(to_browser_r, from_browser_w), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.events: list[dict[str, Any]] = []
        target = self.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            self.send(f"{domain}.enable", session=True)

    def close(self) -> None:
        """Ends the browser (and only it: the process this object started)."""
        try:
            self.send("Browser.close", timeout=5)
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

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _read_message(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise BrowserError("the browser closed its pipe")
                self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return json.loads(message)

    def send(self, method: str, params: dict[str, Any] | None = None, session: bool = False,
             timeout: float = 60) -> dict[str, Any]:
        """Sends one command and returns its result; events that arrive
        meanwhile are kept in :attr:`events`."""
        self._next_id += 1
        message: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            answer = self._read_message(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise BrowserError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            if "method" in answer:
                self.events.append(answer)

    def _wait_for_event(self, method: str, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events):
            self.events.append(self._read_message(deadline))

    def load(self, url: str, settle: float = 1.0, timeout: float = 60) -> list[str]:
        """Opens ``url``, waits for its load event and ``settle`` seconds
        more, and returns the errors it logged: console errors, uncaught
        exceptions and the browser's own error entries (a resource that
        failed to load, ...)."""
        self.events.clear()
        self.send("Page.navigate", {"url": url}, session=True)
        self._wait_for_event("Page.loadEventFired", timeout)
        end = time.monotonic() + settle
        while True:
            left = end - time.monotonic()
            if left <= 0:
                break
            try:
                self.events.append(self._read_message(time.monotonic() + left))
            except BrowserError:
                break
        return [text for text in map(_error_text, self.events) if text]

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (promises awaited)."""
        result = self.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise BrowserError(f"{expression[:60]}...: {result['exceptionDetails']}")
        return result["result"].get("value")

    def screenshot(self) -> bytes:
        """A PNG of the page's viewport."""
        data = self.send("Page.captureScreenshot", {"format": "png"}, session=True)["data"]
        return base64.b64decode(data)

    def distinct_colours(self, png: bytes, step: int = 97) -> int:
        """How many colours a sample of ``png``'s pixels (every ``step``-th)
        has, decoded by the browser: 1 for a blank picture."""
        source = "data:image/png;base64," + base64.b64encode(png).decode()
        return int(self.evaluate(f"""(async () => {{
            const img = new Image(); img.src = {json.dumps(source)}; await img.decode();
            const canvas = document.createElement("canvas");
            canvas.width = img.width; canvas.height = img.height;
            const g = canvas.getContext("2d"); g.drawImage(img, 0, 0);
            const d = g.getImageData(0, 0, img.width, img.height).data;
            const seen = new Set();
            for (let i = 0; i < d.length; i += 4 * {step}) seen.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
            return seen.size;
        }})()"""))


def _error_text(event: dict[str, Any]) -> str | None:
    """The message of an event that reports an error, else ``None``."""
    params = event.get("params", {})
    if event["method"] == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
        return "console: " + " ".join(str(a.get("value", a.get("description", ""))) for a in params.get("args", []))
    if event["method"] == "Runtime.exceptionThrown":
        details = params.get("exceptionDetails", {})
        return "exception: " + str(details.get("exception", {}).get("description", details.get("text")))
    if event["method"] == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
        entry = params["entry"]
        return f"log: {entry.get('text')} ({entry.get('url', '')})"
    return None
