"""History stage: explain the pictures as legal turns played from a previous state (``--previous``).

Chess recognisers gained most from using the game's history: a position seen by the camera must
follow from the last known one by legal moves.  CTRL's turns are few per position (a placement of
up to three blocks along one path, then the flag), so a beam search over legal turns, scored by
the reconstruct stage's ray model (:class:`vision.reconstruct.RayScorer`: how many sampled pixel
rays the blocks fail to explain), finds the continuation the pictures show.

The flag of each turn is taken from the flags the reconstruct stage found when that spot is legal
for the colour at that moment; otherwise the colour's flag stays where the rules leave it and the
result says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field, replace

from engine.ctrl import State
from engine.ctrl.geometry import Cell
from engine.ctrl.moves import FlagSpot, NoFlag, Pass, Placement, Turn
from vision.reconstruct import RayScorer

# a flag whose banner evidence is below this many sampled rays (twice the fewest that place a flag)
# is reported as possibly standing on any of its legal spots
WEAK_FLAG_RAYS = 8


@dataclass(frozen=True)
class HistoryConfig:
    beam: int = 4  # states kept per depth
    max_turns: int = 12  # never search deeper than this
    extra_turns: int = 1  # search at least this many turns beyond the block-count estimate
    patience: int = 2  # then stop after this many turns that explain nothing more
    tolerance: int = 6  # rays: a deeper explanation must be better than this to be preferred
    turns: int | None = None  # exactly this many turns were played (the players said so), else any number
    # cells a turn's flag is not put in when the pictures do not place it elsewhere (``_flag_for``): the cells the
    # unconstrained reading fills, where a mover's flag cannot stand at the end (its later turns' blocks go there)
    flag_keep_off: frozenset[tuple[int, int, int]] = frozenset()


@dataclass
class Explanation:
    state: State
    turns: list[Turn]
    cost: int  # rays the explained state fails to explain
    free_cost: int  # the same for the unconstrained reconstruction
    flag_notes: list[str] = field(default_factory=list)
    considered: int = 0  # placements priced
    depth_costs: list[int] = field(default_factory=list)  # the best cost after 0, 1, 2 ... turns
    flag_alternatives: dict[str, list[FlagSpot]] = field(default_factory=dict)  # nearly as well supported
    weak_flags: set[str] = field(default_factory=set)  # colours whose flag rests on very few rays
    # the cheapest other continuation with as many turns and other blocks that the search kept (None: none)
    rival: tuple[int, State, list[Turn]] | None = None


def explain_turns(
    previous: State,
    scorer: RayScorer,
    seen_flags: Mapping[str, FlagSpot],
    free_blocks: Mapping[str, object] | Mapping[tuple[int, int, int], str],
    cfg: HistoryConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
    flag_scorer: RayScorer | None = None,
    tie_scorer: RayScorer | None = None,
    tie_margin: int = 0,
) -> Explanation:
    """The legal continuation of ``previous`` (0 or more whole turns) that best explains the rays.
    ``flag_scorer`` (default ``scorer``) weighs the flags' banner evidence once the blocks are chosen.
    ``tie_scorer``: among the continuations the search kept at the depth chosen that ``scorer`` prices
    within ``tie_margin`` rays of the best (the pictures, as ``scorer`` counts them, cannot tell them
    apart), the one ``tie_scorer`` prices lowest is taken (the ``rival`` is then the best by ``scorer``
    with other blocks, so the choice stays reported as doubtful)."""
    cfg = cfg or HistoryConfig()
    free_cost = scorer.cost(free_blocks)  # type: ignore[arg-type]
    # the blocks seen suggest how many turns were played; hidden placements make that an
    # underestimate, so the search goes on while deeper turns still explain more rays
    est = max(0, math.ceil((len(free_blocks) - len(previous.blocks)) / 3))
    depth_limit = cfg.max_turns if cfg.turns is None else cfg.turns
    start_cost = scorer.cost(previous.blocks)
    beam: list[tuple[int, State, list[Turn], list[str]]] = [(start_cost, previous, [], [])]
    best_per_depth: list[tuple[int, State, list[Turn], list[str]]] = [beam[0]]
    beams = [beam]
    considered = 0
    for depth in range(1, depth_limit + 1):
        if progress is not None:
            progress(depth, depth_limit)
        # the candidates' costs do not depend on the flag half of their turns: only the ones the beam
        # keeps are played out (the flag move passes the turn on, which works out the next colour's
        # placements: the dearest step); the same stable sort keeps the same candidates
        cands: list[tuple[int, State, str, Placement | Pass, list[Turn], list[str]]] = []
        for cost, st, turns, notes in beam:
            if st.is_terminal() or st.to_move is None:
                continue
            color = st.to_move
            scorer.set_base(st.blocks)
            moves = [mv for mv in st.legal_moves() if isinstance(mv, Placement | Pass)]
            # every placement priced on this base at once (``RayScorer.deltas``: the same integers as
            # ``delta`` one by one)
            placements = [mv for mv in moves if isinstance(mv, Placement)]
            price = iter(scorer.deltas([mv.cells for mv in placements], color))
            priced: list[tuple[int, Placement | Pass]] = [
                (next(price), mv) if isinstance(mv, Placement) else (0, mv) for mv in moves]
            considered += len(placements)
            priced.sort(key=lambda t: t[0])
            for delta, mv in priced[: cfg.beam]:
                cands.append((cost + delta, st, color, mv, turns, notes))
        if not cands:
            break
        cands.sort(key=lambda t: t[0])
        beam = [_play(c, st, color, mv, turns, notes, seen_flags, cfg.flag_keep_off)
                for c, st, color, mv, turns, notes in cands[: cfg.beam]]
        best_per_depth.append(beam[0])
        beams.append(beam)
        if cfg.turns is None and depth >= est + cfg.extra_turns and len(best_per_depth) > cfg.patience:
            before = min(b[0] for b in best_per_depth[:-cfg.patience])
            if min(b[0] for b in best_per_depth[-cfg.patience:]) > before - cfg.tolerance:
                break  # the last turns explained nothing more
    lowest = min(c for c, *_ in best_per_depth)
    # the shallowest depth that explains the pictures as well as any deeper one (hidden placements
    # change no ray, so deeper searches can always add turns for free: the fewest turns win); when the
    # number of turns is known, that many (fewer only when the game ended before: no deeper state)
    depth = (len(best_per_depth) - 1 if cfg.turns is not None else
             next(d for d, b in enumerate(best_per_depth) if b[0] <= lowest + cfg.tolerance))
    cost, state, turns, notes = best_per_depth[depth]
    if tie_scorer is not None and tie_margin > 0:
        close = [b for b in beams[depth] if b[0] < cost + tie_margin]
        if len({frozenset(b[1].blocks.items()) for b in close}) > 1:
            # the first of the cheapest by ``tie_scorer`` (a stable choice: ties keep ``scorer``'s order)
            tie_costs = [tie_scorer.cost(b[1].blocks) for b in close]
            cost, state, turns, notes = close[tie_costs.index(min(tie_costs))]
    rival = next(((c, s, t) for c, s, t, _ in beams[depth] if s.blocks != state.blocks), None)
    weak: set[str] = set()
    state, notes, alternatives = _refit_flags(state, turns, flag_scorer or scorer, notes, weak)
    return Explanation(state, turns, cost, free_cost, notes, considered, [b[0] for b in best_per_depth],
                       alternatives, weak, rival)


def _play(cost: int, st: State, color: str, mv: Placement | Pass, turns: list[Turn], notes: list[str],
          seen_flags: Mapping[str, FlagSpot], keep_off: Collection[Cell] = frozenset(),
          ) -> tuple[int, State, list[Turn], list[str]]:
    """One beam entry: ``mv`` played from ``st``, then the flag half of the turn (``_flag_for``)."""
    after = st.apply(mv)
    flag_move, note = _flag_for(after, color, seen_flags, keep_off)
    after = after.apply(flag_move)
    turn = Turn(mv if isinstance(mv, Placement) else None, flag_move if isinstance(flag_move, FlagSpot) else None)
    return cost, after, [*turns, turn], [*notes, *([note] if note else [])]


def _refit_flags(state: State, turns: list[Turn], scorer: RayScorer, notes: list[str], weak: set[str],
                 ) -> tuple[State, list[str], dict[str, list[FlagSpot]]]:
    """With the blocks settled, each colour that played picks the flag spot the pictures support best
    among its legal spots now (the free reconstruction's flags were fitted to its own, partly wrong,
    blocks).  A colour whose flag no spot's rays support is left without one: never guessed.  Spots
    with at least half the best spot's evidence are returned as alternatives (the pipeline says which
    sides they would change)."""
    movers = []
    for t in turns:
        for c in (t.placement.cells if t.placement is not None else ()):
            col = state.blocks.get(c)
            if col is not None and col not in movers:
                movers.append(col)
    if not movers:
        return state, notes, {}
    state, alternatives = pick_flags(state, movers, scorer, weak)
    kept = [n for n in notes if not any(n.startswith(f"the {c} flag") for c in movers)]
    return state, kept, alternatives


def spots_for_flag(state: State, color: str) -> list[FlagSpot]:
    """Where ``color``'s flag may stand with ``state``'s blocks and the other colours' flags (its own
    flag taken off the battlefield first)."""
    return replace(state, flags={k: v for k, v in state.flags.items() if k != color}).flag_spots(color)


def pick_flags(state: State, colors: list[str], scorer: RayScorer,
               weak: set[str] | None = None) -> tuple[State, dict[str, list[FlagSpot]]]:
    """Each of ``colors`` takes the legal flag spot (with ``state``'s blocks and the other flags) that
    the banner evidence supports best; a colour no spot's rays support is left without a flag (never
    guessed).  Spots with at least half the best spot's evidence are returned as alternatives; the
    colours whose flag rests on fewer than ``WEAK_FLAG_RAYS`` rays are added to ``weak``."""
    weak = set() if weak is None else weak
    alternatives: dict[str, list[FlagSpot]] = {}
    flags = dict(state.flags)
    for color in colors:
        spots = spots_for_flag(replace(state, flags=flags), color)
        if not spots:
            continue
        scores = scorer.flag_scores(state.blocks, color, spots)
        best = max(range(len(spots)), key=lambda i: scores[i])
        if scores[best] > 0:
            flags[color] = spots[best]
            alternatives[color] = [sp for i, sp in enumerate(spots) if i != best and scores[i] >= 0.5 * scores[best]]
            if scores[best] < WEAK_FLAG_RAYS:
                weak.add(color)
        else:
            # no picture shows the banner at any legal spot: the flag is left out rather than guessed
            # (the pipeline reports it and which sides its spot could change)
            flags.pop(color, None)
    return replace(state, flags=flags), alternatives


def _flag_for(state: State, color: str, seen: Mapping[str, FlagSpot],
              keep_off: Collection[Cell] = frozenset()) -> tuple[FlagSpot | NoFlag, str]:
    """The flag half of the turn: the flag the pictures show, when that spot is legal now.  With ``keep_off``
    (cells): a spot in one of them is not taken, neither seen nor assumed; a guess is then a spot whose cell
    has the fewest of them next to it (the least likely to be built on by the turns that follow)."""
    spots = state.flag_spots()
    if not spots:
        return NoFlag(), ""
    want = seen.get(color)
    if want is not None and want in set(spots) and want.cell not in keep_off:
        return want, ""
    old = state.flags.get(color)
    if old is not None and old in set(spots) and old.cell not in keep_off:
        return old, f"the {color} flag was not found where the rules allow it; assumed unchanged at {old}"
    guess = spots[0]
    if keep_off:
        def crowd(sp: FlagSpot) -> int:
            x, y, z = sp.cell
            return sum((x + dx, y + dy, z + dz) in keep_off for dx, dy, dz in (
                (1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)))
        guess = min([sp for sp in spots if sp.cell not in keep_off] or spots, key=crowd)
    return guess, f"the {color} flag was not found where the rules allow it; placed at {guess} (a guess)"
