"""``python -m polydat.testing FILE...``: re-check replay files on every engine."""

from __future__ import annotations

import sys

from .replay_files import main

sys.exit(main())
