"""``python -m forumcrawl.mockforum``: serve the generated forums until interrupted.

Handy for looking at the pages in a browser or pointing a crawler at them by hand; ``--truth``
writes each site's truth as JSON next to it.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Sequence
from pathlib import Path

from forumcrawl.mockforum.server import MockForumServer, serve
from forumcrawl.mockforum.site import ALL_FAMILIES, PRESETS


def main(argv: Sequence[str] | None = None) -> int:
    """Start the servers, print their URLs, wait for Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m forumcrawl.mockforum", description=__doc__)
    parser.add_argument("families", nargs="*", default=list(ALL_FAMILIES), choices=ALL_FAMILIES,
                        help="families to serve (default: all)")
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="first port (0: any free ports)")
    parser.add_argument("--truth", type=Path, help="folder to write <family>.truth.json into")
    args = parser.parse_args(argv)
    servers: list[MockForumServer] = []
    try:
        for n, family in enumerate(args.families):
            port = args.port + n if args.port else 0
            server = serve(family, args.host, port, preset=args.preset, seed=args.seed)
            servers.append(server)
            print(f"{family:<9} {server.url}", flush=True)
            if args.truth:
                args.truth.mkdir(parents=True, exist_ok=True)
                path = args.truth / f"{family}.truth.json"
                path.write_text(server.truth.to_json(indent=1), encoding="utf-8")
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        for server in servers:
            server.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
