"""``forumcrawl rules list|show|forget``: the site rules kept between crawls.

An embedded crawl keeps each site's learned rules in FORUMCRAWL_RULES_DIR (one JSON file per
``host:port``), a cluster in its Redis (``<prefix>:rules:<site>``, with ``--redis-url`` or
FORUMCRAWL_REDIS_URL). A crawl checks stored rules on the site's first pages before it uses them;
``forget`` makes the next crawl learn a site from scratch.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

NAME = "rules"
HELP = "list, show or forget the site rules kept between crawls"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Options of ``forumcrawl rules``."""
    parser.add_argument("action", choices=["list", "show", "forget"],
                        help="list: one line per site; show: a site's model as JSON; forget: delete it")
    parser.add_argument("sites", nargs="*", metavar="SITE",
                        help="host[:port] (or a URL of the site) for show and forget")
    parser.add_argument("--all", action="store_true", help="forget: every stored site")
    parser.add_argument("--rules-dir", help="folder of an embedded crawl's rules (default: FORUMCRAWL_RULES_DIR)")
    parser.add_argument("--redis-url", help="a cluster's rules in this Redis instead of the folder")


def _store(args: argparse.Namespace) -> Any:
    from forumcrawl.redis.keys import redis_url_from_settings
    from forumcrawl.runner import project_settings
    from forumcrawl.sitemodel import FileRuleStore

    settings = project_settings()
    url = args.redis_url or (None if args.rules_dir else redis_url_from_settings(settings))
    if url:
        from forumcrawl.redis.rules import RedisRuleStore

        return RedisRuleStore(url, settings["FORUMCRAWL_REDIS_PREFIX"])
    return FileRuleStore(args.rules_dir or settings["FORUMCRAWL_RULES_DIR"])


def _summary(model: Any) -> str:
    """One line: the topic rule and which other rules the model has."""
    usc = model.rules.get("usc") or {}
    topic = usc.get("pattern") or usc.get("patterns") or ("learned" if usc else "none")
    others = ", ".join(sorted(name for name in model.rules if name != "usc")) or "none"
    return f"updated {model.updated or '?'}; thread pages {topic}; also {others}"


def run(args: argparse.Namespace) -> int:
    """List, show or forget stored site models; exit 1 when a named site has none."""
    from forumcrawl.cli import CommandError
    from forumcrawl.document import site_of
    from forumcrawl.redis.keys import REDIS_ERRORS

    if args.action != "list" and not (args.sites or (args.action == "forget" and args.all)):
        raise CommandError(f"name the site(s) to {args.action} (host:port, or a URL of the site)")
    store = _store(args)
    try:
        if args.action == "list":
            for site in store.sites():
                model = store.get(site)
                print(f"{site}  {_summary(model) if model else 'unreadable'}")
            return 0
        sites = store.sites() if args.all else [site_of(s) if "://" in s else s for s in args.sites]
        status = 0
        for site in sites:
            if args.action == "show":
                model = store.get(site)
                if model is None:
                    print(f"{site}: no stored rules")
                    status = 1
                    continue
                print(json.dumps(model.to_dict(), ensure_ascii=False, indent=2))
            elif store.forget(site):
                print(f"forgot the rules of {site}")
            else:
                print(f"{site}: no stored rules")
                status = 1
        return status
    except (OSError, ValueError, *REDIS_ERRORS) as exc:
        raise CommandError(str(exc)) from None
