"""Move suggestion for CTRL by Monte Carlo search (``boardside ctrl hint``).

Search, not a fixed heuristic: every candidate placement is tried and evaluated by random
playouts, allocated with UCB1 within a budget (wall-clock seconds and/or a playout count); the
flag spot for the chosen placement is then searched the same way.  A playout plays random legal
turns for ``horizon`` turns (default: one full round) and scores the position as it would be
scored now (rulebook "End Game & Scoring"): the mover's total minus the best opposing total.
Deterministic for a given ``seed`` and ``max_playouts``.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field

from engine.core import GameError
from engine.ctrl.moves import FlagSpot, NoFlag, Pass, Placement, Turn
from engine.ctrl.state import State


@dataclass
class CandidateStats:
    move: str
    playouts: int = 0
    mean: float = 0.0


@dataclass
class Hint:
    turn: Turn
    playouts: int
    seconds: float
    placements: list[CandidateStats] = field(default_factory=list)
    flags: list[CandidateStats] = field(default_factory=list)


def _margin(state: State, color: str) -> float:
    tot = state.totals()
    scoring = state.contenders()
    me = color if color in scoring else max((c for c in scoring if state.owners[c] == state.owners[color]),
                                            key=lambda c: tot.get(c, 0), default=color)
    mine = tot.get(me, 0)
    others = [tot.get(c, 0) for c in scoring if state.owners.get(c) != state.owners[color]]
    return float(mine - (max(others) if others else 0))


def _playout(state: State, color: str, horizon: int, rng: random.Random) -> float:
    s = state
    turns = 0
    while not s.is_terminal() and turns < horizon * 2:
        moves = s.legal_moves()
        s = s.apply(rng.choice(list(moves)))
        turns += 1
    return _margin(s, color)


def _ucb_search(
    children: list[tuple[str, State]], color: str, horizon: int, rng: random.Random,
    deadline: float, max_playouts: int | None,
) -> tuple[list[CandidateStats], int]:
    stats = [CandidateStats(name) for name, _ in children]
    total = 0
    while True:
        if max_playouts is not None and total >= max_playouts:
            break
        if max_playouts is None and time.monotonic() >= deadline and total >= len(children):
            break
        if total < len(children):
            i = total
        else:
            logt = math.log(total)
            spread = max(1.0, max(s.mean for s in stats) - min(s.mean for s in stats))
            i = max(range(len(stats)), key=lambda k: stats[k].mean + spread * math.sqrt(2 * logt / stats[k].playouts))
        value = _playout(children[i][1], color, horizon, rng)
        st = stats[i]
        st.playouts += 1
        st.mean += (value - st.mean) / st.playouts
        total += 1
    return stats, total


def hint(
    state: State,
    budget_s: float = 2.0,
    seed: int = 0,
    max_playouts: int | None = None,
    horizon: int | None = None,
) -> Hint:
    """Suggest the best turn (placement and flag spot) for the mover."""
    if state.is_terminal() or state.to_move is None:
        raise GameError("the game is over: there is nothing to suggest")
    if state.phase != "place":
        raise GameError("hint expects a state at the start of a turn (phase 'place')")
    color = state.to_move
    rng = random.Random(seed)
    horizon = horizon or len(state.colors)
    t0 = time.monotonic()
    moves = state.legal_moves()
    split = 0.7
    if len(moves) == 1:
        placement_stats: list[CandidateStats] = [CandidateStats(str(moves[0]))]
        best_first = moves[0]
        n1 = 0
    else:
        children = [(str(m), state.apply(m)) for m in moves]
        # Evaluate a placement with a random flag spot: the flag is searched in the second stage.
        kids = []
        for name, child in children:
            spots = child.legal_moves()
            kids.append((name, child.apply(rng.choice(list(spots)))))
        placement_stats, n1 = _ucb_search(
            kids, color, horizon, rng, t0 + budget_s * split,
            None if max_playouts is None else int(max_playouts * split))
        best_i = max(range(len(placement_stats)), key=lambda k: (placement_stats[k].mean, -k))
        best_first = moves[best_i]
    after = state.apply(best_first)
    spots = after.legal_moves()
    if len(spots) == 1:
        flag_stats = [CandidateStats(str(spots[0]))]
        best_flag = spots[0]
        n2 = 0
    else:
        flag_stats, n2 = _ucb_search(
            [(str(m), after.apply(m)) for m in spots], color, horizon, rng, time.monotonic() + budget_s * (1 - split),
            None if max_playouts is None else max_playouts - int(max_playouts * split))
        best_j = max(range(len(flag_stats)), key=lambda k: (flag_stats[k].mean, -k))
        best_flag = spots[best_j]
    placement = best_first if isinstance(best_first, Placement) else None
    assert isinstance(best_first, (Placement, Pass))
    flag = best_flag if isinstance(best_flag, FlagSpot) else None
    assert isinstance(best_flag, (FlagSpot, NoFlag))
    return Hint(Turn(placement, flag), n1 + n2, time.monotonic() - t0,
                sorted(placement_stats, key=lambda s: -s.mean), sorted(flag_stats, key=lambda s: -s.mean))
