"""The documentation site builds (``mkdocs build --strict``: every warning
an error) and renders: its home page and the node reference open in
headless Chromium with no console error, show something (a screenshot that
is not blank), and the node reference has an anchor ``#<name>`` for every
node of the catalog. Skipped, saying why, only where MkDocs or a Chromium
is not installed (``.ci/run`` installs both when it can)."""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import Browser, find_chromium

ROOT = Path(__file__).resolve().parent.parent

pytest.importorskip("mkdocs", reason="the documentation tools are not installed: pip install '.[docs]'")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built strictly into a temporary directory."""
    out = tmp_path_factory.mktemp("site")
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert build.returncode == 0, build.stderr
    return out


@pytest.fixture(scope="module")
def served(site: Path) -> Iterator[str]:
    """The site over HTTP on the loopback interface (the search index is
    fetched by a web worker, which a file:// page may not start)."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Browser]:
    executable = find_chromium()
    if executable is None:
        pytest.skip("no Chromium here (Debian: apt-get install chromium; .ci/run installs it when apt-get works)")
    with Browser(executable, tmp_path_factory.mktemp("profile")) as opened:
        yield opened


def catalog_names() -> list[str]:
    done = subprocess.run([sys.executable, "-m", "polydat", "nodes", "--json"], capture_output=True, text=True,
                          check=True)
    return [node["name"] for node in json.loads(done.stdout)]


def test_the_site_has_every_page_of_the_nav(site: Path) -> None:
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html") if p.parent.name != "search")
    for expected in ("index.html", "tutorial/index.html", "reference/nodes/index.html", "reference/cli/index.html",
                     "reference/api/index.html", "reference/fields/index.html", "language/index.html"):
        assert expected in pages, pages
    assert len(pages) >= 20, pages


@pytest.mark.parametrize("page", ["", "reference/nodes/"], ids=["home", "node reference"])
def test_the_page_renders_without_a_console_error(browser: Browser, served: str, page: str, tmp_path: Path) -> None:
    errors = browser.load(f"{served}/{page}")
    assert errors == [], errors
    shot = browser.screenshot()
    (tmp_path / "page.png").write_bytes(shot)
    assert shot.startswith(b"\x89PNG")
    colours = browser.distinct_colours(shot)
    assert colours >= 5, f"the screenshot looks blank ({colours} colours): {tmp_path / 'page.png'}"
    title = browser.evaluate("document.querySelector('article h1').textContent")
    assert title.strip().rstrip("¶").strip() in ("Polydat", "Node reference"), title


def test_every_node_has_its_anchor(browser: Browser, served: str) -> None:
    assert browser.load(f"{served}/reference/nodes/") == []
    ids = set(browser.evaluate("[...document.querySelectorAll('[id]')].map(e => e.id)"))
    missing = [name for name in catalog_names() if name not in ids]
    assert not missing, missing
    # An anchor is a place the browser scrolls to: the heading of that node.
    heading = browser.evaluate("document.getElementById('hash').tagName + ' ' + document.getElementById('hash').textContent")
    assert heading.startswith("H3 hash"), heading


def test_the_reference_pages_are_generated_from_the_code(site: Path) -> None:
    """The CLI page has every subcommand and option of the parser; the API
    page documents the public names."""
    cli = (site / "reference" / "cli" / "index.html").read_text()
    for anchor in ("run", "check", "explain", "nodes", "fields", "data", "bench"):
        assert f'id="{anchor}"' in cli, anchor
    for option in ("--cycles", "--parts", "--layout", "--threads", "--engine"):
        assert option in cli, option
    api = (site / "reference" / "api" / "index.html").read_text()
    for name in ("polydat.program.compile", "polydat.program.Program.generate", "polydat.program.Kernel.pull",
                 "polydat.workload.Workload", "polydat.errors.CompileError"):
        assert f'id="{name}"' in api, name
