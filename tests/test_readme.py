"""What the README promises a new user, checked: it is a landing page (at
most 200 lines) whose first two command lines stay the ones to run and whose
links all lead to pages of this repository. Its samples run with every
other page's (``tests/test_docs_samples.py``)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text()


def test_the_first_commands_are_still_the_ones_to_run() -> None:
    first = re.search(r"```bash\n(.*?)```", README, re.S).group(1)  # type: ignore[union-attr]
    assert first.splitlines()[0] == "pip install . && polydat run examples/users.polydat --cycles 0..10"
    assert first.splitlines()[1].startswith("bash .ci/run")
    assert (ROOT / "examples" / "users.polydat").is_file() and (ROOT / ".ci" / "run").is_file()


def test_the_readme_is_a_landing_page() -> None:
    assert len(README.splitlines()) <= 200
    for heading in ("## Install", "## A program and its output", "## Documentation"):
        assert heading in README


def test_every_link_of_the_readme_leads_to_a_file() -> None:
    targets = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README)
    assert len(targets) >= 10, targets
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert not missing, missing
    for page in ("docs/tutorial.md", "docs/language/index.md", "docs/reference/nodes.md", "docs/performance.md"):
        assert page in targets, page
