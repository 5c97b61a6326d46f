"""A solver that proves a Quirky Circuits scenario winnable from its deck, in the fewest rounds.

What "winnable from its deck" means (docs/rules/quirky.md, "Solver"): hands are hidden and the
deck is shuffled, so no fixed plan wins every deal.  The solver answers the question a scenario
designer asks: *is there a deal (a shuffle of the scenario's own deck) and a way to play it that
completes the objective before the battery runs out, and how few rounds does it take?*  Each round's
queue is a sequence of cards from the deck (never more copies of a card than the deck holds),
at least ``max(5, players)`` cards and at most the cards in the players' hands, resolved with the
real rules.  The fewest-rounds plan found is then **replayed through** :class:`QuirkyState` with
concrete shuffle events and plays (the witness), so a claimed win is checked by the game itself.

The search is breadth-first over rounds; inside a round it is breadth-first over cards, keeping
for every (table, cards-played) only the Pareto-minimal multisets of cards used.  ``max_program``
caps the queue length the search considers (a found plan is always real; "fewest rounds" is exact
among queues up to that length).
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import ChanceEvent, GameError
from engine.quirky.cards import Card
from engine.quirky.game import Go, Play, QuirkyState, Take, new_state
from engine.quirky.rules import NeedsChoice, Outcome, Table, resolve_card
from engine.quirky.scenario import Scenario

Step = tuple[Card, str]  # a card and the token a Pick Up takes ("" when no choice)


@dataclass
class Solution:
    scenario: str
    players: int
    winnable: bool
    rounds: int | None
    plan: list[list[Step]] = field(default_factory=list)
    battery: int = 0
    section: str | None = None
    states: int = 0
    max_program: int = 0
    verified: bool = False
    witness: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "winnable": self.winnable,
            "rounds": self.rounds,
            "players": self.players,
            "battery": self.battery,
            "section": self.section,
            "plan": [[str(c) + (f"[{ch}]" if ch else "") for c, ch in r] for r in self.plan],
            "cards": sum(len(r) for r in self.plan),
            "verified": self.verified,
            "states": self.states,
            "max_program": self.max_program,
            "definition": "a shuffle of the scenario's deck exists for which the players win in this many rounds",
        }


class _Resolver:
    def __init__(self, scn: Scenario) -> None:
        self.scn = scn
        self.cache: dict[tuple[Table, Card], list[tuple[str, Table, Outcome]]] = {}

    def __call__(self, table: Table, card: Card) -> list[tuple[str, Table, Outcome]]:
        key = (table, card)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        out: list[tuple[str, Table, Outcome]] = []
        try:
            tr = resolve_card(self.scn, table, card)
            out.append(("", tr.after, tr.outcome))
        except NeedsChoice as need:
            for tid in need.candidates:
                tr = resolve_card(self.scn, table, card, choice=tid)
                out.append((tid, tr.after, tr.outcome))
        self.cache[key] = out
        return out


def solve(
    scn: Scenario,
    players: int = 3,
    max_program: int = 8,
    verify: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Solution:
    """Fewest rounds to win ``scn`` (see the module docstring for the exact meaning)."""
    hand = scn.hand_size(players)
    kmin = max(5, players)
    kmax = max(kmin, min(players * hand, max_program))
    kinds = sorted(scn.deck)
    limit = tuple(scn.deck[k] for k in kinds)
    index = {k: i for i, k in enumerate(kinds)}
    resolve = _Resolver(scn)
    start = Table.initial(scn)
    sol = Solution(scn.id, players, False, None, battery=scn.battery, max_program=kmax)

    seen_starts: set[Table] = {start}
    frontier: list[Table] = [start]
    # round_parent[table at round end] = (table at round start, steps)
    round_parent: dict[Table, tuple[Table | None, list[Step]]] = {start: (None, [])}
    states = 0
    for rnd in range(1, scn.battery + 1):
        if progress:
            progress(rnd, len(frontier))
        if not frontier:
            break
        # node key: (table, min(len, kmin)); value: list of (vector) Pareto-minimal
        Key = tuple[Table, int]
        pareto: dict[Key, list[tuple[int, ...]]] = {}
        parent: dict[tuple[Table, int, tuple[int, ...]], tuple[tuple[Table, int, tuple[int, ...]] | None, Step | None]] = {}
        zero = (0,) * len(kinds)
        layer: list[tuple[Table, int, tuple[int, ...]]] = []
        for t in frontier:
            node = (t, 0, zero)
            parent[node] = (None, None)
            layer.append(node)
        ends: list[tuple[Table, int, tuple[int, ...]]] = []
        win: tuple[Table, int, tuple[int, ...]] | None = None
        for depth in range(1, kmax + 1):
            nxt: list[tuple[Table, int, tuple[int, ...]]] = []
            for node in layer:
                table, _, vec = node
                for k in kinds:
                    i = index[k]
                    if vec[i] >= limit[i]:
                        continue
                    v2 = vec[:i] + (vec[i] + 1,) + vec[i + 1 :]
                    for choice, after, outcome in resolve(table, k):
                        if outcome == "lost":
                            continue
                        lc = min(depth, kmin)
                        child = (after, lc, v2)
                        if child in parent:
                            continue
                        key = (after, lc)
                        front = pareto.setdefault(key, [])
                        if any(all(a <= b for a, b in zip(u, v2, strict=True)) for u in front):
                            continue
                        front.append(v2)
                        parent[child] = (node, (k, choice))
                        states += 1
                        if outcome == "won":
                            win = child
                            break
                        nxt.append(child)
                        if depth >= kmin:
                            ends.append(child)
                    if win:
                        break
                if win:
                    break
            if win:
                break
            layer = nxt
        sol.states = states

        def steps_to(node: tuple[Table, int, tuple[int, ...]]) -> tuple[Table, list[Step]]:
            out: list[Step] = []
            cur: tuple[Table, int, tuple[int, ...]] | None = node
            first = node[0]
            while cur is not None:
                p, step = parent[cur]
                if step is not None:
                    out.append(step)
                first = cur[0]
                cur = p
            return first, list(reversed(out))

        if win is not None:
            origin, steps = steps_to(win)
            plan = [steps]
            t: Table | None = origin
            while t is not None:
                prev, st = round_parent[t]
                if prev is None:
                    break
                plan.append(st)
                t = prev
            plan.reverse()
            sol.winnable, sol.rounds, sol.plan = True, rnd, plan
            sol.section = scn.section(scn.battery - (rnd - 1))
            if verify:
                witness = realize(scn, players, plan)
                sol.verified = witness is not None
                sol.witness = witness or []
            return sol
        new_frontier: list[Table] = []
        for node in ends:
            t_end = node[0]
            if t_end in seen_starts:
                continue
            seen_starts.add(t_end)
            origin, steps = steps_to(node)
            round_parent[t_end] = (origin, steps)
            new_frontier.append(t_end)
        frontier = new_frontier
    return sol


# ---------------------------------------------------------------------------- witness


def _assign(hands: Sequence[Sequence[Card]], cards: Sequence[Card], players: int) -> list[int] | None:
    """Seat for each card so that every player plays at least one (backtracking; small sizes)."""
    avail = [Counter(h) for h in hands]
    seats: list[int] = []

    def rec(i: int) -> bool:
        if i == len(cards):
            return True
        remaining = len(cards) - i
        unplayed = [s for s in range(players) if s not in seats]
        if len(unplayed) > remaining:
            return False
        order = sorted(range(players), key=lambda s: (s in seats, -avail[s][cards[i]]))
        for s in order:
            if avail[s][cards[i]] > 0:
                avail[s][cards[i]] -= 1
                seats.append(s)
                if rec(i + 1):
                    return True
                seats.pop()
                avail[s][cards[i]] += 1
        return False

    return seats if rec(0) else None


def _orders(scn: Scenario, plan: list[list[Step]], tries: int, seed: int) -> Iterator[Callable[[QuirkyState, int], Card]]:
    """Chance choosers: first the greedy one (cards needed soonest go first), then randomized ones."""

    def need_order(round_no: int) -> list[Card]:
        return [c for r in plan[round_no - 1 :] for c, _ in r]

    def greedy(state: QuirkyState, round_no: int) -> Card:
        pool = Counter(state.pool)
        placed = Counter(state.placed)
        for c in need_order(round_no if state.round == 1 and not state.deck else round_no + 1):
            if pool[c] > 0 and placed[c] <= 0:
                return c
            placed[c] -= 1
        return sorted(pool)[0]

    yield greedy
    rng = random.Random(seed)
    for _ in range(tries):
        noise = rng.random()

        def noisy(state: QuirkyState, round_no: int, noise: float = noise) -> Card:
            if rng.random() < noise:
                return rng.choice(list(state.pool))
            return greedy(state, round_no)

        yield noisy


def realize(scn: Scenario, players: int, plan: list[list[Step]], tries: int = 200, seed: int = 0) -> list[str] | None:
    """Replay ``plan`` through :class:`QuirkyState` with chosen shuffles; the move/event log if it wins."""
    for chooser in _orders(scn, plan, tries, seed):
        log = _try_realize(scn, players, plan, chooser)
        if log is not None:
            return log
    return None


def _try_realize(
    scn: Scenario, players: int, plan: list[list[Step]], chooser: Callable[[QuirkyState, int], Card]
) -> list[str] | None:
    state = new_state(scn, players)
    log: list[str] = []
    try:
        for rno, steps in enumerate(plan, start=1):
            while state.is_chance_node():
                card = chooser(state, rno)
                ev = ChanceEvent("shuffle", str(card))
                state = state.apply(ev)
                log.append(str(ev))
            cards = [c for c, _ in steps]
            seats = _assign(state.hands, cards, players)
            last = rno == len(plan)
            if seats is None:
                if not last:
                    return None
                seats = _assign(state.hands, cards, 1 if len(cards) < players else players)
                if seats is None:
                    return None
            for seat, card in zip(seats, cards, strict=True):
                mv = Play(seat, card)
                state = state.apply(mv)
                log.append(str(mv))
            while not state.can_go():
                legal = [m for m in state.legal_moves() if isinstance(m, Play)]
                if not legal or not last:
                    return None
                legal.sort(key=lambda p: state.played_by(p.seat) > 0)
                state = state.apply(legal[0])
                log.append(str(legal[0]))
            state = state.apply(Go())
            log.append("go")
            choices = [ch for _, ch in steps if ch]
            while state.phase == "choose":
                tid = choices.pop(0) if choices else state.candidates[0]
                state = state.apply(Take(tid))
                log.append(f"take:{tid}")
            if last:
                return log if state.is_terminal() and state.outcome == "won" and state.round == rno else None
            if state.is_terminal():
                return None
    except GameError:
        return None
    return None
