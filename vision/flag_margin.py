"""Is a flag read with history settled, or would another legal spot fit the pictures nearly as well?

With ``score-images --previous`` the blocks are nearly always right (the legal turns decide them), so
the readings trusted with a wrong side are flags at a wrong spot (docs/vision.md, "Session 6").  A
colour that played plugs its flag into one of its own exposed faces at the end of its turn (CTRL
rulebook, "Game Turn" step 3; docs/rules/ctrl.md "Flags"): its flag stands on one of its legal spots,
and the pictures must tell which.  Two kinds of evidence are at hand for a spot:

* the banner (:meth:`vision.reconstruct.RayScorer.flag_scores`): sampled rays through where the banner
  would hang that show the colour and that no block explains, minus those that show something else;
* the pole (:func:`vision.poles.pole_evidence`): how many pictures show a thin line along the pole's
  axis, leaving out the points of the pole that the blocks hide from a picture.  One picture showing a
  "pole" is common at spots without a flag (block edges and sockets line up with it): on the SIMULATED
  development renders (one turn back), spots without a flag showed one in 0.23-0.27 pictures on
  average, the true spots in 1.6-2.3; two or more pictures showed a pole at 15 of 684 and 29 of 671
  spots without a flag (23 and 36 before the blocks' occlusion was taken into account) and at 24 of 36
  true spots (the same).

Here they are put on one scale, ``banner + POLE_WEIGHT * (pictures showing the pole - 1)`` (nothing
for the first picture), and the flag read is compared with each other legal spot of its colour that
would change some side's count and where the pictures do not contradict a banner (the test of
:func:`vision.pipeline.flags_by_pole`).  When such a rival has evidence (> 0) within ``MARGIN`` of the
spot read, the score sheet is not settled: the reading is reported ``flag-ambiguous`` (an error: not
trusted), with the sides the rival would change.  So is a flag read at a spot with no evidence at all
(no banner ray, no pole in two pictures) while such a rival exists: whatever put it there, the
pictures do not, and it is a guess (session 7: 4 of 4 such reads on the fixtures, none on the
development renders, were wrong).

A rival in the same cell as the spot read (the same block, the pole out of another face) is left out when
some picture shows the pole read and none shows the rival's (``SAME_CELL_POLE_DECIDES``): the two banners
hang nearly in the same place, so their banner rays cannot tell them apart, and only the poles can.  Over
the SIMULATED development renders (followed games and scenes a turn and a round back, session 9), of the
same-cell rivals with no pole shown while the spot read showed one, 2 of 149 were the flag's true spot.

The pole test here (``POLE_TEST``, session 7) counts a picture only when the line along the pole's
axis is *lighter* than the picture on both sides (the pole is a thin light rod; a dark line between
lighter areas is a shadow or the gap between two blocks), or darker than both sides but light itself
(a light pole in front of something lighter still).  At every legal spot of the fixtures' truth
states, spots without the flag showing a "pole" in two or more pictures fell 127 -> 32 of 4094, true
spots 79 -> 68 of 116 (docs/vision.md, "Session 7", with the development renders' figures).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from engine.ctrl import State
from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot
from vision.camera import ViewCamera
from vision.history import spots_for_flag
from vision.poles import PoleConfig, PoleJudge, pole_line_shares
from vision.reconstruct import RayScorer, banner_may_hang

# one more picture showing the pole counts as much as this many banner rays (the first picture counts
# nothing: it is common at spots without a flag; with the lighter-line test less so, but counting it
# cost trusted right readings on the fixtures, 29 -> 27 and 17 -> 12, docs/vision.md "Session 7")
POLE_WEIGHT = 10.0
# a rival spot within this much evidence of the spot read makes the flag ambiguous.  Chosen on the
# SIMULATED development renders (seeds +15485 and +7919, one turn and a round back; docs/vision.md,
# "Session 6"): trusted readings with a wrong side 9 -> 3, trusted right readings 48 -> 40
MARGIN = 10.0
# the pole test of the spots compared: a line lighter than both sides, or darker than both but light
# itself (docs/vision.md, "Session 7"; 115-160 grey gave the same trust on every set measured)
# ... leaving out, in the low pictures (``ctrl watch --low-views``, ``--views all``), the points of the pole seen
# against the mat's printed ChArUco ring: its white gaps between black squares are thin light lines.  At the
# legal spots of the truth states of the fixtures and /tmp/low10 (SIMULATED, nine pictures), pictures with the
# ring behind the pole showed a "pole" at 11-14 % of the spots without a flag, against 1-3 % with anything else
# behind (blocks, the clear mat, the table); with nine pictures such lines gave rival spots a second picture
# and right flags were called ``flag-ambiguous``.  Not in the five usual pictures: there it cost two right flags
# on the fixtures a round back (docs/vision.md, "Session 12: flag checks with nine pictures")
POLE_RING_VIEWS: str | None = "low"
POLE_TEST = PoleConfig(light_only=True, dark_min_grey=130.0, ring=POLE_RING_VIEWS)
# a rival in the SAME cell as the spot read (the flag in the same block, its pole out of another face) is no
# rival when some picture shows the pole read and none shows the rival's: the two banners hang in nearly the
# same place, so the banner rays cannot tell them apart and only the poles can (docs/vision.md, "Session 9:
# flag questions")
SAME_CELL_POLE_DECIDES = True

# a flag read on little evidence (under ``MARGIN``: a few banner rays, no second pole picture) while some legal
# spot of its colour that changes a side is one NO picture shows (too few rays pass where its banner would hang,
# and no picture shows its pole) is ``flag-ambiguous``: the flag may stand there, unseen, and the few rays at the
# spot read be something else.  Before, a rival needed evidence above nil, so such readings were trusted.
# Session 12 (lead): a session-12 held-out scene (scene_007, one turn back and a round back, five pictures)
# was trusted with the yellow flag wrong -- read on 9 banner rays at 3,2,2 +y; the flag, just planted, stood
# at 0,3,1 -x with its pole pointing at the -x camera, shown by no picture.  On the SIMULATED dev sets (fixtures,
# held8-held11, five pictures, one turn back and a round back; nine pictures one turn back on fixtures, low10
# and held11) the rule caught no wrong flag and took trust from 7 right readings of 320 (fixtures one turn back
# 77.5 -> 75 %, a round back 47.5 -> 37.5 %; held8 one turn back 80 -> 75 %, a round back 40 -> 35 %); those
# flags were read on 1-8 banner rays.  A threshold-free rule, but it rests on one held-out failure.
WEAK_READ_UNSEEN_RIVAL = True
# a rival whose only evidence is its pole (no banner ray of its colour there: the pictures show no banner at that
# spot, only a thin line in two or more pictures) needs at least the evidence of the spot read to make the flag
# ``flag-ambiguous``, not merely to come within ``MARGIN``: the margin allows for the noise of two banner counts
# compared, and a pole-only rival has no banner count.  Session 15 (docs/vision.md, "Session 15: trusting right
# readings with history"): on the SIMULATED development renders (one turn and a round back, five and nine
# pictures, followed games) every wrong flag a pole-only rival made ambiguous had evidence at most the rival's
# (1-10 against 10), while right flags a pole-only rival held back had more (12-28 against 10-20).  ``None``:
# the same ``MARGIN`` as any rival (as before).
POLE_ONLY_RIVAL_MARGIN: float | None = 0.0
# a same-cell rival is no rival by ``SAME_CELL_POLE_DECIDES`` only when a picture shows the pole read on points of its
# axis that the rival's pole could not draw: in a picture that cannot judge the rival's own axis (seen end-on there,
# or hidden) the points lying on the rival's projected pole are left out (``vision.poles.pole_line_shares(clear_of=
# ...)``).  A level pole pointing at a low picture projects as a short line onto the axis of the upright spot of its
# cell: held16 scene_004 (session 16's held-out set, nine pictures one turn back) was trusted with its green flag on
# +z, the "pole" at +z seen only by my_low, which looked along the true -y pole (docs/vision.md, "Session 17: flags
# on the wrong face").  False: as before
SAME_CELL_CLEAR_END_ON = False
# with history: the flag of a colour that played is compared with its legal spots that change NO side's count too
# (``ambiguous_flags(neutral=True)``), by the same tests; one nearly as well supported makes the flag's SPOT
# uncertain (``SceneResult.uncertain_flag_spots``, a ``flag-spot-uncertain`` warning: the score sheet is settled,
# the reading stays trusted), so ``ctrl follow`` has it confirmed or records it provisionally
# (``boardside.ctrl_follow.flags_to_confirm``), as the record keeps where each flag stands and a later turn's
# sides depend on it.  Session 17 (docs/vision.md, "Session 17: a flag recorded wrong without a question"):
# held17 game_h1 scene_014 (five pictures) recorded pink's flag at 4,0,3 +z (evidence 10) where it stood at
# 2,0,4 +z (evidence 5), a rival left out because it changed no side then; held15 scene_024 (one turn back) was
# trusted with yellow's flag at 0,3,2 -x (true 0,3,1 -x), named now.  On the development followed games (23, five
# pictures) no reading changed but 5 right flags recorded provisionally and one more question (167 -> 168); held16's
# followed games 13 -> 13 questions, nine pictures 29 -> 30 and 7 -> 7; no reading recorded wrong either way; CTRL
# readings one turn back (held8-16) keep their trust (a warning only).  False: as before
NEUTRAL_RIVALS = True
# a rival whose pole at least ``ABSENT_POLE_MIN_JUDGED`` pictures can judge (the blocks' occlusion counted, the ring
# left out in the low pictures: ``POLE_TEST``) and none shows as a line of EITHER polarity is no rival, when the spot
# read is not so itself: the pictures that could show its pole show nothing there.  Session 19 (docs/vision.md,
# "Session 19: one turn back, what is left"): on SIMULATED renders one turn back (held18 and dev seed 2026131201,
# five and nine pictures, every legal spot of the movers' flags on the blocks read) 0 of 79 true spots were so
# against 1579 of 2889 other legal spots.  With it on, right readings were trusted on dev (003, five pictures) and on
# a second check set (seed 2026131203, scene_014), but in the held18 followed game game_h1 (a round back, five
# pictures) scene_005's pink flag, read wrong, was no longer asked and the position was recorded wrong: left off.
# False: as before
ABSENT_POLE_RIVALS = False
ABSENT_POLE_MIN_JUDGED = 3
# (session 9's SAME_CELL_UPRIGHT_MIN_POLES -- an upright rival settled so only when 3 pictures show the pole read --
# was removed in session 11: on 176 scenes in three modes it changed no reading, and on the 17 followed games it
# only added one question about a flag read right; docs/vision.md, "Session 11: the few-case rules measured")


@dataclass(frozen=True)
class AmbiguousFlag:
    color: str
    read: FlagSpot  # where the flag was read
    rival: FlagSpot  # a legal spot nearly as well supported
    evidence_read: float
    evidence_rival: float
    sides: tuple[str, ...]  # the sides whose counts change with the flag at ``rival``
    rival_unseen: bool = False  # ``rival`` is a spot no picture shows (``WEAK_READ_UNSEEN_RIVAL``)


def flag_evidence(banner: float, pole_views: int, pole_weight: float = POLE_WEIGHT) -> float:
    """One number for a flag spot: the banner's rays (nothing when none or negative) plus
    ``pole_weight`` per picture showing the pole beyond the first."""
    b = banner if np.isfinite(banner) and banner > 0 else 0.0
    return float(b + pole_weight * max(pole_views - 1, 0))


def is_ambiguous(e_read: float, e_rival: float, margin: float = MARGIN) -> bool:
    """Is a flag read with evidence ``e_read`` unsettled by its best rival's ``e_rival``
    (:func:`flag_evidence`)?  Yes when the rival has some evidence and comes within ``margin``, and
    when the spot read has none at all (a rival the pictures allow is as likely)."""
    return e_read <= 0 or (e_rival > 0 and e_rival >= e_read - margin)


def ambiguous_flags(state: State, colors: Iterable[str], scorer: RayScorer,
                    greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera],
                    pole_weight: float = POLE_WEIGHT, margin: float = MARGIN, contradiction: float = 0.5,
                    min_judged: int = 4, pole_cfg: PoleConfig | None = None,
                    same_cell_poles: bool | None = None, weak_unseen: bool | None = None,
                    neutral: bool = False) -> list[AmbiguousFlag]:
    """For each of ``colors`` with a flag in ``state``: its best rival spot (see the module docstring)
    when that rival comes within ``margin`` of the spot read; colours without such a rival are left out.
    ``greys``: the pictures in grey (float), as :mod:`vision.poles` samples them; ``pole_cfg``: the
    pole test (:data:`POLE_TEST` by default).

    Cheaply (the same answers as testing every rival in full): a rival whose banner could not come
    within ``margin`` even with every picture showing its pole is not looked at further; the poles of
    the others are judged together (:class:`vision.poles.PoleJudge`: the spots read of every colour
    at once, then their rivals at once); and the banner's contradiction test, which only removes
    rivals, is made only on the rivals whose evidence comes within the margin (the best rival the
    test keeps comes within it exactly when one of them is kept).  A spot read without evidence is
    ambiguous with any rival the pictures allow: then every rival is looked at.

    ``neutral``: the rivals weighed are instead the legal spots that change NO side's count now (left out
    otherwise: the score sheet does not depend on them), with the same tests; an answer's ``sides`` is then
    empty.  A followed game records where each flag stands (``NEUTRAL_RIVALS``)."""
    from vision.pipeline import FlagSideCheck

    same_cell_poles = SAME_CELL_POLE_DECIDES if same_cell_poles is None else same_cell_poles
    clear_end_on = SAME_CELL_CLEAR_END_ON
    weak_unseen = WEAK_READ_UNSEEN_RIVAL if weak_unseen is None else weak_unseen
    pole_only_margin = POLE_ONLY_RIVAL_MARGIN
    sides_check = FlagSideCheck(state.blocks, state.flags, state.colors)
    # a pole these blocks hide cannot show (a line there is something else)
    judge = PoleJudge(greys, cameras, cfg=pole_cfg or POLE_TEST, occupied=set(state.blocks))
    # each colour's spot read, its rivals (legal spots that change a side) and their banners
    todo: list[tuple[str, FlagSpot, dict[FlagSpot, tuple[str, ...]], list[FlagSpot], list[float]]] = []
    for color in sorted(set(colors)):
        read = state.flags.get(color)
        if read is None:
            continue
        spots = spots_for_flag(state, color)
        if read not in spots:
            continue
        changed = {sp: tuple(sorted(sides_check.changed_sides(color, sp))) for sp in spots if sp != read}
        rivals = [sp for sp in spots if sp != read and bool(changed[sp]) != neutral]
        if rivals:
            todo.append((color, read, changed, rivals, scorer.flag_scores(state.blocks, color, [read, *rivals])))
    reads = judge.evidence([t[1] for t in todo])
    # the rivals that may come within the margin: the most a rival's evidence can be is its banner and
    # every picture showing its pole
    left: list[tuple[str, FlagSpot, dict[FlagSpot, tuple[str, ...]], float, int, list[tuple[FlagSpot, float]]]] = []
    for (color, read, changed, rivals, banner), ev_read in zip(todo, reads, strict=True):
        e_read = flag_evidence(banner[0], len(ev_read.views_seen), pole_weight)
        reach = [(sp, b) for sp, b in zip(rivals, banner[1:], strict=True)
                 if e_read <= 0 or 0 < flag_evidence(b, len(greys), pole_weight) >= e_read - margin]
        if reach:
            left.append((color, read, changed, e_read, len(ev_read.views_seen), reach))
    judge.evidence([sp for *_, reach in left for sp, _ in reach])  # all at once; then from the judge's store
    out: list[AmbiguousFlag] = []
    for color, read, changed, e_read, read_poles, reach in left:
        evs = judge.evidence([sp for sp, _ in reach])
        if ABSENT_POLE_RIVALS and not judge.evidence([read])[0].absent(ABSENT_POLE_MIN_JUDGED):
            # a rival whose pole the pictures that could show it do not show is no rival
            reach, evs = [r for r, ev in zip(reach, evs, strict=True) if not ev.absent(ABSENT_POLE_MIN_JUDGED)], [
                ev for ev in evs if not ev.absent(ABSENT_POLE_MIN_JUDGED)]
        scored = [(flag_evidence(b, len(ev.views_seen), pole_weight), sp, len(ev.views_seen))
                  for (sp, b), ev in zip(reach, evs, strict=True)]
        banners = dict(reach)
        unseen = {sp for e, sp, poles in scored if weak_unseen and e_read < margin
                  and not np.isfinite(banners[sp]) and poles == 0}
        # the margin a rival must come within: ``POLE_ONLY_RIVAL_MARGIN`` for a rival without a banner ray
        margin_of = {sp: margin if pole_only_margin is None or (np.isfinite(b) and b > 0) else pole_only_margin
                     for sp, b in banners.items()}
        def read_shows(rival: FlagSpot, read: FlagSpot = read, read_poles: int = read_poles) -> int:
            """Pictures showing the pole read, for the same-cell test against ``rival``."""
            if not (clear_end_on and read_poles):
                return read_poles
            return len(views_clear_of_unjudged(greys, cameras, read, rival, judge.evidence([read])[0].views_seen,
                                               state.blocks, pole_cfg or POLE_TEST))

        close = [(e, sp) for e, sp, poles in scored if (is_ambiguous(e_read, e, margin_of[sp]) or sp in unseen)
                 and not (same_cell_poles and e_read > 0 and sp.cell == read.cell and poles == 0 < read_poles
                          and read_shows(sp) > 0)]
        if not close:
            continue
        against = scorer.banner_seen_against(state.blocks, color, [sp for _, sp in close])
        kept = [(e, sp) for (e, sp), sides in zip(close, against, strict=True)
                if banner_may_hang(sides, contradiction, min_judged)]
        if not kept:
            continue
        e_rival, rival = max(kept, key=lambda t: (t[0], t[1] not in unseen))
        if is_ambiguous(e_read, e_rival, margin_of[rival]) or rival in unseen:
            out.append(AmbiguousFlag(color, read, rival, e_read, e_rival, changed[rival], rival in unseen))
    return out


def views_clear_of_unjudged(greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera], spot: FlagSpot,
                            rival: FlagSpot, views: Iterable[int], occupied: Iterable[Cell],
                            cfg: PoleConfig = POLE_TEST) -> list[int]:
    """Of ``views`` (pictures showing a pole at ``spot`` by ``cfg``), those that still show it once the points of its
    axis lying on ``rival``'s projected pole are left out in the pictures that cannot judge ``rival``'s own axis
    (:func:`vision.poles.pole_line_shares` is ``None`` there: seen end-on, or hidden); a picture that can judge the
    rival keeps its verdict (the rival's own test speaks for it).  ``SAME_CELL_CLEAR_END_ON``."""
    occ = set(occupied)
    kept: list[int] = []
    for k in views:
        grey, cam = greys[k], cameras[k]
        if pole_line_shares(grey, cam, rival, cfg=cfg, occupied=occ) is not None:
            kept.append(k)
            continue
        sh = pole_line_shares(grey, cam, spot, cfg=cfg, occupied=occ, clear_of=[rival])
        if sh is not None and (sh[0] if cfg.light_only else sh[1]) >= cfg.line_share:
            kept.append(k)
    return kept


# with history: a flag read where no picture shows its pole, while the other spot of the SAME cell (the flag
# plugged into the neighbouring block, its pole pointing another way) shows its pole and its banner comes
# within ``MARGIN`` of the spot read, is moved there -- the counterpart of ``SAME_CELL_POLE_DECIDES``: the two
# banners hang in nearly the same place, so only the poles can tell them apart.  The move is a guess from one
# picture's line: the reading reports it ``flag-ambiguous`` (never trusted by this step).  Development renders
# (session 9, "flag poles"): of the mover flags read so, the other spot was the true one 8 times, the spot read 2
SAME_CELL_POLE_MOVES = True


@dataclass(frozen=True)
class SameCellMove:
    color: str
    read: FlagSpot  # the spot read, no pole shown
    moved: FlagSpot  # the same cell's spot whose pole some picture shows
    banner_read: float
    banner_moved: float
    views: tuple[int, ...]  # the pictures showing the pole at ``moved``


def same_cell_pole_moves(state: State, colors: Iterable[str], scorer: RayScorer,
                         greys: Sequence[npt.NDArray[np.float32]], cameras: Sequence[ViewCamera],
                         margin: float = MARGIN, contradiction: float = 0.5, min_judged: int = 4,
                         pole_cfg: PoleConfig | None = None) -> tuple[State, list[SameCellMove]]:
    """For each of ``colors`` with a flag in ``state`` whose spot no picture shows a pole at (the pole test
    :data:`POLE_TEST`, the blocks' occlusion counted): the legal spots of the same cell (the flag in the same
    place, plugged into another neighbouring block) whose banner the pictures do not contradict, that some
    picture shows the pole of, whose banner rays are positive and within ``margin`` of the spot read's, and
    where the flag would change some side's count (else :func:`ambiguous_flags` has no rival there either: the
    move would only make the reading untrusted).
    The one whose pole the most pictures show -- strictly more than any other such spot -- takes the flag.  A
    flag read pointing up (``+z``) is left where it is: an upright pole shows no lighter line more often than a
    level one (fixture scene_011 a round back, where the green flag's +z
    spot shows no line and the same cell's -x spot one, is right at +z).
    Returns the new state and the moves made."""
    from vision.pipeline import FlagSideCheck

    sides_check = FlagSideCheck(state.blocks, state.flags, state.colors)
    judge = PoleJudge(greys, cameras, cfg=pole_cfg or POLE_TEST, occupied=set(state.blocks))
    flags = dict(state.flags)
    moves: list[SameCellMove] = []
    todo: list[tuple[str, FlagSpot, list[FlagSpot]]] = []
    for color in sorted(set(colors)):
        read = flags.get(color)
        if read is None or read.points == "+z":  # an upright pole often shows no line
            continue
        spots = spots_for_flag(state, color)
        same = [sp for sp in spots if sp != read and sp.cell == read.cell and sides_check.changed_sides(color, sp)]
        if read in spots and same:
            todo.append((color, read, same))
    if not todo:
        return state, moves
    reads = judge.evidence([t[1] for t in todo])
    for (color, read, same), ev_read in zip(todo, reads, strict=True):
        if ev_read.views_seen:
            continue
        banner = scorer.flag_scores(state.blocks, color, [read, *same])
        b_read = float(banner[0]) if np.isfinite(banner[0]) else 0.0
        close = [(sp, float(b)) for sp, b in zip(same, banner[1:], strict=True)
                 if np.isfinite(b) and b > 0 and b >= b_read - margin]
        if not close:
            continue
        against = scorer.banner_seen_against(state.blocks, color, [sp for sp, _ in close])
        close = [c for c, sides in zip(close, against, strict=True)
                 if banner_may_hang(sides, contradiction, min_judged)]
        if not close:
            continue
        evs = judge.evidence([sp for sp, _ in close])
        ranked = sorted(zip(close, evs, strict=True), key=lambda t: -len(t[1].views_seen))
        (top, b_top), ev_top = ranked[0]
        if not ev_top.views_seen or (len(ranked) > 1 and len(ranked[1][1].views_seen) >= len(ev_top.views_seen)):
            continue
        flags[color] = top
        moves.append(SameCellMove(color, read, top, b_read, b_top, tuple(ev_top.views_seen)))
    return (replace(state, flags=flags) if moves else state), moves
