"""Wrapper induction: one template per page cluster, fields read by aligning a page to it.

Seed 001 §2.5–2.6: the cluster's most central page (formula 5) is the initial template; the other
pages, largest first, are aligned to it with the tree mapping, every template node counts the
pages it was mapped in, unmatched nodes are inserted as optional nodes at the recorded positions,
and nodes seen in fewer than ⌈(n + 1)·λ⌉ pages are dropped. Text that differs between pages marks
content nodes. Seed 002 §2: a repeated group of sibling subtrees is one minimal repeated structure
(posts, replies, list rows); its members get a template of their own, the record template, whose
content nodes give each post's author, time and text. A new page fits a template when every
required node (seen in all learning pages) of the post list is mapped and at least
:data:`MIN_REQUIRED_SHARE` of the other required nodes; it is read with the best-fitting template.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import numpy as np

from forumcrawl.extractors.base import Estimator, not_fitted
from forumcrawl.extractors.dates import read_time
from forumcrawl.extractors.posts import own_text
from forumcrawl.extractors.text import normalise
from forumcrawl.extractors.tree_distance import TagNode, page_trees, similarity_matrix, stm_mapping
from forumcrawl.items import Post

if TYPE_CHECKING:
    from collections.abc import Sequence

    from lxml.html import HtmlElement

    from forumcrawl.document import Document

__all__ = [
    "PAGE_TYPES",
    "RULE_VERSION",
    "Template",
    "TemplateNode",
    "WrapperInducer",
    "WrapperResult",
    "extract_with_templates",
    "learn_templates",
    "template_stage",
]

RULE_VERSION = 1
PAGE_TYPES = ("thread", "list", "article", "other")
#: Records (posts, rows) sampled to build a record template: enough to see every optional part of
#: a post on the local forums, few enough that learning 100 pages stays within seconds.
MAX_RECORDS = 40
#: Share of a template's required nodes outside the post list a page must map to fit it. A sample
#: of 100 pages cannot show every block a site leaves out now and then: with 1.0, 173 of 473
#: machina thread pages fit no template. The post list's own required nodes stay mandatory: they are what a thread page is.
MIN_REQUIRED_SHARE = 0.9
#: Share of records a role node must be mapped in (a field present in most posts).
MIN_ROLE_COVERAGE = 0.6
#: Author names and post times are short; longer texts are bodies or headers.
MAX_FIELD_CHARS = 60
#: Mean body length (characters) from which a cluster without posts reads as an article.
MIN_ARTICLE_CHARS = 300
#: Inline and paragraph tags whose text belongs to the block around them (body-size measure).
FLOW_TAGS = frozenset(
    "a abbr b bdi bdo br cite code del dfn em font i img ins kbd mark p pre q s samp small span "
    "strike strong sub sup tt u var ul ol li".split()
)
_PROFILE_HREF = re.compile(r"user|member|profile|space|uid|author", re.IGNORECASE)
_DIGITS = re.compile(r"^[\d\s#.,:/+-]*$")


class TemplateNode(TagNode):
    """A template node: a tag plus what learning saw there (counts, text, role)."""

    __slots__ = ("count", "record", "required", "role", "seen")

    def __init__(self, label: str, children: list[TemplateNode] | None = None) -> None:
        super().__init__(label, list(children or []))
        #: Learning pages (or records) this node was mapped in.
        self.count = 1
        #: Mapped in every learning page: a page missing it does not fit the template.
        self.required = False
        #: ``title``, ``author``, ``time``, ``body`` or ``posts`` (the post list), else ``None``.
        self.role: str | None = None
        #: Template of the members of a repeated group, for the ``posts`` node.
        self.record: Template | None = None
        #: Page nodes mapped to this node while learning (not serialised).
        self.seen: list[TagNode] = []

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (learning-time state is not kept)."""
        data: dict[str, Any] = {"tag": self.label, "count": self.count}
        if self.required:
            data["required"] = True
        if self.role:
            data["role"] = self.role
        if self.record is not None:
            data["record"] = self.record.to_dict()
        if self.children:
            data["children"] = [c.to_dict() for c in self.children]  # type: ignore[attr-defined]
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TemplateNode:
        """Inverse of :meth:`to_dict`."""
        node = cls(str(data["tag"]), [cls.from_dict(c) for c in data.get("children", [])])
        node.count = int(data.get("count", 1))
        node.required = bool(data.get("required", False))
        node.role = data.get("role")
        if "record" in data:
            node.record = Template.from_dict(data["record"])
        return node


def _copy(node: TagNode) -> TemplateNode:
    copy = TemplateNode(node.label, [_copy(c) for c in node.children])
    copy.seen = [node]
    return copy


def _refresh(node: TagNode) -> None:
    for child in node.children:
        _refresh(child)
    node.refresh()


def _nodes(node: TemplateNode) -> list[TemplateNode]:
    return list(node.preorder())  # type: ignore[arg-type]


@dataclass
class Template:
    """One cluster's wrapper: the template tree, its page type and learning provenance."""

    root: TemplateNode
    n_pages: int
    page_type: str = "other"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"n_pages": self.n_pages, "page_type": self.page_type, "root": self.root.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Template:
        """Inverse of :meth:`to_dict`."""
        return cls(TemplateNode.from_dict(data["root"]), int(data["n_pages"]), data.get("page_type", "other"))

    def role_node(self, role: str) -> TemplateNode | None:
        """The node holding ``role``, if learning found one."""
        return next((n for n in _nodes(self.root) if n.role == role), None)


# ------------------------------------------------------------------------------ text measures


def _direct_text(element: HtmlElement | None) -> str:
    """Text directly inside ``element`` (its text and its children's tails), normalised."""
    if element is None:
        return ""
    parts = [element.text or "", *(c.tail or "" for c in element)]
    return " ".join(" ".join(parts).split())


def _full_text(element: HtmlElement | None) -> str:
    if element is None:
        return ""
    return " ".join(element.text_content().split())


def _flow_chars(element: HtmlElement) -> int:
    """Characters of text in ``element`` outside nested blocks (how much of a body it holds)."""
    total = len((element.text or "").strip())
    for child in element:
        if isinstance(child.tag, str) and child.tag in FLOW_TAGS:
            total += _flow_chars(child)
        total += len((child.tail or "").strip())
    return total


# ------------------------------------------------------------------------------- learning


def _central(trees: Sequence[TagNode]) -> int:
    """Index of the page with the least mean distance 1 − es to the others (formula 5).

    Formula 5 as printed maximises the mean distance, which picks the least typical page; the
    text asks for the page with "the maximum potential template nodes", the most central one.
    """
    if len(trees) < 3:
        return int(np.argmax([t.size for t in trees]))
    sim = similarity_matrix(trees, method="stm")
    return int(np.argmax(sim.sum(axis=1)))


def _align(template: TemplateNode, page: TagNode) -> None:
    """Map ``page`` onto ``template``: count mapped nodes, insert unmatched ones as optional."""
    pairs = stm_mapping(template, page)
    to_template = {id(p): t for t, p in pairs}
    for t, p in pairs:
        t.count += 1  # type: ignore[attr-defined]
        t.seen.append(p)  # type: ignore[attr-defined]
    for t, p in pairs:
        position = -1
        for child in p.children:
            mapped = to_template.get(id(child))
            if mapped is not None:
                position = next(i for i, c in enumerate(t.children) if c is mapped)
            else:
                position += 1
                t.children.insert(position, _copy(child))
    _refresh(template)


def _prune(node: TemplateNode, min_count: int, n_pages: int) -> None:
    node.children = [c for c in node.children if c.count >= min_count]  # type: ignore[attr-defined]
    node.required = node.count >= n_pages
    for child in node.children:
        _prune(child, min_count, n_pages)  # type: ignore[arg-type]


def generate_template(trees: Sequence[TagNode], lam: float) -> TemplateNode:
    """``generateTemplate(pageSet, λ)`` of seed 001 §2.5.2 on collapsed tag trees."""
    start = _central(trees)
    template = _copy(trees[start])
    rest = sorted((t for i, t in enumerate(trees) if i != start), key=lambda t: -t.size)
    for page in rest:
        _align(template, page)
    _prune(template, math.ceil(len(trees) * lam), len(trees))
    _refresh(template)
    return template


def _varies(values: list[str]) -> bool:
    return len({v for v in values if v}) > 1


def _tree_distance(a: TemplateNode, b: TemplateNode, parents: dict[int, TemplateNode]) -> int:
    """Edges between two template nodes (how near a field is to the body)."""
    path: dict[int, int] = {}
    node: TemplateNode | None = a
    depth = 0
    while node is not None:
        path[id(node)] = depth
        node, depth = parents.get(id(node)), depth + 1
    node, depth = b, 0
    while node is not None and id(node) not in path:
        node, depth = parents.get(id(node)), depth + 1
    return depth + path[id(node)] if node is not None else 10**6


def _assign_fields(root: TemplateNode, n: int, *, headline: bool) -> dict[str, TemplateNode]:
    """Give the body, time and author roles to the content nodes of a (record) template."""
    nodes = _nodes(root)
    parents = {id(c): p for p in nodes for c in p.children}  # type: ignore[misc]
    stats = []
    for node in nodes:
        elements = [s.element for s in node.seen if s.element is not None]
        if node.count < MIN_ROLE_COVERAGE * n or not elements:
            continue
        full = [_full_text(e) for e in elements]
        stats.append((node, elements, full))
    roles: dict[str, TemplateNode] = {}
    bodies = [
        (float(np.mean([_flow_chars(e) for e in els])), node)
        for node, els, full in stats
        if _varies(full) and node is not root
    ]
    if not bodies:
        return roles
    body_chars, body = max(bodies, key=lambda b: b[0])
    if headline and body_chars < MIN_ARTICLE_CHARS:
        return roles
    roles["body"] = body
    inside_body = {id(n) for n in body.preorder()}
    times = []
    for node, els, full in stats:
        if id(node) in inside_body or not full:
            continue
        short = [t for t in full if t and len(t) <= MAX_FIELD_CHARS + 20]
        hits = sum(read_time(t, now=datetime(2000, 1, 1)) is not None for t in short)
        if short and hits >= 0.8 * len(full) and _varies(full):
            times.append((_tree_distance(node, body, parents), -len(set(full)), node))
    if times:
        roles["time"] = min(times, key=lambda t: t[:2])[2]
    authors = []
    for order, (node, els, full) in enumerate(stats):
        if id(node) in inside_body or node is roles.get("time") or node is root:
            continue
        direct = [_direct_text(e) or f for e, f in zip(els, full)]
        if not direct or not all(0 < len(t) <= MAX_FIELD_CHARS for t in direct):
            continue
        if any(_DIGITS.match(t) for t in direct) or not _varies(direct):
            continue
        if any(read_time(t, now=datetime(2000, 1, 1)) for t in direct):
            continue
        is_link = all(e.tag == "a" for e in els)
        profile = is_link and all(_PROFILE_HREF.search(e.get("href") or "") for e in els)
        authors.append((-(2 * profile + is_link), order, node))
    if authors:
        roles["author"] = min(authors, key=lambda a: a[:2])[2]
    return roles


def _record_template(members: list[TagNode], lam: float) -> Template:
    sample = members[:MAX_RECORDS]
    root = generate_template(sample, lam)
    record = Template(root, len(sample))
    for role, node in _assign_fields(root, len(sample), headline=False).items():
        node.role = role
    return record


def _mean_members_chars(node: TemplateNode) -> float:
    per_page = [sum(len(_full_text(m.element)) for m in s.members) for s in node.seen]
    return float(np.mean(per_page)) if per_page else 0.0


def _title_node(root: TemplateNode, n_pages: int, skip: set[int]) -> TemplateNode | None:
    """The page-level content node whose text is part of the page's ``<title>`` (longest)."""
    best: tuple[float, TemplateNode] | None = None
    for node in _nodes(root):
        if id(node) in skip or node.label in {"title", "head", "html", "body"} or node.count < MIN_ROLE_COVERAGE * n_pages:
            continue
        texts, hits = [], 0
        for seen in node.seen:
            text = _full_text(seen.element)
            doc_title = _full_text(seen.element.getroottree().find(".//title")) if seen.element is not None else ""
            texts.append(text)
            hits += bool(text) and len(text) >= 2 and text in doc_title
        if not _varies(texts) or hits < 0.8 * len(texts):
            continue
        score = float(np.mean([len(t) for t in texts]))
        if best is None or score > best[0]:
            best = (score, node)
    return best[1] if best else None


def induce(trees: Sequence[TagNode], lam: float) -> Template:
    """A page template with roles and page type from the collapsed trees of one cluster."""
    n = len(trees)
    root = generate_template(trees, lam)
    template = Template(root, n)
    repeated = [
        node
        for node in _nodes(root)
        if node.count >= MIN_ROLE_COVERAGE * n and any(len(s.members) > 1 for s in node.seen)
    ]
    post_list = max(repeated, key=_mean_members_chars, default=None)
    skip: set[int] = set()
    if post_list is not None:
        members = [m for s in post_list.seen for m in s.members]
        record = _record_template(members, lam)
        post_list.record = record
        post_list.role = "posts"
        skip = {id(x) for x in post_list.preorder()}
        fields = {n.role for n in _nodes(record.root) if n.role}
        if "body" in fields and fields & {"author", "time"}:
            template.page_type = "thread"
        elif np.mean([len(s.members) for s in post_list.seen]) >= 3:
            template.page_type = "list"
    if template.page_type == "other":
        roles = _assign_fields(root, n, headline=True)
        if "body" in roles:
            template.page_type = "article"
            for role, node in roles.items():
                node.role = role
            skip |= {id(x) for x in roles["body"].preorder()}
    title = _title_node(root, n, skip)
    if title is not None:
        title.role = "title"
    return template


# ------------------------------------------------------------------------------ extraction


@dataclass
class WrapperResult:
    """Fields read from one page through a template."""

    page_type: str
    #: es between the page and the template's tree (restricted mapping, formula 2).
    similarity: float
    title: str | None = None
    posts: list[Post] = field(default_factory=list)
    #: Article fields (threads carry theirs in ``posts``).
    author: str | None = None
    published: str | None = None
    published_raw: str | None = None
    text: str = ""
    template_index: int | None = None


def _fits(template: Template, mapped: dict[int, TagNode]) -> bool:
    """Every required node of the post list mapped, and ``MIN_REQUIRED_SHARE`` of the others."""
    posts = template.role_node("posts")
    in_posts = {id(n) for n in posts.preorder()} if posts is not None else set()
    missing = total = 0
    for node in _nodes(template.root):
        if not node.required:
            continue
        if id(node) in in_posts:
            if id(node) not in mapped:
                return False
            continue
        total += 1
        missing += id(node) not in mapped
    return missing <= (1.0 - MIN_REQUIRED_SHARE) * total


def _match(template: Template, page: TagNode) -> tuple[float, dict[int, TagNode]] | None:
    pairs = stm_mapping(template.root, page)
    mapped = {id(t): p for t, p in pairs}
    if not pairs or not _fits(template, mapped):
        return None
    return 2 * len(pairs) / (template.root.size + page.size), mapped


def _fields(template: Template, mapped: dict[int, TagNode], now: datetime) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for node in _nodes(template.root):
        page_node = mapped.get(id(node))
        if node.role is None or page_node is None or page_node.element is None:
            continue
        element = page_node.element
        if node.role == "body":
            out["text"] = own_text(element)
        elif node.role == "time":
            found = read_time(_full_text(element), now=now)
            if found:
                out["published_raw"], out["published"] = found
        elif node.role == "author":
            out["author"] = _direct_text(element) or _full_text(element)
        elif node.role == "title":
            out["title"] = normalise(_full_text(element)) or None
        elif node.role == "posts" and node.record is not None:
            out["posts"] = [
                post for m in page_node.members if (post := _read_post(node.record, m, now)) is not None
            ]
    return out


def _read_post(record: Template, member: TagNode, now: datetime) -> Post | None:
    pairs = stm_mapping(record.root, member)
    if not pairs:
        return None
    got = _fields(record, {id(t): p for t, p in pairs}, now)
    if not got.get("text"):
        return None
    return Post(
        author=got.get("author"),
        published=got.get("published"),
        published_raw=got.get("published_raw"),
        text=got["text"],
    )


def _read(templates: Sequence[Template], document: Document | TagNode, now: datetime | None) -> WrapperResult | None:
    page = page_trees([document], classes=True)[0]
    best: tuple[float, int, dict[int, TagNode]] | None = None
    for index, template in enumerate(templates):
        found = _match(template, page)
        if found is not None and (best is None or found[0] > best[0]):
            best = (found[0], index, found[1])
    if best is None:
        return None
    similarity, index, mapped = best
    template = templates[index]
    got = _fields(template, mapped, now or datetime.now(timezone.utc))
    result = WrapperResult(
        page_type=template.page_type,
        similarity=similarity,
        title=got.get("title"),
        posts=[Post(floor=i, author=p.author, published=p.published, published_raw=p.published_raw, text=p.text)
               for i, p in enumerate(got.get("posts", []), start=1)],
        author=got.get("author"),
        published=got.get("published"),
        published_raw=got.get("published_raw"),
        text=got.get("text", ""),
        template_index=index,
    )
    if result.posts and not result.text:
        result.text = "\n\n".join(p.text for p in result.posts)
    return result


class WrapperInducer(Estimator):
    """Learns the wrapper of one page cluster and reads pages with it (seed 001 §2.5–2.6).

    Parameters
    ----------
    lam : float, default=0.5
        λ of ``generateTemplate``: a node is kept when mapped in at least ⌈(n + 1)·λ⌉ of the
        n + 1 learning pages.

    Attributes
    ----------
    template_ : Template
        The template tree with required nodes, roles and the record template of the post list.
    page_type_ : str
        ``"thread"``, ``"list"``, ``"article"`` or ``"other"``.

    References
    ----------
    Seed 001 §2.5–2.6 (template generation, data extraction); seed 002 §2 (repeated items).
    """

    def __init__(self, lam: float = 0.5) -> None:
        self.lam = lam

    def fit(self, X: Sequence[Document | TagNode], y: Any = None) -> WrapperInducer:
        """Build the template from the pages of one cluster; ``y`` is ignored."""
        if not isinstance(self.lam, (int, float)) or not 0.0 < self.lam <= 1.0:
            raise ValueError(f"lam must be a number in (0, 1], got {self.lam!r}")
        if len(X) < 2:
            raise ValueError("a template needs at least 2 pages (content is what differs)")
        self.template_ = induce(page_trees(X, classes=True), self.lam)
        self.page_type_ = self.template_.page_type
        return self

    def extract(self, document: Document, *, now: datetime | None = None) -> WrapperResult | None:
        """The page's fields, or ``None`` when the page does not fit the template."""
        if not hasattr(self, "template_"):
            raise not_fitted("WrapperInducer is not fitted yet; call fit first")
        return _read([self.template_], document, now)

    def to_dict(self) -> dict[str, Any]:
        """The fitted template as JSON-ready data."""
        if not hasattr(self, "template_"):
            raise not_fitted("WrapperInducer is not fitted yet; call fit first")
        return {"lam": self.lam, "template": self.template_.to_dict()}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> WrapperInducer:
        """Inverse of :meth:`to_dict`."""
        inducer = cls(lam=data["lam"])
        inducer.template_ = Template.from_dict(data["template"])
        inducer.page_type_ = inducer.template_.page_type
        return inducer


# --------------------------------------------------------------------------------- wiring


def learn_templates(
    documents: Sequence[Document],
    *,
    lam: float = 0.5,
    omega_g: float = 0.9,
    omega_e: float = 0.8,
    min_pages: int = 2,
) -> dict[str, Any]:
    """Cluster a site's sample and induce one template per cluster: the ``template`` site rule.

    Clusters with fewer than ``min_pages`` pages get no template (one page shows no content).
    The result is JSON-ready; ``cluster_of`` gives each sample page's cluster (-1 for none) and
    ``page_types`` each cluster's type, for USC to pick its topic cluster.
    """
    # Learning only: scikit-learn and SciPy load here, not when a page is read with templates.
    from forumcrawl.extractors.page_clustering import TemplateClustering

    docs = [d for d in documents if d.tree is not None]
    trees = page_trees(docs, classes=True)
    if len(docs) < min_pages:
        return {"version": RULE_VERSION, "rule_id": None, "templates": [], "cluster_of": {}}
    sim = similarity_matrix(trees, method="stm")
    labels = TemplateClustering(omega_g=omega_g, omega_e=omega_e).fit(1.0 - sim).labels_
    templates: list[dict[str, Any]] = []
    cluster_of: dict[str, int] = {}
    for k in range(int(labels.max()) + 1):
        members = np.flatnonzero(labels == k)
        if len(members) < min_pages:
            continue
        template = induce([trees[i] for i in members], lam)
        for i in members:
            cluster_of[docs[i].url] = len(templates)
        templates.append(template.to_dict())
    body = json.dumps(templates, sort_keys=True, ensure_ascii=False)
    return {
        "version": RULE_VERSION,
        "rule_id": "template-" + hashlib.sha1(body.encode()).hexdigest()[:12],
        "lam": lam,
        "omega_g": omega_g,
        "omega_e": omega_e,
        "templates": templates,
        "page_types": [t["page_type"] for t in templates],
        "cluster_of": cluster_of,
    }


_PARSED: dict[str, list[Template]] = {}
_PARSED_MAX = 64


def _templates(rule: dict[str, Any]) -> list[Template]:
    """Template objects of a rule, parsed once per rule id (rules are applied to every page)."""
    key = str(rule.get("rule_id"))
    parsed = _PARSED.get(key)
    if parsed is None:
        parsed = [Template.from_dict(t) for t in rule.get("templates", [])]
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = parsed
    return parsed


def extract_with_templates(
    rule: dict[str, Any], document: Document, *, now: datetime | None = None
) -> WrapperResult | None:
    """Read ``document`` with the best-fitting template of a :func:`learn_templates` rule."""
    if document.tree is None or not rule.get("templates"):
        return None
    return _read(_templates(rule), document, now)


def template_stage(rule: dict[str, Any], doc: Document, now: datetime) -> tuple[str, list[Post]] | None:
    """The cascade's ``template`` stage: ``(text, posts)`` of a thread or article page, else ``None``."""
    result = extract_with_templates(rule, doc, now=now)
    if result is None or result.page_type not in {"thread", "article"}:
        return None
    if result.page_type == "thread" and not result.posts:
        return None
    if result.page_type == "article":
        post = Post(floor=1, author=result.author, published=result.published,
                    published_raw=result.published_raw, text=result.text)
        return (result.text, [post]) if result.text else None
    return result.text, result.posts
