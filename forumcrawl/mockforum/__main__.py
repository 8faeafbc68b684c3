"""``python -m forumcrawl.mockforum``: serve the generated forums until interrupted.

Handy for looking at the pages in a browser or pointing a crawler at them by hand; ``--truth``
writes each site's truth as JSON next to it. ``--universe 104,110-112`` serves those forums of the
universe (:mod:`forumcrawl.mockforum.universe`) instead of the families, with the real clock,
and prints each one's dimensions.
"""

from __future__ import annotations

import argparse
import json
import threading
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from forumcrawl.mockforum.server import MockForumServer, serve
from forumcrawl.mockforum.site import ALL_FAMILIES, PRESETS
from forumcrawl.mockforum.universe import parse_seeds, serve_seed


def main(argv: Sequence[str] | None = None) -> int:
    """Start the servers, print their URLs, wait for Ctrl-C."""
    parser = argparse.ArgumentParser(prog="python -m forumcrawl.mockforum", description=__doc__)
    parser.add_argument("families", nargs="*",
                        help=f"families to serve: {', '.join(ALL_FAMILIES)} (default: all, or none "
                             "with --universe)")
    parser.add_argument("--universe", type=parse_seeds, default=[], metavar="SEEDS",
                        help="serve these forums of the universe, e.g. 104,110-112")
    parser.add_argument("--preset", default="default", choices=sorted(PRESETS))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0, help="first port (0: any free ports)")
    parser.add_argument("--truth", type=Path, help="folder to write <family or seed>.truth.json into")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.families) - set(ALL_FAMILIES))
    if unknown:
        parser.error(f"unknown families {unknown}; choose from {', '.join(ALL_FAMILIES)}")
    families = args.families or ([] if args.universe else list(ALL_FAMILIES))
    now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
    servers: list[MockForumServer] = []
    try:
        for n, name in enumerate([*families, *args.universe]):
            port = args.port + n if args.port else 0
            if isinstance(name, int):
                server = serve_seed(name, args.host, port, now=now)
                print(f"{name:<9} {server.url}  {json.dumps(server.site.dims.as_dict())}", flush=True)
            else:
                server = serve(name, args.host, port, preset=args.preset, seed=args.seed)
                print(f"{name:<9} {server.url}", flush=True)
            servers.append(server)
            if args.truth:
                args.truth.mkdir(parents=True, exist_ok=True)
                path = args.truth / f"{name}.truth.json"
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
