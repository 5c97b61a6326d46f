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
    lower_bound: int | None = None
    optimal: bool = False
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
            "lower_bound": self.lower_bound,
            "optimal": self.optimal,
            "states": self.states,
            "max_program": self.max_program,
            "definition": (
                "a shuffle of the scenario's deck exists for which the players win in this many rounds"
            ),
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


@dataclass(frozen=True)
class _FirstRound:
    """A search that starts mid-game (``hint``): this round's table, cards in hand, queue rules."""

    table: Table
    budget: Counter[Card]
    min_cards: int
    max_cards: int
    opened: bool = False


def _search(
    scn: Scenario,
    resolve: _Resolver,
    kmin: int,
    kmax: int,
    limited: bool,
    keep: int,
    progress: Callable[[int, int], None] | None,
    max_rounds: int | None = None,
    first_round: _FirstRound | None = None,
) -> tuple[int | None, list[list[Step]], int]:
    """Breadth-first over rounds; inside a round breadth-first over cards.

    ``limited``: a round's queue and the previous round's queue together use no more copies of a card
    than the deck holds (the previous queue lies at the bottom of the deck, so its cards are generally
    not back in hand yet -- "Restablecer"), keeping up to ``keep`` Pareto-best card budgets per
    (table, cards played).  Unlimited: any number of copies, an over-approximation whose round count
    is a lower bound and whose failure proves the scenario cannot be won.
    """
    kinds = sorted(scn.deck)
    n = len(kinds)
    counts = tuple(scn.deck[k] for k in kinds) if limited else (kmax,) * n
    zero = (0,) * n
    start = first_round.table if first_round else Table.initial(scn)
    # a round start: the table and the budget (cards not used by the previous round)
    Start = tuple[Table, tuple[int, ...]]
    budget0 = counts
    if first_round is not None and limited:
        budget0 = tuple(first_round.budget.get(k, 0) for k in kinds)
    first: Start = (start, budget0)
    seen_starts: dict[Table, list[tuple[int, ...]]] = {start: [budget0]}
    frontier: list[Start] = [first]
    round_parent: dict[Start, tuple[Start | None, list[Step]]] = {first: (None, [])}
    states = 0
    # node: (table, min(cards, kmin) [+ 100 once a non-quirk card is down], budget left, used, origin)
    Node = tuple[Table, int, tuple[int, ...], tuple[int, ...], int]
    quirk = [k.code in scn.first for k in kinds]
    for rnd in range(1, (max_rounds or scn.battery) + 1):
        if progress:
            progress(rnd, len(frontier))
        if not frontier:
            break
        pareto: dict[tuple[Table, int], list[tuple[int, ...]]] = {}
        parent: dict[Node, tuple[Node | None, Step | None]] = {}
        layer: list[Node] = []
        tag0 = 100 if (rnd == 1 and first_round is not None and first_round.opened) else 0
        for oi, (t, budget) in enumerate(frontier):
            node = (t, tag0, budget, zero, oi)
            parent[node] = (None, None)
            layer.append(node)
        ends: list[Node] = []
        win: Node | None = None
        round_kmin, round_kmax = kmin, kmax
        if rnd == 1 and first_round is not None:
            round_kmin, round_kmax = first_round.min_cards, first_round.max_cards
        for depth in range(1, round_kmax + 1):
            nxt: list[Node] = []
            for node in layer:
                table, tag, budget, used, oi = node
                opened = tag >= 100
                for i, k in enumerate(kinds):
                    if budget[i] <= 0 or (opened and quirk[i]):
                        continue
                    lc = min(depth, round_kmin) + (0 if quirk[i] and not opened else 100)
                    if limited:
                        b2 = (*budget[:i], budget[i] - 1, *budget[i + 1 :])
                        u2 = (*used[:i], used[i] + 1, *used[i + 1 :])
                        score = b2 + tuple(-x for x in u2)
                    else:
                        b2, u2, score = budget, used, ()
                    for choice, after, outcome in resolve(table, k):
                        if outcome == "lost":
                            continue
                        key = (after, lc)
                        front = pareto.get(key)
                        if front is None:
                            front = pareto[key] = []
                        elif len(front) >= keep or any(
                            all(a >= b for a, b in zip(f, score, strict=True)) for f in front
                        ):
                            continue
                        front.append(score)
                        child = (after, lc, b2, u2, oi)
                        parent[child] = (node, (k, choice))
                        states += 1
                        if outcome == "won":
                            win = child
                            break
                        nxt.append(child)
                        if depth >= round_kmin:
                            ends.append(child)
                    if win:
                        break
                if win:
                    break
            if win or not nxt:
                break
            layer = nxt

        def steps_to(
            node: Node,
            parent: dict[Node, tuple[Node | None, Step | None]] = parent,
            frontier: list[Start] = frontier,
        ) -> tuple[Start, list[Step]]:
            out: list[Step] = []
            cur: Node | None = node
            while cur is not None:
                p, step = parent[cur]
                if step is not None:
                    out.append(step)
                cur = p
            return frontier[node[4]], list(reversed(out))

        if win is not None:
            origin, steps = steps_to(win)
            plan = [steps]
            rs: Start | None = origin
            while rs is not None:
                prev, st = round_parent[rs]
                if prev is None:
                    break
                plan.append(st)
                rs = prev
            plan.reverse()
            return rnd, plan, states
        new_frontier: list[Start] = []
        for node in ends:
            t_end, used = node[0], node[3]
            budget = tuple(c - u for c, u in zip(counts, used, strict=True))
            fronts = seen_starts.setdefault(t_end, [])
            if len(fronts) >= keep or any(
                all(a >= b for a, b in zip(f, budget, strict=True)) for f in fronts
            ):
                continue
            fronts.append(budget)
            rs2: Start = (t_end, budget)
            round_parent[rs2] = steps_to(node)
            new_frontier.append(rs2)
        frontier = new_frontier
    return None, [], states


def solve(
    scn: Scenario,
    players: int = 3,
    max_program: int | None = None,
    keep: int = 2,
    verify: bool = True,
    progress: Callable[[int, int], None] | None = None,
) -> Solution:
    """Fewest rounds to win ``scn`` (see the module docstring for the exact meaning).

    Two searches: an over-approximation (unlimited copies of each card, queues up to the players'
    whole hands) gives a lower bound on the rounds and proves a scenario unwinnable when it finds no
    win; the deck-exact search (queues up to ``max_program`` cards) finds a plan, which is replayed
    through the game.  ``optimal`` is true when the two round counts agree.
    """
    hand = scn.hand_size(players)
    kmin = max(5, players)
    kmax = max(kmin, min(players * hand, max_program or players * hand))
    resolve = _Resolver(scn)
    sol = Solution(scn.id, players, False, None, battery=scn.battery, max_program=kmax)
    rounds, plan, s2 = _search(scn, resolve, kmin, kmax, True, keep, progress)
    # lower bound: the over-approximation need only look at the rounds before the plan's last
    lower, _, s1 = _search(
        scn, resolve, kmin, players * hand, False, 1, None, (rounds - 1) if rounds is not None else None
    )
    sol.states = s1 + s2
    if rounds is None:
        sol.lower_bound = lower
        return sol
    sol.lower_bound = lower if lower is not None else rounds
    sol.winnable, sol.rounds, sol.plan = True, rounds, plan
    sol.optimal = sol.lower_bound == rounds
    sol.section = scn.section(scn.battery - (rounds - 1))
    if verify:
        witness = realize(scn, players, plan)
        sol.verified = witness is not None
        sol.witness = witness or []
    return sol


def hint(state: QuirkyState, max_rounds: int | None = None) -> Solution:
    """A clairvoyant hint for the team in the Program phase of ``state`` (``boardside quirky hint``).

    The cards already in the queue are resolved first; the rest of this round may use exactly the
    cards in the players' hands (at least enough to reach 5, at most all of them); later rounds
    follow :func:`solve`'s deck model.  It knows every hand, so it is a teaching aid: the rulebook
    ("Comunicado") forbids players to tell each other this.
    """
    from engine.quirky.rules import resolve_program

    if state.phase != "program":
        raise GameError(f"a hint needs a game in the Program phase, this one is in the {state.phase!r} phase")
    scn = state.scenario
    queued = [c for _, c in state.queue]
    pre = resolve_program(scn, state.table, queued)
    hand_cards = Counter(c for h in state.hands for c in h)
    sol = Solution(scn.id, state.players, False, None, battery=state.battery)
    if pre.outcome == "won":
        sol.winnable, sol.rounds, sol.plan = True, 1, [[(c, "") for c in queued]]
        return sol
    if pre.outcome == "lost":
        return sol
    first = _FirstRound(
        pre.final,
        hand_cards,
        max(1, 5 - len(queued)),
        max(1, sum(hand_cards.values())),
        any(c.code not in scn.first for c in queued),
    )
    hand = scn.hand_size(state.players)
    kmin = max(5, state.players)
    rounds, plan, states = _search(
        scn,
        _Resolver(scn),
        kmin,
        state.players * hand,
        True,
        2,
        None,
        min(max_rounds or state.battery, state.battery),
        first,
    )
    sol.states = states
    if rounds is not None:
        sol.winnable, sol.rounds = True, rounds
        sol.plan = [[(c, "") for c in queued] + plan[0], *plan[1:]]
        sol.section = scn.section(state.battery - (rounds - 1))
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


def _orders(
    scn: Scenario, plan: list[list[Step]], tries: int, seed: int
) -> Iterator[Callable[[QuirkyState, int], Card]]:
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


def realize(
    scn: Scenario, players: int, plan: list[list[Step]], tries: int = 200, seed: int = 0
) -> list[str] | None:
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
