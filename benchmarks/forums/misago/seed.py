#!/usr/bin/env python3
"""Seed the Misago test forum through Misago's own models and parser; write truth/truth.json.

Run with the forum venv's python from setup.sh; expects a freshly migrated database.
"""
import datetime as dt
import math
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
# the engine's site: setup.sh runs this script from it (common/engine.sh, zoo_migrate_seed)
sys.path.insert(0, os.environ.get("MISAGO_SITE_DIR", os.getcwd()))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "misagosite.settings")

import django  # noqa: E402

django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.db import transaction  # noqa: E402
from django.test import RequestFactory  # noqa: E402
from django.urls import reverse  # noqa: E402

from misago.cache.versions import invalidate_all_caches  # noqa: E402
from misago.categories.models import Category, RoleCategoryACL  # noqa: E402
from misago.conf.models import Setting  # noqa: E402
from misago.core.utils import slugify  # noqa: E402
from misago.markup import parse  # noqa: E402
from misago.threads.checksums import update_post_checksum  # noqa: E402
from misago.threads.models import Post, Thread  # noqa: E402
from misago.users.avatars import dynamic as dynamic_avatars  # noqa: E402

import zoo  # noqa: E402

User = get_user_model()
BASE_URL = settings.BASE_URL
PER_PAGE, ORPHANS = 10, 3  # dynamic settings posts_per_page / posts_per_page_orphans (defaults 18 / 6)
CATEGORIES = [
    ("Using Debian / 使用 Debian", ["install", "packages", "kernel", "software"]),
    ("Community / 社区", ["news", "support", "admin"]),
    ("Off-topic / 灌水", ["teahouse"]),
]
REQUEST = RequestFactory().get("/", HTTP_HOST=BASE_URL.split("//", 1)[1])


def misago_pages(n):
    """Misago's PostsPaginator: pages of PER_PAGE-1 new posts, the last post of a page repeated as
    the first of the next one, and up to ORPHANS+1 trailing posts kept on the last page.
    Returns, per page, the 0-based post indexes it shows."""
    per, orphans = PER_PAGE - 1, ORPHANS + 1
    hits = max(1, n - orphans)
    npages = max(1, math.ceil(hits / per))
    pages = []
    for k in range(1, npages + 1):
        bottom, top = (k - 1) * per, k * per
        if top + orphans >= n:
            top = n
        if top < n:
            top += 1
        pages.append(list(range(bottom, top)))
    return pages


def quote_body(post):
    """Misago's quote button: [quote="@user"] ... [/quote] above the reply."""
    return zoo.bbcode_body(post, quote_fmt='[quote="@{author}"]\n{text}\n[/quote]')


def render(text, user):
    return parse(text, REQUEST, user)["parsed_text"]


def make_categories(boards):
    root = Category.objects.root_category()
    template = Category.objects.get(slug="first-category")
    acls = list(RoleCategoryACL.objects.filter(category=template))
    made = {}

    def add(name, parent, description=""):
        cat = Category(name=name, slug=slugify(name), description=description)
        cat.insert_at(parent, position="last-child", save=True)
        for acl in acls:
            RoleCategoryACL.objects.create(role=acl.role, category=cat, category_role=acl.category_role)
        return Category.objects.get(pk=cat.pk)

    for cname, keys in CATEGORIES:
        parent = add(cname, root)
        for k in keys:
            made[k] = add(boards[k]["name"], parent, boards[k]["description"])
    Thread.objects.filter(category=template).delete()
    template.delete()
    Category.objects.partial_rebuild(root.tree_id)
    return made


def main():
    t_start = time.time()
    plan = zoo.load_plan(seed=1003)
    for name, value in [("forum_name", "Debian 用户论坛 (Misago test board)"), ("forum_address", BASE_URL + "/"),
                        ("posts_per_page", str(PER_PAGE)), ("posts_per_page_orphans", str(ORPHANS))]:
        assert Setting.objects.change_setting(name, dry_value=value), name

    admin = User.objects.create_superuser("forum_admin", "admin@example.org", "admin-pass-123")
    dynamic_avatars.set_avatar(admin)  # generated locally (no gravatar fetch)
    users = {}
    for u in plan["users"]:
        user = User.objects.create_user(u["username"], u["email"], "password-" + u["username"],
                                        joined_on=zoo.utc(u["joined"]))
        dynamic_avatars.set_avatar(user)
        users[u["username"]] = user

    forums = make_categories({b["key"]: b for b in plan["boards"]})
    records = []
    for ti, th in enumerate(plan["threads"]):
        with transaction.atomic():
            op = users[th["posts"][0]["author"]]
            started = zoo.utc(th["posts"][0]["created"])
            thread = Thread.objects.create(category=forums[th["board"]], title=th["title"][:255],
                                           slug=slugify(th["title"][:255]) or "thread", started_on=started,
                                           last_post_on=started, starter=op, starter_name=op.username,
                                           starter_slug=op.slug, last_poster=op, last_poster_name=op.username,
                                           last_poster_slug=op.slug)
            objs = []
            for p in th["posts"]:
                user = users[p["author"]]
                body = quote_body(p)
                posted = zoo.utc(p["created"])
                post = Post.objects.create(category=thread.category, thread=thread, poster=user,
                                           poster_name=user.username, original=body,
                                           parsed=render(body, user), checksum="-", posted_on=posted,
                                           updated_on=posted)
                if p["edit"]:  # Misago keeps the edit count; the server-rendered page shows no notice
                    post.edits = 1
                    post.last_editor = user
                    post.last_editor_name = user.username
                    post.last_editor_slug = user.slug
                    post.updated_on = posted + dt.timedelta(minutes=17)
                update_post_checksum(post)
                post.save()
                objs.append((p, post, body))
            thread.synchronize()
            thread.save()
        records.append((th, thread, objs))
        if ti % 50 == 0:
            print("seeded %d/%d threads (%.1fs)" % (ti, len(plan["threads"]), time.time() - t_start), flush=True)
    for cat in Category.objects.all_categories():
        cat.synchronize()
        cat.save()
    for user in User.objects.all():
        user.posts = Post.objects.filter(poster=user).count()
        user.threads = Thread.objects.filter(starter=user).count()
        user.save(update_fields=["posts", "threads"])
    invalidate_all_caches()

    threads = []
    for th, thread, objs in records:
        url = BASE_URL + thread.get_absolute_url()
        shown = misago_pages(len(objs))
        pages = [url] + ["%s%d/" % (url, k) for k in range(2, len(shown) + 1)]
        # /<page 1>/1/ redirects to the bare URL; post permalinks /t/<slug>/<id>/post/<pid>/ redirect to
        # the page of the post (the page where it is new, not the next page that repeats it on top)
        aliases = {url + "1/": url}
        posts = []
        for idx, (p, post, body) in enumerate(objs):
            on = [k for k, ids in enumerate(shown) if idx in ids]
            purl = pages[on[0]]
            aliases[BASE_URL + post.get_absolute_url()] = purl
            own_html = render(p["own_text"], post.poster) if p["quote"] else None
            posts.append(zoo.post_record(p, idx, body, post.parsed, purl, post.pk, edited=bool(p["edit"]),
                                         rendered_own_html=own_html,
                                         repeated_on_page_urls=[pages[k] for k in on[1:]]))
        threads.append(zoo.thread_record(th, url, pages, aliases, thread.title,
                                         BASE_URL + thread.category.get_absolute_url(), posts,
                                         topic_id=thread.pk, slug=thread.slug))

    u0 = users[plan["users"][0]["username"]]
    t0 = records[0][1]
    non_topic = [
        BASE_URL + "/",
        BASE_URL + reverse("misago:categories"),
        BASE_URL + t0.category.parent.get_absolute_url(),
        BASE_URL + t0.category.get_absolute_url(),
        BASE_URL + u0.get_absolute_url(),
        BASE_URL + reverse("misago:users"),
        BASE_URL + reverse("misago:login"),
        BASE_URL + reverse("misago:search"),
        BASE_URL + t0.get_last_post_url(),
        BASE_URL + t0.get_new_post_url(),
    ]
    meta = {
        "engine": "misago", "engine_version": "Misago 0.39.6 (Django 4.2, PostgreSQL 15)",
        "base_url": BASE_URL, "posts_per_page": PER_PAGE, "posts_per_page_orphans": ORPHANS,
        "pagination": "PostsPaginator: page k shows posts (k-1)*9+1 .. k*9+1 -- the last post of a page "
                      "is repeated as the first post of the next page (listed in the post's "
                      "repeated_on_page_urls; its page_url is the page where it is new); up to 4 trailing "
                      "posts stay on the last page instead of opening a new one",
        "first_post_is": "the thread's first post, rendered like every reply (li.post)",
        "body_format": "Misago markup (markdown + BBCode, nl2br); quotes are [quote=\"@user\"] -> "
                       "<aside class=\"quote-block\"><div class=\"quote-heading\">@user has written:</div>"
                       "<blockquote class=\"quote-body\">…</blockquote></aside>",
        "signatures": "none shown on the server-rendered thread page",
        "edit_marker": "none on the server-rendered page (edits counted in Post.edits)",
        "times": "<time itemprop=\"datePublished\" datetime=\"2023-03-12T14:05:00+00:00\">March 12, 2023, 2:05 "
                 "p.m.</time> inside the post permalink",
        "url_scheme": "/t/<slug>/<id>/, page N as /t/<slug>/<id>/N/ (path segment, no query); categories "
                      "/c/<slug>/<id>/; users /u/<slug>/<id>/",
        "url_aliases": "/t/<slug>/<id>/1/ (redirect to the bare URL); every post permalink "
                       "/t/<slug>/<id>/post/<pid>/ (302 to the page of the post + #post-<pid>)",
        "noise": ["React app takes over in browsers; the server HTML is complete for crawlers",
                  "JSON preload of the frontend state in a <script>", "avatar, username, post count",
                  "post permalinks (time link and 'link' icon)", "Last/new post goto links on lists"],
    }
    zoo.write_truth(HERE, meta, threads, non_topic, plan)
    print("done: %d threads, %d posts in %.1fs" % (len(threads), sum(len(t["posts"]) for t in threads),
                                                   time.time() - t_start))


if __name__ == "__main__":
    main()
