"""``forumcrawl demo``: it says what it does from the start, compares threads, thread pages and
posts with the generator's truth in plain words, and names the next command."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from forumcrawl.commands.demo import compare
from forumcrawl.mockforum import ForumSite

FORUMCRAWL = str(Path(sys.executable).with_name("forumcrawl"))


def perfect_items(truth):
    """The records a perfect crawl exports: every thread page with its posts as the truth has them."""
    return [
        {"url": url, "posts": [{"author": p.author, "published": p.published, "text": p.text}
                               for p in truth.posts_for(url)]}
        for url in truth.topic_urls
    ]


def test_compare_counts_what_a_crawl_found_against_the_truth():
    truth = ForumSite.from_preset("phpbb", "small").truth("http://127.0.0.1:8999/")
    items = perfect_items(truth)
    total_posts = sum(len(truth.posts_for(u)) for u in truth.topic_urls)
    perfect = compare(truth, items)
    assert (perfect.pages_found, perfect.pages, perfect.pages_extra) == (len(truth.topic_urls),) * 2 + (0,)
    assert perfect.posts_found == perfect.authors_right == perfect.dates_right == total_posts
    assert perfect.threads_found == perfect.threads == len(truth.threads) and not perfect.missed

    lost_page = items.pop()                           # one thread page not exported
    items[0]["posts"].pop()                           # one post lost on another page
    items[1]["posts"][0]["author"] = "someone else"   # one author wrong
    items[1]["posts"][0]["published"] = "1999-01-01T00:00:00"
    items.append({"url": truth.non_topic_urls[0], "posts": []})   # a page that is no thread
    flawed = compare(truth, items)
    assert flawed.pages_found == len(truth.topic_urls) - 1 and flawed.pages_extra == 1
    lost = len(truth.posts_for(lost_page["url"])) + 1
    assert flawed.posts_found == total_posts - lost
    assert flawed.authors_right == flawed.dates_right == total_posts - lost - 1
    assert len(flawed.missed) == 1 and truth.thread_for(lost_page["url"]).title in flawed.missed[0]


def test_demo_explains_itself(tmp_path: Path):
    proc = subprocess.run([FORUMCRAWL, "demo", "--families", "phpbb"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=240, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    errors = proc.stderr.splitlines()
    assert errors[0].startswith("forumcrawl demo: serving 1 generated forum on 127.0.0.1"), errors
    assert len(errors) == len(set(errors)) and len(errors) < 20 and "Dropped" not in proc.stderr

    out = proc.stdout
    assert "http://" not in out, "no URL of a server already stopped"
    assert "precision" not in out and "{'" not in out, "plain words, no jargon or dicts"
    assert "phpBB-like forum" in out
    pages = re.search(r"thread pages +(\d+) of (\d+) exported, nothing else", out)
    posts = re.search(r"posts +(\d+) of (\d+) found with their text", out)
    fields = re.search(r"(\d+) with the right author, (\d+) with the right date", out)
    assert pages and posts and fields, out
    assert pages[1] == pages[2] and int(pages[2]) > 20
    assert posts[1] == posts[2] == fields[1] == fields[2] and int(posts[2]) > int(pages[2])
    assert "Next:" in out and "forumcrawl report demo-threads.jsonl" in out
    assert (tmp_path / "demo-threads.jsonl").stat().st_size > 0
