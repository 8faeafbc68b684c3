"""First-character analysis of a regex, for tests that guard a cheap prefilter in front of it."""

from __future__ import annotations


def first_items(items: list, constants: object) -> tuple[list, bool]:
    """The parsed-regex items that can match a pattern's first character, and whether it can
    match the empty string (a tiny FIRST-set walk over ``re._parser`` output)."""
    c = constants
    found: list = []
    for op, av in items:
        if op in (c.LITERAL, c.IN, c.CATEGORY, c.NOT_LITERAL, c.ANY):
            return [*found, (op, av)], False
        if op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            continue
        if op is c.SUBPATTERN:
            sub, nullable = first_items(av[3].data, c)
        elif op is c.BRANCH:
            subs = [first_items(alt.data, c) for alt in av[1]]
            sub, nullable = [i for s, _ in subs for i in s], any(n for _, n in subs)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            sub, nullable = first_items(av[2].data, c)
            nullable = nullable or av[0] == 0
        else:
            raise AssertionError(f"unexpected regex op {op}")
        found += sub
        if not nullable:
            return found, False
    return found, True



def _key(op: object, av: object) -> tuple:
    return (op, tuple(av) if isinstance(av, list) else av)


def prefixes(items: list, constants: object, k: int = 2) -> set[tuple]:
    """The tuples of (at most ``k``) character items a sequence of parsed-regex items can begin
    with; a tuple shorter than ``k`` means the sequence can end after it. Zero-width items
    (anchors, look-arounds) are skipped, which only makes the set larger."""
    c = constants
    result: set[tuple] = {()}
    for op, av in items:
        if op in (c.LITERAL, c.IN, c.CATEGORY, c.NOT_LITERAL, c.ANY):
            own = {(_key(op, av),)}
        elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
            own = {()}
        elif op is c.SUBPATTERN:
            own = prefixes(av[3].data, c, k)
        elif op is c.BRANCH:
            own = set().union(*(prefixes(alt.data, c, k) for alt in av[1]))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT):
            low, high, sub = av
            once = prefixes(sub.data, c, k)
            own, run = set(), {()}
            for count in range(min(high, low + k) + 1):
                if count >= low:
                    own |= run
                run = {(p + q)[:k] for p in run for q in once} if run else run
        else:
            raise AssertionError(f"unexpected regex op {op}")
        result = {p if len(p) >= k else (p + q)[:k] for p in result for q in own}
    return result
