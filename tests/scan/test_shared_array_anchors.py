"""RP107 finds lane variables and array writes from ``str.find`` anchors: it must find what the
plain regexes (which start with ``\\b`` and a name, and so are tried at every word) find."""

from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rocport.scan.rules.cuda import shared_array_per_warp as rp107

PIECES = [
    "lane",
    "slots",
    "warpSize",
    "warpSizeX",
    "2x",
    "ñ",
    " ",
    "\n",
    "=",
    "==",
    "<=",
    "+=",
    ";",
    ",",
    "%",
    "&",
    "(",
    ")",
    "[",
    "]",
    "- 1",
    "threadIdx.x",
    " % warpSize",
    " & (warpSize - 1)",
    "lane = threadIdx.x % warpSize;",
    "slots[lane] = v;",
    "slots [w][lane] = v;",
]


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=25))
@example(["lane", "=", " % warpSize", "=", "%", "warpSize"])  # `warpSize` is in the first match
@example(["lane", "=", " % warpSize", "+", " % warpSize", "=", " % warpSize"])
def test_anchored_searches_find_what_the_regexes_find(pieces):
    body = "".join(pieces)
    assert set(rp107.lane_variables(body)) == {m.group(1) for m in rp107._LANE_VAR.finditer(body)}
    plain = re.compile(r"\bslots\s*((?:\[[^\];]*\]\s*)+)=(?!=)")
    assert rp107.written_subscripts(body, "slots") == [m.group(1) for m in plain.finditer(body)]
