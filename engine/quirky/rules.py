"""Resolving Quirky Circuits command cards into robot motions (the Execute phase).

Rulebook (docs/rules/quirky.md cites every passage): "2. Ejecutar" -- the queue is revealed and
resolved left to right; "Detención" -- whatever stops the robot ends the current card and play goes
on with the next; "Fin del juego" -- the objective wins *immediately*, so resolution stops at the
primitive motion that completes it.  Every card becomes a list of :class:`engine.motion.Motion`
primitives, each with the pose the robot figure must have afterwards: the exact input the hardware
layer executes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from engine.core import IllegalMoveError
from engine.motion import Heading, Motion, MotionKind, Pose
from engine.quirky.cards import Card
from engine.quirky.scenario import Cell, Scenario

Outcome = Literal["won", "lost", "continue"]


@dataclass(frozen=True, order=True)
class TokenState:
    """A token on the table: ``at`` is its space (``None`` while a robot holds it)."""

    id: str
    kind: str
    at: Cell | None
    broken: bool = False
    long: bool = False
    fixed: bool = False


@dataclass(frozen=True)
class Table:
    """Everything on the table that cards change: robot pose, momentum marker, carried tokens, tokens.

    ``held`` has one entry per carrying slot (Rover's bed; Penny's right hand then left hand), ``""``
    when empty; ``bag`` lists what Gizmo has vacuumed.  ``tokens`` is in stacking order: a later
    token on the same space lies on top.  Hashable, so the solver can search over it.
    """

    pose: Pose
    tokens: tuple[TokenState, ...]
    held: tuple[str, ...] = ()
    bag: tuple[str, ...] = ()
    momentum: Heading | None = None

    def __hash__(self) -> int:
        # cached: the solver hashes tables millions of times
        h: int | None = self.__dict__.get("_hash")
        if h is None:
            h = hash(
                (
                    self.pose.x,
                    self.pose.y,
                    self.pose.heading.name,
                    self.tokens,
                    self.held,
                    self.bag,
                    self.momentum.name if self.momentum else "",
                )
            )
            object.__setattr__(self, "_hash", h)
        return h

    @classmethod
    def initial(cls, scn: Scenario) -> Table:
        """The set-up: robot on the Q space facing the scenario's direction (rulebook, "Preparar" 3)."""
        return cls(
            scn.board.start,
            tuple(TokenState(t.id, t.kind, t.at, False, t.long, t.fixed) for t in scn.tokens),
            ("",) * scn.slots,
        )

    @property
    def cell(self) -> Cell:
        return (self.pose.x, self.pose.y)

    def token(self, tid: str) -> TokenState:
        for t in self.tokens:
            if t.id == tid:
                return t
        raise KeyError(tid)

    def is_held(self, tid: str) -> bool:
        return tid in self.held or tid in self.bag

    def to_json(self) -> dict[str, Any]:
        return {
            "robot": {"at": [self.pose.x, self.pose.y], "facing": self.pose.heading.name},
            "momentum": self.momentum.name if self.momentum else None,
            "held": list(self.held),
            "bag": list(self.bag),
            "tokens": [
                {"id": t.id, "kind": t.kind, "at": list(t.at) if t.at else None, "broken": t.broken}
                | ({"long": True} if t.long else {})
                | ({"fixed": True} if t.fixed else {})
                for t in self.tokens
            ],
        }


def objective_met(scn: Scenario, table: Table) -> bool:
    """The scenario objective (rulebook, "Fin del juego": all players win immediately)."""
    obj = scn.objective
    for kind in obj.collect:
        if any(t.kind == kind and not table.is_held(t.id) for t in table.tokens):
            return False
    if obj.reach is not None and (
        table.cell != obj.reach or (obj.facing is not None and table.pose.heading != obj.facing)
    ):
        return False
    return all(table.token(tid).at == cell and not table.is_held(tid) for tid, cell in obj.deliver)


def objective_lost(scn: Scenario, table: Table) -> bool:
    """Scenario rule ``intact``: breaking a token of these kinds loses at once."""
    return any(t.broken and t.kind in scn.objective.intact for t in table.tokens)


def table_outcome(scn: Scenario, table: Table) -> Outcome:
    if objective_lost(scn, table):
        return "lost"
    if objective_met(scn, table):
        return "won"
    return "continue"


@dataclass(frozen=True)
class CardTrace:
    """One resolved card: its primitive motions and what happened."""

    index: int
    card: Card
    motions: tuple[Motion, ...]
    before: Table
    after: Table
    collided: bool = False
    stopped: bool = False
    ignored: bool = False
    outcome: Outcome = "continue"
    notes: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "card": str(self.card),
            "motions": [str(m) for m in self.motions],
            "pose": str(self.after.pose),
            "collided": self.collided,
            "stopped": self.stopped,
            "ignored": self.ignored,
            "momentum": self.after.momentum.name if self.after.momentum else None,
            "outcome": self.outcome,
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class ExecutionResult:
    """A resolved program: per-card traces, the flat motion list, the final table and the outcome."""

    cards: tuple[CardTrace, ...]
    start: Table
    final: Table
    outcome: Outcome
    program: tuple[Card, ...] = field(default=())

    @property
    def motions(self) -> list[Motion]:
        return [m for c in self.cards for m in c.motions]

    @property
    def by_card(self) -> dict[int, list[Motion]]:
        return {c.index: list(c.motions) for c in self.cards}

    @property
    def resolved(self) -> int:
        """How many cards were resolved (fewer than the program when the game ended mid-queue)."""
        return len(self.cards)

    def to_json(self) -> dict[str, Any]:
        return {
            "program": [str(c) for c in self.program],
            "start": str(self.start.pose),
            "cards": [c.to_json() for c in self.cards],
            "motions": [str(m) for m in self.motions],
            "final": self.final.to_json(),
            "outcome": self.outcome,
        }


class NeedsChoice(Exception):
    """Raised inside resolution when a pick-up has several tokens to choose from and no choice was given."""

    def __init__(self, candidates: tuple[str, ...]) -> None:
        super().__init__(candidates)
        self.candidates = candidates


class _Ignore(Exception):
    """Rover's rule: the command would drop part of a token through a barrier."""


class _End(Exception):
    """The game ended (objective met or lost) in the middle of a card."""


class _Run:
    """Mutable scratch state while one card resolves."""

    def __init__(self, scn: Scenario, table: Table) -> None:
        self.scn = scn
        self.board = scn.board
        self.pose = table.pose
        self.tokens = list(table.tokens)
        self.held = list(table.held)
        self.bag = list(table.bag)
        self.momentum = table.momentum
        self.motions: list[Motion] = []
        self.notes: list[str] = []
        self.collided = False
        self.stopped = False
        self.outcome: Outcome = "continue"

    # -- state
    def table(self) -> Table:
        return Table(self.pose, tuple(self.tokens), tuple(self.held), tuple(sorted(self.bag)), self.momentum)

    @property
    def cell(self) -> Cell:
        return (self.pose.x, self.pose.y)

    def _tok_index(self, tid: str) -> int:
        return next(i for i, t in enumerate(self.tokens) if t.id == tid)

    def emit(self, kind: MotionKind, arg: str = "") -> None:
        self.motions.append(Motion(kind, self.pose, arg))
        self._check_rover()
        outcome = self.quick_outcome()
        if outcome != "continue":
            self.outcome = outcome
            raise _End

    def quick_outcome(self) -> Outcome:
        """:func:`table_outcome` on the scratch state (without building a Table)."""
        obj = self.scn.objective
        if obj.intact and any(t.broken and t.kind in obj.intact for t in self.tokens):
            return "lost"
        if obj.reach is not None and (
            self.cell != obj.reach or (obj.facing is not None and self.pose.heading != obj.facing)
        ):
            return "continue"
        if obj.collect or obj.deliver:
            return table_outcome(self.scn, self.table())
        return "won"

    def _check_rover(self) -> None:
        """Rulebook, "Dejar caer tokens a través de barreras": a long token overhangs the space behind
        Rover; if any part would end beyond a barrier the whole command is ignored."""
        if self.scn.robot != "rover":
            return
        for tid in self.held:
            if tid and self.tokens[self._tok_index(tid)].long:
                h = self.pose.heading
                tail = (self.pose.x - h.dx, self.pose.y - h.dy)
                if self.board.barrier(self.cell, tail):
                    raise _Ignore

    # -- primitives
    def turn(self, left: bool) -> None:
        h = self.pose.heading.left() if left else self.pose.heading.right()
        self.pose = Pose(self.pose.x, self.pose.y, h)
        self.emit(MotionKind.TURN_LEFT if left else MotionKind.TURN_RIGHT)

    def step(self, direction: Heading, how: Literal["forward", "backward", "slide"]) -> bool:
        """Move one space; returns False when the move stopped (collision or spin space)."""
        kinds = {
            "forward": (MotionKind.FORWARD, MotionKind.BUMP_FORWARD),
            "backward": (MotionKind.BACKWARD, MotionKind.BUMP_BACKWARD),
            "slide": (MotionKind.SLIDE, MotionKind.BUMP_SLIDE),
        }[how]
        arg = direction.name if how == "slide" else ""
        here = self.cell
        there = (here[0] + direction.dx, here[1] + direction.dy)
        if self.board.barrier(here, there) or there in self.board.obstacles:
            self.collided = self.stopped = True
            if there in self.board.obstacles and not self.board.barrier(here, there):
                self._topple(there, direction)
            self.emit(kinds[1], arg)
            return False
        self.pose = Pose(there[0], there[1], self.pose.heading)
        self.emit(kinds[0], arg)
        return self.enter()

    def _topple(self, obstacle: Cell, direction: Heading) -> None:
        """Items on an obstacle fall one space away from the robot and break (issue 6, "Robots and
        quirks"; docs/rules/quirky.md "Items on obstacles"): onto the space beyond the obstacle, or, if
        that is not open floor, onto the robot's own space."""
        beyond = (obstacle[0] + direction.dx, obstacle[1] + direction.dy)
        if self.board.barrier(obstacle, beyond) or beyond in self.board.obstacles:
            beyond = self.cell
        fallen = [t for t in self.tokens if t.at == obstacle]
        for t in fallen:
            self.tokens.remove(t)
            self.tokens.append(replace(t, at=beyond, broken=True))
            self.notes.append(f"{t.id} fell from the obstacle at {obstacle} to {beyond} and broke")

    def enter(self) -> bool:
        """Effects of arriving on a space: Gizmo's vacuum, then spin spaces (which end the move)."""
        if self.scn.robot == "gizmo":
            for t in [t for t in self.tokens if t.at == self.cell and t.kind in self.scn.vacuum]:
                i = self._tok_index(t.id)
                self.tokens[i] = replace(t, at=None)
                self.bag.append(t.id)
                self.emit(MotionKind.PICK, t.id)
        spin = self.board.spins.get(self.cell)
        if spin:
            self.stopped = True
            self.notes.append(
                f"spin space {self.cell} ends the move and turns the robot "
                + ("left" if spin == "L" else "right")
            )
            self.turn(spin == "L")
            return False
        return True

    # -- cards
    def forward(self, n: int) -> None:
        for _ in range(n):
            if not self.step(self.pose.heading, "forward"):
                return

    def jump(self, n: int) -> None:
        """Jump n: passes over obstacles, collides at barriers, halts at the last valid space (issue 6)."""
        h = self.pose.heading
        path = [self.cell]
        barrier = False
        for _ in range(n):
            nxt = (path[-1][0] + h.dx, path[-1][1] + h.dy)
            if self.board.barrier(path[-1], nxt):
                barrier = True
                break
            path.append(nxt)
        reached = len(path) - 1
        landing = len(path) - 1
        while landing > 0 and path[landing] in self.board.obstacles:
            landing -= 1
        if landing > 0:
            self.pose = Pose(path[landing][0], path[landing][1], h)
            self.emit(MotionKind.JUMP, str(landing))
        if barrier:
            self.collided = self.stopped = True
            if landing == reached:
                self.emit(MotionKind.BUMP_FORWARD)
        elif landing < reached:
            self.stopped = True
        if landing > 0:
            self.enter()

    def free_slot(self) -> int | None:
        for i, tid in enumerate(self.held):
            if not tid:
                return i
        return None

    def pick(self, choice: str | None) -> None:
        slot = self.free_slot()
        if slot is None:
            self.notes.append("no free hand: Pick Up has no effect")
            return
        candidates = tuple(t.id for t in reversed(self.tokens) if t.at == self.cell and not t.fixed)
        if not candidates:
            self.notes.append("nothing to pick up here")
            return
        if choice is None:
            if len(candidates) > 1:
                raise NeedsChoice(candidates)
            choice = candidates[0]
        if choice not in candidates:
            raise IllegalMoveError(f"cannot pick up {choice!r} here (can pick: {', '.join(candidates)})")
        i = self._tok_index(choice)
        self.tokens[i] = replace(self.tokens[i], at=None)
        self.held[slot] = choice
        self.emit(MotionKind.PICK, choice)

    def drop(self) -> None:
        tid = self.held[0] if self.held else ""
        if not tid:
            self.notes.append("nothing in hand: Drop has no effect")
            return
        self.held[0] = ""
        t = self.tokens.pop(self._tok_index(tid))
        self.tokens.append(replace(t, at=self.cell))  # a dropped token lies on top
        self.emit(MotionKind.DROP, tid)

    def move_token(self, tid: str, target: str) -> None:
        """Rulebook, "Mover objetivos de ficha": one space toward the target, respecting the board; ignored
        if the token is held; toward the holder's space if the target is held."""
        if self.held.count(tid) or tid in self.bag:
            self.notes.append(f"{tid} is held: Move Token ignored")
            return
        i = self._tok_index(tid)
        src = self.tokens[i].at
        assert src is not None
        if target == "robot":
            dest = self.cell
        else:
            t = self.tokens[self._tok_index(target)]
            dest = self.cell if t.at is None else t.at
        dx, dy = dest[0] - src[0], dest[1] - src[1]
        options: list[Cell] = []
        sx = (1 if dx > 0 else -1, 0) if dx else None
        sy = (0, 1 if dy > 0 else -1) if dy else None
        order = [sx, sy] if abs(dx) >= abs(dy) else [sy, sx]
        for d in order:
            if d is not None:
                options.append((src[0] + d[0], src[1] + d[1]))
        for nxt in options:
            if not self.board.barrier(src, nxt) and nxt not in self.board.obstacles:
                moved = self.tokens.pop(i)
                self.tokens.append(replace(moved, at=nxt))
                self.notes.append(f"{tid} moved from {src} to {nxt}")
                out = self.quick_outcome()
                if out != "continue":
                    self.outcome = out
                    raise _End
                return
        self.notes.append(f"{tid} cannot move toward {target}")

    def resolve(self, card: Card, choice: str | None) -> None:
        code = card.code
        if code in ("F1", "F2", "F3"):
            self.forward(int(code[1]))
        elif code == "B1":
            self.step(self.pose.heading.opposite(), "backward")
        elif code == "RL":
            self.turn(True)
        elif code == "RR":
            self.turn(False)
        elif code == "U":
            self.turn(False)
            self.turn(False)
        elif code in ("J2", "J3"):
            self.jump(int(code[1]))
        elif code == "MN":
            self.step(Heading.N, "slide")
        elif code == "RN":
            h = self.pose.heading
            if h is Heading.E:
                self.turn(True)
            elif h is Heading.W:
                self.turn(False)
            elif h is Heading.S:
                self.turn(False)
                self.turn(False)
        elif code == "MT":
            self.move_token(card.token, card.target)
        elif code == "PK":
            self.pick(choice)
        elif code == "DR":
            self.drop()
        elif code == "SW":
            if len(self.held) == 2:
                self.held.reverse()
            else:
                self.notes.append("only a two-handed robot can swap hands")


def resolve_card(
    scn: Scenario, table: Table, card: Card, index: int = 0, choice: str | None = None
) -> CardTrace:
    """Resolve one card from ``table`` (raises :class:`NeedsChoice` if a pick-up must be chosen).

    Twirl's momentum (rulebook, "Momento de Twirl"): after a Forward 2 that did not collide a marker
    points the way she moved; after the *next* card she moves one more space that way and the marker
    goes (unless that card set a new one); a collision removes any marker placed by the current or
    the previous card without resolving it.
    """
    run = _Run(scn, table)
    previous = table.momentum
    try:
        try:
            run.resolve(card, choice)
            if scn.robot == "twirl":
                placed = table.pose.heading if card.code == "F2" and not run.collided else None
                if run.collided:
                    if previous is not None or card.code == "F2":
                        run.notes.append("collision: momentum marker removed without resolving")
                    run.momentum = None
                else:
                    run.momentum = placed
                    if previous is not None:
                        run.notes.append(f"momentum: one more space {previous.name}")
                        run.collided = False
                        run.step(previous, "slide")
                        if run.collided:
                            run.notes.append("collision: momentum marker removed without resolving")
                            run.momentum = None
        except _End:
            pass
    except _Ignore:
        return CardTrace(
            index,
            card,
            (),
            table,
            table,
            ignored=True,
            notes=("Rover would drop part of a token through a barrier: command ignored",),
        )
    after = run.table()
    return CardTrace(
        index,
        card,
        tuple(run.motions),
        table,
        after,
        run.collided,
        run.stopped,
        False,
        run.outcome,
        tuple(run.notes),
    )


def resolve_program(
    scn: Scenario,
    table: Table,
    cards: Sequence[Card],
    choices: Mapping[int, str] | None = None,
) -> ExecutionResult:
    """Resolve a whole queue left to right (rulebook, "2. Ejecutar"), stopping when the game ends.

    ``choices`` maps a card index to the token a Pick Up takes when several share the space
    (rulebook, "Tokens para compartir espacios"); without one the topmost token is taken.
    """
    choices = choices or {}
    for i, tid in choices.items():
        if not 0 <= i < len(cards) or cards[i].code != "PK":
            raise IllegalMoveError(f"choice {tid!r} given for card {i + 1}, which is not a Pick Up card")
    traces: list[CardTrace] = []
    current = table
    outcome: Outcome = table_outcome(scn, table)
    for i, card in enumerate(cards):
        if outcome != "continue":
            break
        try:
            trace = resolve_card(scn, current, card, i, choices.get(i))
        except NeedsChoice as need:
            trace = resolve_card(scn, current, card, i, need.candidates[0])
        traces.append(trace)
        current = trace.after
        outcome = trace.outcome
    return ExecutionResult(tuple(traces), table, current, outcome, tuple(cards))
