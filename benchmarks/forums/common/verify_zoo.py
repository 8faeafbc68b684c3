#!/usr/bin/env python3
"""common/verify.py for the zoo, with two engine behaviours it does not expect.

    python3 common/verify_zoo.py <engine>/truth/truth.json [verify.py options]

- Misago's linkifier turns CJK text after a file name into a link ("http://limits.conf”文件，…"),
  which urllib.parse.urljoin rejects (ValueError, NFKC check): such a link counts as a link to the
  page it is on.
- Misago's thread lists link their next page as <a href="?page=N"> (which the view ignores: it reads
  ?start=N) and as <link rel="next" href="?start=N"> in the head, the only working link: the
  crawl here follows <link rel="next"/"prev"> too.
Everything else is verify.py unchanged.
"""
import importlib.util
import os
import sys
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import zoo  # noqa: E402

_urljoin = urllib.parse.urljoin


def urljoin(base, url, allow_fragments=True):
    try:
        return _urljoin(base, url, allow_fragments)
    except ValueError:
        return base


def load_verify():
    spec = importlib.util.spec_from_file_location("verify", os.path.join(zoo.HERE, "verify.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    links_start = mod.Links.handle_starttag

    def handle_starttag(self, tag, attrs):
        links_start(self, tag, attrs)
        a = dict(attrs)
        if tag == "link" and (a.get("rel") or "").lower() in ("next", "prev") and a.get("href"):
            self.links.append(a["href"])

    mod.Links.handle_starttag = handle_starttag
    return mod


if __name__ == "__main__":
    urllib.parse.urljoin = urljoin
    sys.exit(load_verify().main())
