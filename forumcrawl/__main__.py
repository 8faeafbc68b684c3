"""``python -m forumcrawl`` is the ``forumcrawl`` command."""

import sys

from forumcrawl.cli import main

sys.exit(main())
