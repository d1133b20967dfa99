"""Where a scan's time went: per stage (download, analysis, store) the bytes, the wall and
busy seconds, and which resource bound the run (see docs/scan.md, "Stages").

The rule: a stage's *occupancy* is its busy seconds over what its slots could have done in
the scan's wall time, ``busy / (slots * wall)`` (download threads for the network, worker
processes for the CPU, the store's one writer for the disk). The run was bound by the
resource of the stage with the highest occupancy, when that is at least
:data:`BOUND_THRESHOLD`; below it no stage kept its slots busy (start-up, latency, a corpus
too small) and the report says ``none``.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Literal

__all__ = ["BOUND_THRESHOLD", "Resource", "Stage", "StageClock", "StageReport", "bound_of"]

Resource = Literal["network", "cpu", "disk"]
StageName = Literal["download", "analysis", "store"]

#: The occupancy a stage needs for the run to be called bound by its resource.
BOUND_THRESHOLD = 0.5


@dataclass(frozen=True, slots=True, kw_only=True)
class Stage:
    """What one stage did during a scan."""

    name: StageName
    resource: Resource
    #: Pieces of work done: sdists downloaded (from the index, not the cache) or analysed,
    #: batches written.
    items: int
    #: Bytes downloaded, archive bytes analysed, bytes the store grew by.
    bytes: int
    #: Seconds from the stage's first piece of work starting to its last ending.
    wall: float
    #: Seconds of work, summed over the slots.
    busy: float
    #: Pieces of work the stage can do at once.
    slots: int
    #: download: the most sdists downloaded (or downloading) ahead of the analysis at once.
    peak_ahead: int = 0

    def occupancy(self, wall: float) -> float:
        """The fraction of the stage's capacity used over ``wall`` seconds."""
        if wall <= 0 or self.slots <= 0:
            return 0.0
        return self.busy / (self.slots * wall)

    def as_dict(self, wall: float) -> dict[str, object]:
        return {
            "name": self.name,
            "resource": self.resource,
            "items": self.items,
            "bytes": self.bytes,
            "wall_seconds": round(self.wall, 3),
            "busy_seconds": round(self.busy, 3),
            "slots": self.slots,
            "occupancy": round(self.occupancy(wall), 3),
            "peak_ahead": self.peak_ahead,
        }


def bound_of(stages: tuple[Stage, ...], wall: float) -> Resource | None:
    """The resource that bound a run of ``wall`` seconds (the rule in the module's doc)."""
    busiest = max(stages, key=lambda stage: stage.occupancy(wall), default=None)
    if busiest is None or busiest.occupancy(wall) < BOUND_THRESHOLD:
        return None
    return busiest.resource


@dataclass(frozen=True, slots=True, kw_only=True)
class StageReport:
    """The stages of one scan; ``wall`` is the scan phase's (resolution excluded)."""

    wall: float
    stages: tuple[Stage, ...]

    @property
    def bound(self) -> Resource | None:
        return bound_of(self.stages, self.wall)

    def as_dict(self) -> dict[str, object]:
        return {
            "wall_seconds": round(self.wall, 3),
            "bound": self.bound or "none",
            "threshold": BOUND_THRESHOLD,
            "stages": [stage.as_dict(self.wall) for stage in self.stages],
        }


class StageClock:
    """Counts one stage's work as it happens; shared by threads."""

    def __init__(self, name: StageName, resource: Resource, slots: int) -> None:
        self.name: StageName = name
        self.resource: Resource = resource
        self.slots = max(1, slots)
        self.items = 0
        self.bytes = 0
        self.busy = 0.0
        self.first: float | None = None
        self.last: float | None = None
        self.peak_ahead = 0
        self._lock = threading.Lock()

    def add(self, *, busy: float, nbytes: int = 0, started: float | None = None) -> None:
        """One piece of work of ``busy`` seconds that ends now; ``started``: when it was
        handed out (a queued analysis starts later than that: the stage's wall counts from
        there), by default ``busy`` seconds ago."""
        ended = time.monotonic()
        with self._lock:
            self.items += 1
            self.bytes += nbytes
            self.busy += busy
            start = ended - busy if started is None else started
            self.first = start if self.first is None else min(self.first, start)
            self.last = ended if self.last is None else max(self.last, ended)

    def ahead(self, count: int) -> None:
        self.peak_ahead = max(self.peak_ahead, count)

    def stage(self) -> Stage:
        wall = (self.last - self.first) if self.first is not None and self.last else 0.0
        return Stage(
            name=self.name,
            resource=self.resource,
            items=self.items,
            bytes=self.bytes,
            wall=wall,
            busy=self.busy,
            slots=self.slots,
            peak_ahead=self.peak_ahead,
        )
