"""Timer calibration: a host sleep of known length, timed by the suite's own timer.

On a GPU the events are recorded around the sleep on an idle stream, so the pair
brackets the sleep itself; on the CPU the wall clock does. Either way the median must
match the nominal length (and an independent wall-clock reading of the whole loop).
"""

from __future__ import annotations

import time
from collections.abc import Iterator

from rocport.bench.context import Context
from rocport.bench.results import Result
from rocport.bench.timing import measure


def run(ctx: Context, seconds: float, repeats: int) -> Iterator[Result]:
    """Time ``time.sleep(seconds)``; value = measured / nominal.

    A first, untimed pass of the same loop pays the one-off start-up costs (device context,
    the first events); the wall clock then covers the timed repeats alone.
    """

    def nap(i: int) -> None:
        time.sleep(seconds)

    measure(nap, ctx.device, warmup=1, repeats=2)
    t0 = time.perf_counter()
    timing = ctx.time(f"calibration sleep {seconds * 1e3:g} ms", nap, warmup=0, repeats=repeats)
    wall = (time.perf_counter() - t0) / repeats
    yield Result(
        id="calibration/sleep",
        workload="calibration",
        unit="x nominal",
        value=timing.median_s / seconds,
        implementation="time.sleep between the timer's marks",
        params={"nominal_ms": seconds * 1e3, "wall_clock_ms_per_call": wall * 1e3},
        timing=timing,
        higher_is_better=False,
    )
