"""The Quirky Circuits game as an :class:`engine.core.GameState` (rounds, hidden hands, battery).

Rulebook passages (docs/rules/quirky.md): "Preparar" 6-7 (shuffle, deal), "Orden redonda" 1-3
(Program, Execute, Reset), "Fin del juego", "Aclaraciones: Repartir cartas".  Shuffles are explicit
chance events, one card at a time (``ChanceEvent("shuffle", "F2")`` puts an F2 next), so a recorded
game replays exactly; dealing is then deterministic from the deck.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from engine.core import ChanceEvent, GameState, IllegalMoveError, InvalidMoveError, InvalidStateError, Problem
from engine.motion import Heading, Pose
from engine.quirky.cards import Card
from engine.quirky.rules import (
    CardTrace,
    ExecutionResult,
    NeedsChoice,
    Outcome,
    Table,
    TokenState,
    resolve_card,
    table_outcome,
)
from engine.quirky.scenario import Scenario, ScenarioError, builtin_scenario

Phase = Literal["shuffle", "program", "choose", "over"]
TEAM = "team"


@dataclass(frozen=True)
class Play:
    """Program phase: player ``seat`` (0-based) puts ``card`` face down at the right end of the queue."""

    seat: int
    card: Card

    def __str__(self) -> str:
        return f"p{self.seat + 1}:{self.card}"

    def __repr__(self) -> str:
        return f"Play.parse({str(self)!r})"

    @classmethod
    def parse(cls, text: str) -> Play:
        m = re.match(r"^\s*p(\d+)\s*:\s*(\S+)\s*$", text)
        if not m or int(m.group(1)) < 1:
            raise InvalidMoveError(f"invalid play {text!r} (expected 'p<seat>:<card>' such as 'p2:F1')")
        return cls(int(m.group(1)) - 1, Card.parse(m.group(2)))


@dataclass(frozen=True)
class Go:
    """End the Program phase: reveal the queue and execute it ("Orden redonda" 2)."""

    def __str__(self) -> str:
        return "go"

    def __repr__(self) -> str:
        return "Go()"


@dataclass(frozen=True)
class Take:
    """During Execute, the players choose which token a Pick Up takes ("Tokens para compartir espacios")."""

    token: str

    def __str__(self) -> str:
        return f"take:{self.token}"

    def __repr__(self) -> str:
        return f"Take({self.token!r})"


QuirkyMove = Play | Go | Take


def parse_move(text: str) -> QuirkyMove:
    t = text.strip()
    if t.lower() == "go":
        return Go()
    if t.lower().startswith("take:"):
        return Take(t[5:].strip())
    return Play.parse(t)


@dataclass
class QuirkyState(GameState[QuirkyMove]):
    scenario: Scenario
    players: int
    table: Table
    battery: int
    round: int = 1
    phase: Phase = "shuffle"
    hands: tuple[tuple[Card, ...], ...] = ()
    deck: tuple[Card, ...] = ()  # top first
    queue: tuple[tuple[int, Card], ...] = ()
    pool: tuple[Card, ...] = ()  # cards still to be shuffled (sorted)
    placed: tuple[Card, ...] = ()  # cards shuffled so far, in order
    exec_index: int = 0
    traces: tuple[CardTrace, ...] = ()  # this round's resolved cards
    candidates: tuple[str, ...] = ()  # tokens a pending Pick Up may take
    outcome: Outcome = "continue"
    practice: bool = False
    last_execution: ExecutionResult | None = field(default=None, compare=False)

    # ------------------------------------------------------------------ interface
    def current_player(self) -> str | None:
        return TEAM if self.phase in ("program", "choose") else None

    def is_chance_node(self) -> bool:
        return self.phase == "shuffle"

    def chance_outcomes(self) -> Sequence[tuple[ChanceEvent, Fraction]]:
        if self.phase != "shuffle":
            return []
        counts = Counter(self.pool)
        total = len(self.pool)
        return [(ChanceEvent("shuffle", str(c)), Fraction(n, total)) for c, n in sorted(counts.items())]

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def returns(self) -> Mapping[str, float]:
        """Co-operative: every player wins together or loses together ("Fin del juego")."""
        value = 1.0 if self.outcome == "won" else 0.0
        return {f"p{i + 1}": value for i in range(self.players)}

    @property
    def hand_size(self) -> int:
        return self.scenario.hand_size(self.players)

    def played_by(self, seat: int) -> int:
        return sum(1 for s, _ in self.queue if s == seat)

    def _may_play(self, card: Card) -> bool:
        """Quirk cards named in the scenario's ``first`` list go before every other card."""
        first = self.scenario.first
        return card.code not in first or all(c.code in first for _, c in self.queue)

    def can_go(self) -> bool:
        """Program rule: every player at least 1 card, at least 5 in all ("Orden redonda" 1).  A player
        who holds no playable card is excused (interpretation, docs/rules/quirky.md)."""
        if self.phase != "program":
            return False
        plays = self._plays()
        if not plays:
            return len(self.queue) > 0
        if len(self.queue) < 5:
            return False
        return all(self.played_by(s) >= 1 or not any(p.seat == s for p in plays) for s in range(self.players))

    def _plays(self) -> list[Play]:
        out: list[Play] = []
        for seat, hand in enumerate(self.hands):
            for card in sorted(set(hand)):
                if self._may_play(card):
                    out.append(Play(seat, card))
        return out

    def legal_moves(self) -> Sequence[QuirkyMove]:
        if self.phase == "program":
            moves: list[QuirkyMove] = list(self._plays())
            if self.can_go():
                moves.append(Go())
            return moves
        if self.phase == "choose":
            return [Take(t) for t in self.candidates]
        return []

    def apply(self, move: QuirkyMove | ChanceEvent) -> QuirkyState:
        if isinstance(move, ChanceEvent):
            return self._apply_chance(move)
        if self.phase == "program":
            if isinstance(move, Play):
                if not 0 <= move.seat < self.players:
                    raise IllegalMoveError(
                        f"no player {str(move).split(':')[0]!r} in a {self.players}-player game"
                    )
                hand = list(self.hands[move.seat])
                if move.card not in hand:
                    raise IllegalMoveError(f"player p{move.seat + 1} has no {str(move.card)!r} card in hand")
                if not self._may_play(move.card):
                    raise IllegalMoveError(
                        f"{str(move.card)!r} is a quirk card that must be played before the other cards"
                    )
                hand.remove(move.card)
                hands = list(self.hands)
                hands[move.seat] = tuple(hand)
                return replace(self, hands=tuple(hands), queue=(*self.queue, (move.seat, move.card)))
            if isinstance(move, Go):
                if not self.can_go():
                    raise IllegalMoveError(
                        "cannot execute yet: every player must play at least 1 card and at least 5 in all "
                        f"(queue has {len(self.queue)})"
                    )
                return replace(self, phase="choose", exec_index=0, traces=(), candidates=())._execute(None)
        if self.phase == "choose" and isinstance(move, Take):
            if move.token not in self.candidates:
                raise IllegalMoveError(
                    f"cannot take {move.token!r} (choose one of {', '.join(self.candidates)})"
                )
            return self._execute(move.token)
        raise IllegalMoveError(f"move {str(move)!r} is not legal in the {self.phase} phase")

    # ------------------------------------------------------------------ phases
    def _apply_chance(self, event: ChanceEvent) -> QuirkyState:
        if self.phase != "shuffle" or event.kind != "shuffle":
            raise IllegalMoveError(f"chance event {str(event)!r} is not expected in the {self.phase} phase")
        card = Card.parse(str(event.value))
        pool = list(self.pool)
        if card not in pool:
            raise IllegalMoveError(f"shuffle event {str(event)!r}: no such card left to shuffle")
        pool.remove(card)
        state = replace(self, pool=tuple(pool), placed=(*self.placed, card))
        if pool:
            return state
        # shuffled pile goes to the bottom of the deck ("Restablecer"; at set-up it is the whole deck)
        state = replace(state, deck=(*self.deck, *state.placed), placed=(), phase="program", queue=())
        return state._deal()

    def _deal(self) -> QuirkyState:
        """Rulebook, "Aclaraciones: Repartir cartas": start with a player holding the fewest cards (the
        lowest seat among ties), go clockwise, skip players whose hand is full."""
        hands = [list(h) for h in self.hands] if self.hands else [[] for _ in range(self.players)]
        deck = list(self.deck)
        size = self.hand_size
        fewest = min(len(h) for h in hands)
        seat = next(i for i, h in enumerate(hands) if len(h) == fewest)
        while deck and any(len(h) < size for h in hands):
            if len(hands[seat]) < size:
                hands[seat].append(deck.pop(0))
            seat = (seat + 1) % self.players
        return replace(self, hands=tuple(tuple(sorted(h)) for h in hands), deck=tuple(deck))

    def _execute(self, choice: str | None) -> QuirkyState:
        table = self.table
        traces = list(self.traces)
        outcome: Outcome = "continue"
        i = self.exec_index
        cards = [c for _, c in self.queue]
        while i < len(cards):
            try:
                trace = resolve_card(self.scenario, table, cards[i], i, choice)
            except NeedsChoice as need:
                return replace(
                    self,
                    table=table,
                    traces=tuple(traces),
                    exec_index=i,
                    candidates=need.candidates,
                    phase="choose",
                )
            choice = None
            traces.append(trace)
            table = trace.after
            i += 1
            if trace.outcome != "continue":
                outcome = trace.outcome
                break
        result = ExecutionResult(
            tuple(traces), self.traces[0].before if self.traces else self.table, table, outcome, tuple(cards)
        )
        state = replace(
            self, table=table, traces=tuple(traces), exec_index=i, candidates=(), last_execution=result
        )
        if outcome != "continue":
            return replace(state, phase="over", outcome=outcome)
        # Reset ("Orden redonda" 3): queue shuffled to the bottom, battery down one, refill hands
        battery = self.battery - 1
        if battery <= 0:
            return replace(state, battery=0, phase="over", outcome="lost")
        return replace(
            state,
            battery=battery,
            round=self.round + 1,
            phase="shuffle",
            pool=tuple(sorted(cards)),
            placed=(),
            queue=(),
            traces=(),
            exec_index=0,
        )

    # ------------------------------------------------------------------ info
    @property
    def section(self) -> str:
        """Battery section now (the rulebook's yellow/green achievement levels when won)."""
        return self.scenario.section(self.battery)

    def to_json(self) -> dict[str, Any]:
        doc = {
            "game": "quirky",
            "scenario": self.scenario.id,
            "players": self.players,
            "round": self.round,
            "battery": self.battery,
            "phase": self.phase,
            "practice": self.practice,
        }
        doc |= self.table.to_json()
        doc |= {
            "hands": [[str(c) for c in h] for h in self.hands],
            "deck": [str(c) for c in self.deck],
            "queue": [[f"p{s + 1}", str(c)] for s, c in self.queue],
            "pool": [str(c) for c in self.pool],
            "placed": [str(c) for c in self.placed],
            "exec_index": self.exec_index,
            "candidates": list(self.candidates),
            "outcome": self.outcome,
        }
        return doc

    @classmethod
    def from_json(cls, doc: Any, scenario: Scenario | None = None) -> QuirkyState:
        """Read a state document (raises :class:`InvalidStateError` when it is malformed)."""
        r = _Reader(doc)
        scn = scenario or r.scenario()
        table = r.table(scn)
        phase = r.get("phase", str, "program")
        if phase not in ("shuffle", "program", "choose", "over"):
            raise InvalidStateError(f"phase must be 'shuffle', 'program', 'choose' or 'over', got {phase!r}")
        candidates = r.get("candidates", list, [])
        if not all(isinstance(c, str) for c in candidates):
            raise InvalidStateError(f"candidates must list token ids, got {candidates!r}")
        players = r.get("players", int)
        queue: list[tuple[int, Card]] = []
        for item in r.get("queue", list, []):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], str)):
                raise InvalidStateError(f"queue entries must be ['p<seat>', 'CARD'], got {item!r}")
            p = Play.parse(f"{item[0]}:{item[1]}")
            queue.append((p.seat, p.card))
        outcome = r.get("outcome", str, "continue")
        if outcome not in ("won", "lost", "continue"):
            raise InvalidStateError(f"outcome must be won, lost or continue, got {outcome!r}")
        return cls(
            scn,
            players,
            table,
            r.get("battery", int),
            r.get("round", int, 1),
            phase,  # type: ignore[arg-type]
            tuple(tuple(sorted(r.cards(h, "hands"))) for h in r.get("hands", list, [])),
            tuple(r.cards(r.get("deck", list, []), "deck")),
            tuple(queue),
            tuple(sorted(r.cards(r.get("pool", list, []), "pool"))),
            tuple(r.cards(r.get("placed", list, []), "placed")),
            r.get("exec_index", int, 0),
            (),
            tuple(candidates),
            outcome,  # type: ignore[arg-type]
            bool(r.get("practice", bool, False)),
        )


def new_state(scenario: Scenario | str, players: int = 3, practice: bool = False) -> QuirkyState:
    """Set-up ("Preparar"): robot on Q, battery at the top of the track, deck to be shuffled, then dealt.

    The returned state is a chance node: apply ``shuffle`` events (or :func:`shuffled`) to deal.
    """
    scn = builtin_scenario(scenario) if isinstance(scenario, str) else scenario
    scn.hand_size(players)  # raises for an unsupported player count
    return QuirkyState(
        scn,
        players,
        Table.initial(scn),
        scn.battery,
        1,
        "shuffle",
        tuple(() for _ in range(players)),
        (),
        (),
        tuple(scn.deck_list()),
        (),
        practice=practice,
    )


def shuffled(state: QuirkyState, rng: Any) -> QuirkyState:
    """Apply sampled chance events until the state is no longer a chance node."""
    while state.is_chance_node():
        state = state.apply(state.sample_chance(rng))
    return state


# ---------------------------------------------------------------------------- documents


class _Reader:
    def __init__(self, doc: Any) -> None:
        if not isinstance(doc, dict):
            raise InvalidStateError(
                f"a Quirky Circuits state must be a JSON object, got {type(doc).__name__}"
            )
        if doc.get("game") != "quirky":
            raise InvalidStateError(
                f"not a Quirky Circuits state: game is {doc.get('game')!r}, expected 'quirky'"
            )
        self.doc = doc

    def get(self, key: str, typ: type, default: Any = ...) -> Any:
        if key not in self.doc:
            if default is ...:
                raise InvalidStateError(f"Quirky state has no {key!r}")
            return default
        v = self.doc[key]
        if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
            raise InvalidStateError(f"{key} must be {typ.__name__}, got {v!r}")
        return v

    def scenario(self) -> Scenario:
        sid = self.get("scenario", str)
        try:
            return builtin_scenario(sid)
        except ScenarioError as exc:
            raise InvalidStateError(str(exc)) from None

    def cards(self, items: Any, what: str) -> list[Card]:
        if not isinstance(items, list):
            raise InvalidStateError(f"{what} must be a list of cards, got {items!r}")
        out = []
        for c in items:
            if not isinstance(c, str):
                raise InvalidStateError(f"{what}: a card must be a string, got {c!r}")
            try:
                out.append(Card.parse(c))
            except InvalidMoveError as exc:
                raise InvalidStateError(f"{what}: {exc}") from None
        return out

    def table(self, scn: Scenario) -> Table:
        robot = self.get("robot", dict)
        at = robot.get("at")
        if not (isinstance(at, list) and len(at) == 2 and all(isinstance(v, int) for v in at)):
            raise InvalidStateError(f"robot.at must be [x, y], got {at!r}")
        facing = robot.get("facing")
        if facing not in ("N", "E", "S", "W"):
            raise InvalidStateError(f"robot.facing must be N, E, S or W, got {facing!r}")
        mom = self.doc.get("momentum")
        if mom is not None and mom not in ("N", "E", "S", "W"):
            raise InvalidStateError(f"momentum must be null or N, E, S, W, got {mom!r}")
        tokens = []
        for t in self.get("tokens", list, []):
            if not isinstance(t, dict) or not isinstance(t.get("id"), str):
                raise InvalidStateError(f"tokens entries need an 'id', got {t!r}")
            tat = t.get("at")
            if tat is not None and not (
                isinstance(tat, list) and len(tat) == 2 and all(isinstance(v, int) for v in tat)
            ):
                raise InvalidStateError(f"token {t['id']!r}: at must be [x, y] or null, got {tat!r}")
            kind = t.get("kind", t["id"])
            tokens.append(
                TokenState(
                    t["id"],
                    str(kind),
                    tuple(tat) if tat else None,  # type: ignore[arg-type]
                    bool(t.get("broken", False)),
                    bool(t.get("long", False)),
                    bool(t.get("fixed", False)),
                )
            )
        held = self.get("held", list, [""] * scn.slots)
        bag = self.get("bag", list, [])
        for v in (*held, *bag):
            if not isinstance(v, str):
                raise InvalidStateError(f"held and bag list token ids, got {v!r}")
        return Table(
            Pose(at[0], at[1], Heading[facing]),
            tuple(tokens),
            tuple(held),
            tuple(bag),
            Heading[mom] if mom else None,
        )


def validate_state(doc: Any, scenario: Scenario | None = None) -> list[Problem]:
    """Check a Quirky Circuits table document against the rules and its scenario.

    Never raises for rule problems (returns them); raises :class:`InvalidStateError` only when the
    document cannot be read as a Quirky state at all.
    """
    state = QuirkyState.from_json(doc, scenario)
    scn = state.scenario
    board = scn.board
    problems: list[Problem] = []

    def add(code: str, message: str, where: str = "", rule: str = "") -> None:
        problems.append(Problem(code, message, where, rule))

    t = state.table
    if state.players not in scn.hands:
        add(
            "players",
            f"scenario {scn.id!r} is played by {', '.join(map(str, sorted(scn.hands)))} players, "
            f"not {state.players!r}",
            "players",
            "Quirky rulebook, Preparar 7 (hand-size table)",
        )
    if not board.on_board(t.cell):
        add(
            "robot-off-board",
            f"robot at {list(t.cell)!r} is off the {board.width}x{board.height} board",
            "robot",
            "scenario board",
        )
    elif t.cell in board.obstacles:
        add(
            "robot-on-obstacle", f"robot at {list(t.cell)!r} stands on an obstacle", "robot", "scenario board"
        )
    if not 0 <= state.battery <= scn.battery:
        add(
            "battery",
            f"battery {state.battery!r} is not on the track 0..{scn.battery}",
            "battery marker",
            "Quirky rulebook, Preparar 4",
        )
    if t.momentum is not None and scn.robot != "twirl":
        add(
            "momentum",
            f"only Twirl has a momentum marker, this scenario's robot is {scn.robot!r}",
            "momentum marker",
            "Quirky rulebook, Momento de Twirl",
        )
    # tokens
    spec = {s.id: s for s in scn.tokens}
    seen = set()
    for tok in t.tokens:
        if tok.id not in spec:
            add(
                "unknown-token",
                f"token {tok.id!r} is not part of scenario {scn.id!r}",
                f"token {tok.id}",
                "scenario tokens",
            )
            continue
        seen.add(tok.id)
        if tok.kind != spec[tok.id].kind:
            add(
                "token-kind",
                f"token {tok.id!r} is a {spec[tok.id].kind!r}, not {tok.kind!r}",
                f"token {tok.id}",
                "scenario tokens",
            )
        if tok.at is None:
            if not t.is_held(tok.id):
                add(
                    "token-nowhere",
                    f"token {tok.id!r} is neither on the board nor held",
                    f"token {tok.id}",
                    "scenario tokens",
                )
        else:
            if t.is_held(tok.id):
                add(
                    "token-twice",
                    f"token {tok.id!r} is held and also on the board at {list(tok.at)!r}",
                    f"token {tok.id}",
                    "scenario tokens",
                )
            if not board.on_board(tok.at):
                add(
                    "token-off-board",
                    f"token {tok.id!r} at {list(tok.at)!r} is off the board",
                    f"token {tok.id}",
                    "scenario board",
                )
            elif tok.at in board.obstacles and tok.at != spec[tok.id].at:
                add(
                    "token-on-obstacle",
                    f"token {tok.id!r} at {list(tok.at)!r} lies on an obstacle it did not start on",
                    f"token {tok.id}",
                    "docs/rules/quirky.md, Items on obstacles",
                )
    for sid in spec:
        if sid not in seen:
            add(
                "missing-token",
                f"token {sid!r} of scenario {scn.id!r} is missing",
                f"token {sid}",
                "Quirky rulebook, Preparar 5",
            )
    if len(t.held) != scn.slots:
        add(
            "held",
            f"{scn.robot} has {scn.slots} carrying slot(s), the document lists {len(t.held)}",
            "robot",
            "docs/rules/quirky.md, Robots",
        )
    if t.bag and scn.robot != "gizmo":
        add(
            "bag",
            f"only Gizmo vacuums tokens, the scenario's robot is {scn.robot!r}",
            "robot",
            "docs/rules/quirky.md, Robots",
        )
    # cards
    have = Counter(
        [c for h in state.hands for c in h]
        + list(state.deck)
        + [c for _, c in state.queue]
        + list(state.pool)
        + list(state.placed)
    )
    want = Counter(scn.deck)
    if have != want:
        extra = have - want
        short = want - have
        parts = []
        if extra:
            parts.append("extra " + ", ".join(f"{n}x {c}" for c, n in sorted(extra.items())))
        if short:
            parts.append("missing " + ", ".join(f"{n}x {c}" for c, n in sorted(short.items())))
        add(
            "deck",
            "command cards do not match the scenario's deck: " + "; ".join(parts),
            "command cards",
            "Quirky rulebook, Preparar 2 and 5",
        )
    if state.phase == "program" and state.players in scn.hands:
        size = scn.hands[state.players]
        if len(state.hands) != state.players:
            add(
                "hands",
                f"{len(state.hands)} hands listed for {state.players} players",
                "hands",
                "Quirky rulebook, Preparar 7",
            )
        for i, h in enumerate(state.hands):
            n = len(h) + state.played_by(i)
            if n > size or (n < size and state.deck):
                add(
                    "hand-size",
                    f"player p{i + 1} has {n} cards (in hand and played), the hand size for "
                    f"{state.players} players is {size}",
                    f"player p{i + 1}",
                    "Quirky rulebook, Preparar 7 and Repartir cartas",
                )
    setup = state.phase == "program" and state.round == 1 and not state.queue
    if setup:
        if t.pose != board.start:
            add(
                "start",
                f"the robot must start on Q {board.start.x},{board.start.y} facing "
                f"{board.start.heading.name}, it is at {t.pose}",
                "robot",
                "Quirky rulebook, Preparar 3",
            )
        if state.battery != scn.battery:
            add(
                "battery-start",
                f"the battery marker must start on the top space {scn.battery}, it is on {state.battery}",
                "battery marker",
                "Quirky rulebook, Preparar 4",
            )
        for tok in t.tokens:
            s = spec.get(tok.id)
            if s and (tok.at != s.at or tok.broken):
                add(
                    "token-start",
                    f"token {tok.id!r} must start at {list(s.at)!r}"
                    + (" unbroken" if tok.broken else f", it is at {list(tok.at) if tok.at else None!r}"),
                    f"token {tok.id}",
                    "Quirky rulebook, Preparar 5",
                )
        if t.momentum is not None or any(t.held) or t.bag:
            add(
                "start-carry",
                "at set-up the robot carries nothing and has no momentum",
                "robot",
                "Quirky rulebook, Preparar 3",
            )
    if state.outcome == "continue" and table_outcome(scn, t) == "won" and state.phase != "over":
        add(
            "already-won",
            "the objective is already complete on this table",
            "objective",
            "Quirky rulebook, Fin del juego",
        )
    return problems
