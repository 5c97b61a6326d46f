"""A pole plain in several pictures overrules a banner read where no picture shows a pole.

A colour's flag stands on one of its legal spots (CTRL rulebook, "Game Turn" step 3 and "Setup" 4;
docs/rules/ctrl.md "Flags"), and the pictures may show it two ways: the banner's colour
(:meth:`vision.reconstruct.RayScorer.flag_scores`) and the pole (:mod:`vision.poles`).  The banner
decides first; the pole only among the banner's near rivals, for a flag read from a handful of rays,
or for a flag not found (``vision.pipeline``: ``_poles_decide``, ``weak_flags_by_pole``,
``flags_by_pole``).  A banner hanging in front of blocks of its own colour shows nothing the blocks do
not explain, while stray pixels of that colour elsewhere (a shadow's edge, a block's rim read as the
next cell) add up to a few tens of "banner" rays at a wrong spot -- and then the true spot's pole,
standing clear in three pictures, was never looked at (docs/vision.md, "Session 8: flags").

So: when no picture shows a pole at the spot read (or no flag was found) and the pole of another
legal spot where the pictures do not contradict a banner shows in at least ``MIN_VIEWS`` pictures --
strictly more than at any other such spot -- the flag stands there.  The pole test is the lighter-line
test with the blocks' occlusion (``vision.flag_margin.POLE_TEST``, session 7: a lighter line at 51 %
of true-spot pictures, 3.3 % of others), so three pictures at a spot without a flag are rare
(SIMULATED development renders and the fixtures, 132 scenes: the rule moved or placed 12 flags in
the free reading, 1 one turn back and 5 a round back, every one to the true spot).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from engine.ctrl import State
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.flag_margin import POLE_TEST
from vision.history import spots_for_flag
from vision.poles import PoleJudge
from vision.reconstruct import RayScorer, banner_may_hang

# pictures that must show the pole (lighter-line test) for it to overrule the banner
MIN_VIEWS = 3
# the banner contradiction test of the spots the pole may take the flag to (that of ``flags_by_pole``)
CONTRADICTION = 0.5
MIN_JUDGED = 4


def pole_overrules(state: State, colors: Iterable[str], scorer: RayScorer,
                   greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera],
                   min_views: int = MIN_VIEWS) -> tuple[State, dict[str, tuple[FlagSpot | None, FlagSpot, list[int]]]]:
    """For each of ``colors`` with blocks: its flag moved (or, when none was found, placed) where the
    pole overrules (see the module docstring).  ``greys``: the pictures in grey (float).  Returns the
    state and, per colour changed, the spot it was read at (``None``: not found), the new spot and the
    pictures (indices) showing its pole."""
    flags = dict(state.flags)
    changed: dict[str, tuple[FlagSpot | None, FlagSpot, list[int]]] = {}
    judge = PoleJudge(greys, cameras, cfg=POLE_TEST, occupied=set(state.blocks))
    in_play = [c for c in sorted(set(colors)) if any(v == c for v in state.blocks.values())]
    # cheaply (the same answers): the spots read first, all at once; then every legal spot of the colours
    # whose spot read shows no pole, all at once (the judge keeps each spot's verdict)
    reads = [flags[c] for c in in_play if c in flags]
    shown = {ev.spot for ev in judge.evidence(reads) if ev.views_seen}
    todo = [c for c in in_play if flags.get(c) not in shown]
    judge.evidence([sp for c in todo for sp in spots_for_flag(state, c)])
    for color in todo:
        read = flags.get(color)
        spots = spots_for_flag(_with_flags(state, flags), color)
        if not spots:
            continue
        views = {ev.spot: ev.views_seen for ev in judge.evidence(spots)}
        if read is not None and views.get(read):
            continue  # a picture shows a pole where the flag was read: the banner stands
        strong = [sp for sp in spots if sp != read and len(views[sp]) >= min_views]
        if not strong:
            continue
        # only the spots where a banner may hang compete (the others are ruled out by the pictures)
        against = scorer.banner_seen_against(state.blocks, color, strong)
        kept = [sp for sp, sides in zip(strong, against, strict=True)
                if banner_may_hang(sides, CONTRADICTION, MIN_JUDGED)]
        if not kept:
            continue
        top = max(kept, key=lambda sp: len(views[sp]))
        if any(len(views[sp]) >= len(views[top]) for sp in kept if sp != top):
            continue  # two spots as well shown: the pole does not decide
        flags[color] = top
        changed[color] = (read, top, views[top])
    return (_with_flags(state, flags) if changed else state), changed


def _with_flags(state: State, flags: dict[str, FlagSpot]) -> State:
    return state if flags == dict(state.flags) else replace(state, flags=flags)
