"""USC structure vectors and dissimilarity (seed 003 §3.1.1): the paper's worked examples first."""

from __future__ import annotations

import math

import numpy as np
import pytest

from forumcrawl.extractors.usc import (
    Layout,
    Vocabulary,
    block_type,
    distance_table,
    first_difference,
    split_url,
    structure_vector,
    structure_vectors,
    usc_dissimilarity,
    usc_distance,
    usc_distance_matrix,
)

PAPER_URLS = [
    "http://example.com/query.php?id=001&grade=100",
    "http://example.com/query.php?id=001&grade=99",
    "http://example.com/query.php?id=002&grade=100",
    "http://example.com/query.php?id=002&grade=99",
    "http://example.com/query.php?id=003",
]
# §3.1.1, after Tables 1 and 2 (the paper prints the value "Query" capitalised; the URL has
# "query", and value 1 is that block either way).
PAPER_VECTORS = [
    ((1, 1), (1, 2), (1, 3), (2, 4), (1, 5), (2, 6)),
    ((1, 1), (1, 2), (1, 3), (2, 4), (1, 5), (2, 7)),
    ((1, 1), (1, 2), (1, 3), (2, 8), (1, 5), (2, 6)),
    ((1, 1), (1, 2), (1, 3), (2, 8), (1, 5), (2, 7)),
    ((1, 1), (1, 2), (1, 3), (2, 9), (0, 0), (0, 0)),
]
# Definition 2's example.
S1 = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5)]
S2 = [(1, 1), (1, 2), (1, 3), (1, 1), (1, 2)]
S3 = [(1, 1), (2, 2), (1, 3), (1, 4), (1, 5)]


@pytest.mark.parametrize("align", ["segments", "flat"])
def test_paper_structure_vectors(align: str) -> None:
    vectors = structure_vectors(PAPER_URLS, align=align)
    assert [vectors.row(i) for i in range(5)] == PAPER_VECTORS
    assert vectors.n_blocks == 6
    assert vectors.vocabulary.types == {"": 0, "letters": 1, "digits": 2}
    assert vectors.vocabulary.values == {
        "": 0, "query": 1, "php": 2, "id": 3, "001": 4, "grade": 5, "100": 6, "99": 7,
        "002": 8, "003": 9,
    }


def test_paper_dissimilarity() -> None:
    assert first_difference(S1, S2) == 4
    assert usc_dissimilarity(S1, S2) == 5
    assert first_difference(S1, S3) == 2
    assert usc_dissimilarity(S1, S3) == 60
    assert usc_dissimilarity(S1, S1) == 0
    assert first_difference(S1, S1) is None


def test_dissimilarity_on_the_query_urls() -> None:
    v = PAPER_VECTORS
    # u1/u2 differ in the last block: 6!/6! = 1; u1/u3 in the 4th: 6!/4! = 30; u5 from u1 too.
    assert usc_dissimilarity(v[0], v[1]) == 1
    assert usc_dissimilarity(v[0], v[2]) == 30
    assert usc_dissimilarity(v[0], v[4]) == 30
    d = usc_distance_matrix(PAPER_URLS, scaling="log")
    assert np.allclose(np.expm1(d), [[usc_dissimilarity(a, b) for b in v] for a in v])


def test_padding_to_n() -> None:
    short = [(1, 1)]
    long = [(1, 1), (0, 0), (0, 0)]
    assert first_difference(short, long) is None  # padding is the empty block
    assert usc_dissimilarity(short, [(1, 1), (1, 2)], n=4) == 4 * 3  # 4!/2!
    with pytest.raises(ValueError, match="shorter"):
        usc_dissimilarity(S1, S2, n=3)


def test_exact_for_large_n_and_order_kept() -> None:
    n = 400  # 400! has 869 digits: far past float range
    a = [(1, i) for i in range(1, n + 1)]
    exact = [usc_dissimilarity(a, a[: k - 1] + [(2, 0)] + a[k:], n) for k in (1, 2, 200, 399, 400)]
    assert exact[0] == math.factorial(400)
    assert exact[-1] == 1
    assert exact == sorted(exact, reverse=True)
    table = distance_table(n, "log")
    assert np.isfinite(table).all()
    assert (np.diff(table) < 0).all()  # strictly decreasing with the common prefix: order kept
    assert table[-1] == 0.0 and table[-2] == pytest.approx(math.log(2))
    assert table[0] == pytest.approx(math.lgamma(n + 1), rel=1e-12)


def test_normalised_scaling_keeps_exp_informative() -> None:
    """exp(−D) is 0.0 for every D ≥ 746; the normalised log distance keeps exp(−d) in [1/e, 1]."""
    n = 300
    table = distance_table(n)
    assert table[0] == 1.0 and table[-1] == 0.0
    assert (np.exp(-table) >= math.exp(-1) - 1e-12).all()
    assert len(set(np.exp(-table).round(12))) == n + 1  # every level stays distinct
    raw = [float(math.factorial(n) // math.factorial(k)) if k > 170 else math.inf for k in range(1, n)]
    assert all(math.exp(-min(d, 1e6)) == 0.0 for d in raw[:100])


def test_distance_matrix_matches_pairwise() -> None:
    urls = [
        "http://f.example/forum/a-1/topic/x-2/",
        "http://f.example/forum/a-1/topic/x-2/?page=2",
        "http://f.example/forum/a-1/topic/y-3/",
        "http://f.example/forum/b-4/topic/z-5/",
        "http://f.example/member/profile/7/",
        "http://f.example/",
        "http://f.example/forum/a-1/topic/x-2/",
    ]
    sv = structure_vectors(urls)
    d = usc_distance_matrix(sv)
    n = sv.n_blocks
    expected = np.array([[usc_distance(sv.row(i), sv.row(j), n) for j in range(7)] for i in range(7)])
    assert np.allclose(d, expected)
    assert np.allclose(d, d.T)
    assert d[0, 6] == 0.0  # identical URLs
    assert d[0, 1] < d[0, 2] < d[0, 3] < d[0, 4]
    assert usc_distance_matrix(urls[:1]).shape == (1, 1)


def test_segments_alignment_keeps_words_in_place() -> None:
    urls = ["http://f.example/t/a-b-c/7", "http://f.example/t/a/8"]
    segments = structure_vectors(urls)
    flat = structure_vectors(urls, align="flat")
    assert segments.layout == Layout(path=(1, 3, 1))
    # Aligned, the ids sit at the same position; flat, the longer slug pushes them apart.
    assert segments.row(0)[4][0] == segments.row(1)[4][0] == segments.vocabulary.types["digits"]
    assert flat.row(1)[2][0] == flat.vocabulary.types["digits"]
    assert flat.row(0)[2][0] == flat.vocabulary.types["letters"]


def test_structure_vector_numbers_into_a_vocabulary() -> None:
    vocabulary = Vocabulary()
    first = structure_vector(PAPER_URLS[0], vocabulary=vocabulary)
    second = structure_vector(PAPER_URLS[4], vocabulary=vocabulary)
    assert first == PAPER_VECTORS[0]
    assert second == ((1, 1), (1, 2), (1, 3), (2, 7))  # unpadded without a layout
    padded = structure_vector(PAPER_URLS[4], vocabulary=vocabulary, layout=Layout(flat=6))
    assert padded == ((1, 1), (1, 2), (1, 3), (2, 7), (0, 0), (0, 0))
    with pytest.raises(ValueError, match="does not fit"):
        structure_vector(PAPER_URLS[0], vocabulary=vocabulary, layout=Layout(flat=3))


@pytest.mark.parametrize(
    ("block", "kind"),
    [("", ""), ("php", "letters"), ("001", "digits"), ("mp3", "alnum"), ("软件包", "text"),
     ("über", "text"), ("a b", "other"), ("page=1", "other")],
)
def test_block_types(block: str, kind: str) -> None:
    assert block_type(block) == kind


def test_percent_encoded_and_non_ascii_paths_are_the_same_blocks() -> None:
    encoded = split_url("http://f.example/forum/help-%E6%B1%82%E5%8A%A9-8/")
    raw = split_url("http://f.example/forum/help-求助-8/")
    assert encoded == raw
    assert encoded.blocks() == ("forum", "help", "求助", "8", "")
    # An encoded separator stays inside its block.
    assert split_url("http://f.example/a?extra=page%3D2").blocks() == ("a", "extra", "page=2")
    assert split_url("http://f.example/%ZZ").blocks() == ("%ZZ",)


def test_query_only_empty_path_and_fragment() -> None:
    assert split_url("http://f.example?p=1") == split_url("http://f.example/?p=1")
    assert split_url("http://f.example/?p=1").blocks() == ("", "p", "1")
    assert split_url("http://f.example").blocks() == ("",)
    assert split_url("http://f.example/a#frag").blocks() == ("a",)
    vectors = structure_vectors(["http://f.example", "http://f.example/?p=1"])
    assert vectors.row(0) == ((0, 0), (0, 0), (0, 0))


def test_identical_urls_have_distance_zero() -> None:
    d = usc_distance_matrix(["http://f.example/a/1", "http://f.example/a/1"])
    assert d.tolist() == [[0.0, 0.0], [0.0, 0.0]]


def test_session_ids_can_be_left_out() -> None:
    url = "http://f.example/viewtopic.php?f=1&sid=0e26c5b6c7cd9b067a6a5dc32896eebb&t=5"
    assert "sid" in split_url(url).blocks()
    assert split_url(url, drop_sessions=True).blocks() == ("viewtopic", "php", "f", "1", "t", "5")
    jsession = "http://f.example/a;jsessionid=ABC123?x=1"
    assert split_url(jsession, drop_sessions=True).blocks() == ("a", "x", "1")


@pytest.mark.parametrize(
    "bad", ["not a url", "/relative/path", "ftp://f.example/a", "http://", "mailto:x@y.z", "http://[::1"]
)
def test_bad_input_is_rejected(bad: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        split_url(bad)
    with pytest.raises(ValueError):
        structure_vectors(["http://f.example/a", bad])


def test_another_host_is_rejected_when_the_site_is_fixed() -> None:
    urls = ["http://f.example/a", "http://other.example/a"]
    with pytest.raises(ValueError, match="another site"):
        structure_vectors(urls, site="f.example")
    with pytest.raises(ValueError, match="another site"):
        split_url("http://f.example:8080/a", site="f.example")
    assert structure_vectors(urls).n_blocks == 1  # without a site the host is ignored (paper)


def test_type_errors() -> None:
    with pytest.raises(TypeError):
        split_url(b"http://f.example/")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        structure_vectors("http://f.example/")


def test_distance_properties_on_random_urls() -> None:
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")
    word = st.sampled_from(["a", "b", "topic", "12", "7", "x9", "软件", ""])
    sep = st.sampled_from(["/", "-", ".", "_"])
    path = st.lists(st.tuples(sep, word), min_size=0, max_size=6).map(
        lambda parts: "".join(s + w for s, w in parts)
    )
    query = st.lists(st.tuples(word, word), max_size=3).map(
        lambda kv: "&".join(f"{k}={v}" for k, v in kv)
    )
    url = st.tuples(path, query).map(lambda pq: f"http://f.example/{pq[0]}" + (f"?{pq[1]}" if pq[1] else ""))

    @hypothesis.given(st.lists(url, min_size=1, max_size=8))
    @hypothesis.settings(max_examples=60, deadline=None)
    def check(urls: list[str]) -> None:
        d = usc_distance_matrix(urls)
        assert np.allclose(d, d.T)
        assert (np.diag(d) == 0).all()
        assert ((d >= 0) & (d <= 1)).all()
        sv = structure_vectors(urls)
        for i in range(len(urls)):
            for j in range(len(urls)):
                same = sv.row(i) == sv.row(j)
                assert (d[i, j] == 0) == same

    check()
