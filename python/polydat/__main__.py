"""``python -m polydat ...``: exactly the ``polydat`` command."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
