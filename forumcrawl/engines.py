"""Run offline extraction on a Dask cluster: seed 000's MapReduce, on an existing engine.

Extraction is a pure map over pages (§3.1: the whole algorithm on every map node, the reduce only
collects). :func:`run_dask` maps exactly the per-page functions of the local run
(:mod:`forumcrawl.offline` for page files, :func:`forumcrawl.warc.extract_warc_record` for WARC
records) over a Dask cluster, so its records are the multiprocess run's, in the same order.

Work is sent in batches, with at most a few batches per worker in flight, and results are
yielded in input order as they arrive: memory stays flat however many pages there are. On a
remote cluster (``scheduler="tcp://host:8786"``) the workers read the files themselves, so the
paths must be visible to them (a shared file system) and forumcrawl installed on them.

Needs ``dask[distributed]`` (imported on first use).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from forumcrawl.offline import (
    BATCH_SIZE,
    IN_FLIGHT_PER_WORKER,
    ExtractOptions,
    extract_batch,
    iter_jobs,
    job_batches,
    stream_batches,
)
from forumcrawl.pages import STAGES

__all__ = ["run_dask"]


def run_dask(
    paths: Sequence[str | Path],
    options: ExtractOptions = ExtractOptions(),  # noqa: B008  (frozen, so safe as a default)
    *,
    scheduler: str | None = None,
    n_workers: int = 2,
    now: datetime | None = None,
    batch_size: int = BATCH_SIZE,
) -> Iterator[dict[str, Any]]:
    """Records for every page under ``paths`` in input order, extracted on a Dask cluster.

    Parameters
    ----------
    paths : page files (``.html``, ``.html.gz`` …), WARC files, or folders of them.
    options : as for :func:`forumcrawl.offline.extract_paths`.
    scheduler : address of a running scheduler (``"tcp://10.0.0.5:8786"``); ``None`` starts a
        local cluster of ``n_workers`` single-threaded worker processes for this run.
    n_workers : workers of the local cluster (ignored with ``scheduler``).
    now : the clock for relative dates; pass the same one for runs that must compare equal.
    batch_size : pages per task.
    """
    try:
        from distributed import Client, LocalCluster
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise RuntimeError("the dask engine needs dask.distributed: pip install 'dask[distributed]'") from exc
    unknown = [s for s in options.cascade if s not in STAGES]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; known: {sorted(STAGES)}")
    if n_workers < 1 or batch_size < 1:
        raise ValueError("n_workers and batch_size must be at least 1")
    now = now or datetime.now(timezone.utc)
    jobs = iter_jobs(paths, options, now)
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None
        )
        client = Client(cluster)
    else:
        cluster = None
        client = Client(scheduler)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})) or n_workers)
        yield from stream_batches(
            lambda batch: client.submit(extract_batch, batch, pure=False),
            job_batches(jobs, batch_size),
            workers * IN_FLIGHT_PER_WORKER,
        )
    finally:
        client.close()
        if cluster is not None:
            cluster.close()

