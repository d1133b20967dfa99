"""The canary's corpus: the jobs of its sources, and a prepare-fail row for each
requirement the index cannot resolve."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from .._exceptions import SapperError
from ..scan.corpus import Job
from .model import TargetRow

if TYPE_CHECKING:
    from ..scan.corpus import Item
    from .engine import CanaryOptions

__all__: list[str] = []


def _permanent(exc: BaseException) -> bool:
    """Whether fetching again cannot help (see :attr:`FetchError.permanent`)."""
    return bool(getattr(exc, "permanent", False))


def _resolve(
    sources: Sequence[str],
    top: int | None,
    options: CanaryOptions,
    *,
    items: Sequence[Item] | None = None,
) -> Iterator[Job | TargetRow]:
    """The jobs of the corpus (``items``: :func:`~sapper.scan.corpus.expand` of ``sources``
    and ``top``, when already known), and a prepare-fail row for each requirement that
    could not be resolved."""
    from ..pypi import DEFAULT_INDEX_URL, Index, default_cache_dir
    from ..scan._threads import DaemonPool
    from ..scan.corpus import expand, resolve

    if items is None:
        items = list(expand(sources, top=top))

    index = Index(
        options.index_url or DEFAULT_INDEX_URL, cache_dir=options.cache_dir or default_cache_dir()
    )

    def one(item: Any) -> list[Job] | TargetRow:
        if item.kind == "path":
            return [Job(target=item.text, path=item.text)]
        try:
            return resolve(index, item.text, options.versions)
        except SapperError as exc:
            return TargetRow(
                key=f"req:{item.text}",
                target=item.text,
                project=None,
                version=None,
                cls="prepare-fail",
                error=str(exc),
                permanent=_permanent(exc),
            )

    # daemon threads: after Ctrl-C, the exit does not wait for the look-ups in flight
    pool = DaemonPool(4, name="sapper-canary-resolve")
    futures = [pool.submit(one, item) for item in items]
    try:
        for future in futures:
            found = future.result()
            if isinstance(found, TargetRow):
                yield found
            else:
                yield from found
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
