#!/usr/bin/env python3
"""Seed the pybbm test forum through pybbm's own models and write truth/truth.json.

Run with the forum venv's python from setup.sh; expects an empty, migrated database.
"""
import datetime as dt
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
# the engine's site: setup.sh runs this script from it (common/engine.sh, zoo_migrate_seed)
sys.path.insert(0, os.environ.get("PYBBM_SITE_DIR", os.getcwd()))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pybbsite.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.urls import reverse  # noqa: E402

from pybb import defaults as pybb_defaults  # noqa: E402
from pybb import util as pybb_util  # noqa: E402
from pybb.models import Category, Forum, Post, Topic  # noqa: E402

import zoo  # noqa: E402

User = get_user_model()
BASE_URL = settings.BASE_URL
PER_PAGE = pybb_defaults.PYBB_TOPIC_PAGE_SIZE
CATEGORIES = [
    ("Using Debian / 使用 Debian", ["install", "packages", "kernel", "software"]),
    ("Community / 社区", ["news", "support", "admin"]),
    ("Off-topic / 灌水", ["teahouse"]),
]


def main():
    t_start = time.time()
    plan = zoo.load_plan(seed=1004)
    User.objects.create_superuser("forum_admin", "admin@example.org", "admin-pass-123")
    users = {}
    for u in plan["users"]:
        user = User.objects.create_user(u["username"], u["email"], "password-" + u["username"])
        user.date_joined = zoo.utc(u["joined"])
        user.save()
        prof = pybb_util.get_pybb_profile(user)
        prof.signature = u["signature"] or ""
        prof.save()  # renders signature_html
        users[u["username"]] = user

    boards = {b["key"]: b for b in plan["boards"]}
    forums = {}
    for ci, (cname, keys) in enumerate(CATEGORIES):
        cat = Category.objects.create(name=cname, position=ci)
        for fi, k in enumerate(keys):
            forums[k] = Forum.objects.create(category=cat, name=boards[k]["name"][:80], position=fi,
                                             description=boards[k]["description"])

    records = []
    for ti, th in enumerate(plan["threads"]):
        with transaction.atomic():
            topic = Topic.objects.create(forum=forums[th["board"]], name=th["title"][:255],
                                         user=users[th["posts"][0]["author"]])
            objs = []
            for p in th["posts"]:
                body = zoo.bbcode_body(p)
                created = zoo.utc(p["created"])
                post = Post(topic=topic, user=users[p["author"]], body=zoo.original_body(p, zoo.bbcode_body),
                            created=created)
                post.save()
                if p["edit"]:  # edited 17 minutes later: pybbm shows "Edited <time>" under the post
                    post.body = body
                    post.updated = created + dt.timedelta(minutes=17)
                    post.save()
                objs.append((p, post, body))
            Topic.objects.filter(pk=topic.pk).update(created=zoo.utc(th["created"]))
        records.append((th, Topic.objects.get(pk=topic.pk), objs))
        if ti % 50 == 0:
            print("seeded %d/%d threads (%.1fs)" % (ti, len(plan["threads"]), time.time() - t_start), flush=True)

    threads = []
    for th, topic, objs in records:
        url = BASE_URL + topic.get_absolute_url()
        pages = zoo.page_urls(url, len(objs), PER_PAGE)
        # '?page=1' (the previous-page link of page 2) and the post permalinks /post/<id>/, which
        # redirect to '<topic>?page=N#post-<id>'; /topic/<id>/ redirects to the slugged URL
        aliases = {url + "?page=1": url}  # also where a post permalink of page 1 redirects
        aliases[BASE_URL + reverse("pybb:topic", kwargs={"pk": topic.pk})] = url
        aliases[url + "?first-unread=1"] = url  # topic lists link it; anonymous users get page 1
        posts = []
        for idx, (p, post, body) in enumerate(objs):
            purl = pages[idx // PER_PAGE]
            aliases[BASE_URL + post.get_absolute_url()] = purl
            sig = pybb_util.get_pybb_profile(post.user).signature_html or None
            posts.append(zoo.post_record(p, idx, body, post.body_html, purl, post.pk, signature_html=sig,
                                         edited=bool(p["edit"]),
                                         edit_reason=(p["edit"] or {}).get("reason") or None))
        threads.append(zoo.thread_record(th, url, pages, aliases, topic.name,
                                         BASE_URL + topic.forum.get_absolute_url(), posts,
                                         topic_id=topic.pk, slug=topic.slug))

    u0 = users[plan["users"][0]["username"]]
    t0 = records[0][1]
    f0 = t0.forum
    non_topic = [
        BASE_URL + "/",
        BASE_URL + f0.category.get_absolute_url(),
        BASE_URL + f0.get_absolute_url(),
        BASE_URL + f0.get_absolute_url() + "?page=2",
        BASE_URL + reverse("pybb:user", kwargs={"username": u0.username}),
        BASE_URL + reverse("pybb:user_posts", kwargs={"username": u0.username}),
        BASE_URL + reverse("pybb:user_topics", kwargs={"username": u0.username}),
        BASE_URL + reverse("pybb:topic_latest"),
        BASE_URL + reverse("pybb:feed_topics"),
        BASE_URL + reverse("pybb:feed_posts"),
        BASE_URL + "/accounts/login/?next=" + t0.get_absolute_url().replace("/", "%2F"),
        BASE_URL + "/accounts/register/",
    ]
    meta = {
        "engine": "pybbm", "engine_version": "pybbm 0.19.0 (Django 2.2, Python 3.8/3.9)",
        "base_url": BASE_URL, "posts_per_page": PER_PAGE, "topics_per_page": pybb_defaults.PYBB_FORUM_PAGE_SIZE,
        "first_post_is": "the topic's first post, rendered like every reply (table.post); no reply subject line",
        "body_format": "BBCode (bbcode 1.1): newlines become <br />; quotes are [quote=\"user\"] -> "
                       "<blockquote><em>user</em><br>text</blockquote>",
        "signatures": "native: Profile.signature (BBCode) in div.post-signature inside td.post-content",
        "edit_marker": "div.updated-message 'Edited DD Mon, YYYY HH:MM' (UTC) under the post",
        "times": "span.updated in the post header, 'DD Mon, YYYY HH:MM' in UTC, text only (no attribute)",
        "url_scheme": "PYBB_NICE_URL: /c/<category-slug>/<forum-slug>/<topic-slug>/ (unidecode slugs: Chinese "
                      "titles become pinyin), pages '?page=N'; page 2 links page 1 as '?page=1'",
        "url_aliases": "'?page=1'; '?first-unread=1' (linked from topic lists, page 1 for anonymous users); /topic/<id>/ (301 to the slugged URL); every post permalink /post/<id>/ "
                       "(302 to '<topic>?page=N#post-<id>', linked as '#' in each post header)",
        "noise": ["'#' permalink + time in each post header", "avatar and username in the left cell",
                  "signature under posts", "'Edited ...' lines", "login link with ?next=<current path>",
                  "'Register or login to create to post a reply' line with ?next=",
                  "breadcrumb Home / category / forum / topic"],
    }
    zoo.write_truth(HERE, meta, threads, non_topic, plan)
    print("done: %d threads, %d posts in %.1fs" % (len(threads), sum(len(t["posts"]) for t in threads),
                                                   time.time() - t_start))


if __name__ == "__main__":
    main()
