"""The Captura la Bandera game state and its rules (``engine.core.GameState``).

A turn ("En un turno, cada jugador lanza el dado dos veces", rulebook "Modo de juego") is:

1. chance ``place:N`` -- the placement roll (skipped once the supply is empty, "Importante");
2. the placement decisions of the placement table (``place``/``stack``/``pass``);
3. chance ``move:N`` -- the movement roll;
4. movement steps (``cube``/``tower``/``lower``/``royal``/``char``) paid from the roll's
   points, then ``end`` (the turn also ends by itself when no point is left).

Before the first turn a chance event ``start:PLAYER`` decides who begins ("Empieza la partida
el jugador que tras lanzar el dado obtiene la puntuación más alta"): a roll-off with re-rolls of
ties is won by each player with the same probability, so it is one uniform event.  Turns then
pass in seat order (``players``), each player being the previous one's right-hand neighbour.

States are values: :meth:`State.apply` returns a new state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Any, Literal

from engine.bandera import rules
from engine.bandera.board import (
    CENTRE_Y,
    DEFAULT_NAMES,
    LEVEL_ALIASES,
    LEVELS,
    TWO_PLAYER_NAMES,
    ZONE_A,
    ZONE_B,
    ZONE_C,
    Square,
    fmt,
    forbidden_zone_for,
    front_of,
    on_board,
    royal_range,
    start_square,
)
from engine.bandera.moves import END, PASS, PLACE_MOVES, STACK_MOVES, STEP_MOVES, Move, MoveKind, sort_moves
from engine.core import ChanceEvent, GameState, IllegalMoveError, InvalidMoveError, InvalidStateError
from engine.errors import BoardsideInputError
from engine.motion import Heading

Phase = Literal["start", "place_roll", "place", "move_roll", "move", "over"]
PHASES: tuple[str, ...] = ("start", "place_roll", "place", "move_roll", "move", "over")
FORMAT = 1

COST_CUBE = 1
COST_ROYAL = 1
COST_TOWER = 3
COST_LOWER = 5
COST_CHAR = 1
COST_CLIMB = 3
COST_DESCEND = 1
ROYAL_CLIMB_MIN = 4

_D6 = Fraction(1, 6)


class BanderaOptionError(BoardsideInputError):
    """A bad option for a new game (player count, level, names)."""


@dataclass(frozen=True)
class Capture:
    """A captured flag: ``by`` took ``flag``'s flag during turn ``turn``."""

    by: str
    flag: str
    turn: int


def parse_level(level: str) -> str:
    """``easy``/``medium``/``hard`` (also the Spanish ``facil``/``medio``/``dificil``)."""
    key = LEVEL_ALIASES.get(str(level).strip().lower()) if isinstance(level, str) else None
    if key is None:
        raise BanderaOptionError(
            f"unknown level {level!r} (expected easy (22 cubes), medium (18) or hard (14))"
        )
    return key


def default_players(n: int) -> tuple[str, ...]:
    if not isinstance(n, int) or isinstance(n, bool) or not 2 <= n <= 4:
        raise BanderaOptionError(f"Captura la Bandera is for 2 to 4 players, got {n!r}")
    return TWO_PLAYER_NAMES if n == 2 else DEFAULT_NAMES[:n]


@dataclass
class State(GameState[Move]):
    """A complete Captura la Bandera position.

    ``stacks`` maps each occupied square to its number of cubes (1 or 2); ``royal`` maps each
    player whose flag is still on the board to the square of their royal tower (a two-cube
    stack); ``chars`` maps each player to the square their character stands on (always a
    stack: "Los personajes nunca pueden tocar el tablero").
    """

    players: tuple[str, ...]
    level: str
    cubes_total: int
    supply: int
    stacks: dict[Square, int]
    royal: dict[str, Square]
    chars: dict[str, Square]
    captures: tuple[Capture, ...] = ()
    turn: int = 0
    to_move: str | None = None
    phase: Phase = "start"
    placement_roll: int | None = None
    placements_left: int = 0
    movement_roll: int | None = None
    points: int = 0
    spent: int = 0
    first_cube_placed: frozenset[str] = field(default_factory=frozenset)
    max_turns: int | None = None
    stopped: bool = False

    # ------------------------------------------------------------------ queries
    def current_player(self) -> str | None:
        if self.phase in ("place", "move"):
            return self.to_move
        return None

    def is_chance_node(self) -> bool:
        return self.phase in ("start", "place_roll", "move_roll")

    def is_terminal(self) -> bool:
        return self.phase == "over"

    def chance_outcomes(self) -> Sequence[tuple[ChanceEvent, Fraction]]:
        """Who begins (uniform roll-off) or a fair six-sided die, with exact probabilities."""
        if self.phase == "start":
            p = Fraction(1, len(self.players))
            return [(ChanceEvent("start", name), p) for name in self.players]
        if self.phase == "place_roll":
            return [(ChanceEvent("place", k), _D6) for k in range(1, 7)]
        if self.phase == "move_roll":
            return [(ChanceEvent("move", k), _D6) for k in range(1, 7)]
        return []

    def royal_at(self, sq: Square) -> str | None:
        """The owner of the royal tower (flag still on it) standing on ``sq``, if any."""
        for owner, where in self.royal.items():
            if where == sq:
                return owner
        return None

    def chars_at(self, sq: Square) -> list[str]:
        return [p for p in self.players if self.chars.get(p) == sq]

    def has_char(self, sq: Square) -> bool:
        return sq in self.chars.values()

    def cubes_on_board(self) -> int:
        return sum(self.stacks.values())

    def captured_by(self, player: str) -> list[str]:
        return [c.flag for c in self.captures if c.by == player]

    def scores(self) -> dict[str, int]:
        """Flag points ("Puntuaciones para cada bandera"): 2 per captured flag, 1 for a flag
        still on its royal tower (final at the end; provisional before)."""
        return {p: 2 * len(self.captured_by(p)) + (1 if p in self.royal else 0) for p in self.players}

    def winners(self) -> list[str]:
        """The winner(s) of a finished game.

        Two players: the first to capture the other's flag ("Objetivo").  More players: most
        points; a tie goes to whoever captured a flag first ("Si hay un empate de puntos, ganará
        el jugador que haya sido más rápido").  A game stopped by the optional turn limit with
        nobody ahead is shared by the tied players.
        """
        if not self.is_terminal():
            return []
        if len(self.players) == 2:
            return [self.captures[0].by] if self.captures else list(self.players)
        sc = self.scores()
        best = max(sc.values())
        tied = [p for p in self.players if sc[p] == best]
        if len(tied) == 1:
            return tied
        for c in self.captures:
            if c.by in tied:
                return [c.by]
        return tied

    def returns(self) -> Mapping[str, float]:
        if not self.is_terminal():
            raise IllegalMoveError("returns() is only defined when the game is over")
        win = self.winners()
        return {p: (1.0 / len(win) if p in win else 0.0) for p in self.players}

    # ------------------------------------------------------------------ legal moves
    def _placement_squares(self, player: str) -> list[Square]:
        """Where ``player`` may place a cube flat now (PLACE_WHERE 1-5)."""
        if len(self.players) > 2 and player in self.royal and player not in self.first_cube_placed:
            front = front_of(self.royal[player])
            return [front] if front not in self.stacks else []
        forbidden = forbidden_zone_for(self.players, player)
        return [
            (x, y)
            for y in range(7)
            for x in range(10)
            if (x, y) not in self.stacks and (x, y) not in ZONE_A and (x, y) not in forbidden
        ]

    def _stack_squares(self) -> list[Square]:
        occupied = set(self.chars.values())
        return sorted(
            (sq for sq, h in self.stacks.items() if h == 1 and sq not in occupied),
            key=lambda s: (s[0], s[1]),
        )

    def legal_moves(self) -> list[Move]:
        """Every legal decision of the player to move, sorted (empty at chance nodes)."""
        if self.phase == "place":
            return self._legal_placements()
        if self.phase == "move":
            return self._legal_steps()
        return []

    def _legal_placements(self) -> list[Move]:
        """Rulebook "Puntuaciones para colocar los cubos": 4 and 6 flat, 5 flat or on top; ``pass``."""
        assert self.to_move is not None
        out: list[Move] = []
        if self.placements_left > 0 and self.supply > 0:
            out.extend(PLACE_MOVES[sq] for sq in self._placement_squares(self.to_move))
            if self.placement_roll == 5:
                out.extend(STACK_MOVES[sq] for sq in self._stack_squares())
        out.append(PASS)
        sort_moves(out)
        return out

    def _legal_steps(self) -> list[Move]:
        """Rulebook "Segundo lanzamiento del dado" and "Resumen ... Coste para mover las piezas":
        every one-square step the points pay for, minus "lo que no se puede mover"
        ("Algunos recordatorios"), plus ``end``."""
        player = self.to_move
        assert player is not None
        pts = self.points
        out: list[Move] = []
        occupied = set(self.chars.values())
        royal_sq = {sq: owner for owner, sq in self.royal.items()}
        stacks = self.stacks
        for sq, h in stacks.items():
            if sq in occupied:
                continue  # MOVE_NOT: never a cube with a character on it
            owner = royal_sq.get(sq)
            if owner is not None:
                if owner != player or pts < COST_ROYAL:
                    continue  # MOVE_NOT: never another player's royal tower
                rail = royal_range(self.players, self.players.index(player))
                out.extend(
                    m
                    for m, t in STEP_MOVES[MoveKind.ROYAL][sq]
                    if t[0] == sq[0] and t in rail and t not in stacks  # ROYAL: sideways on its rail
                )
                continue
            if h == 1:
                if pts >= COST_CUBE:
                    out.extend(
                        m for m, t in STEP_MOVES[MoveKind.CUBE][sq] if t not in stacks and t not in ZONE_A
                    )
            elif pts >= COST_TOWER:
                out.extend(
                    m for m, t in STEP_MOVES[MoveKind.TOWER][sq] if t not in stacks and t not in ZONE_A
                )
                if pts >= COST_LOWER:
                    out.extend(
                        m for m, t in STEP_MOVES[MoveKind.LOWER][sq] if t not in stacks and t not in ZONE_A
                    )
        here = self.chars[player]
        for m, t in STEP_MOVES[MoveKind.CHAR][here]:
            if t in stacks and self._char_cost(here, t) is not None:
                out.append(m)
        out.append(END)
        sort_moves(out)
        return out

    def _char_cost(self, here: Square, t: Square) -> int | None:
        """Points a character step ``here -> t`` costs now, or ``None`` when not possible now."""
        if t in self.royal.values():
            # ROYAL_CLIMB: a single roll of 4-6, the turn's first use of the roll; it takes the roll.
            if self.spent == 0 and self.movement_roll is not None and self.movement_roll >= ROYAL_CLIMB_MIN:
                return self.points
            return None
        cost = COST_CLIMB if self.stacks[t] > self.stacks[here] else COST_CHAR
        return cost if cost <= self.points else None

    # ------------------------------------------------------------------ legality with reasons
    def why_illegal(self, move: Move) -> str | None:
        """``None`` when ``move`` is legal now, else the rule it breaks, in words."""
        if self.phase == "over":
            return "the game is over"
        if self.is_chance_node():
            what = {"start": "who begins", "place_roll": "the placement die", "move_roll": "the movement die"}
            return f"{what[self.phase]} must be rolled first"
        player = self.to_move
        assert player is not None
        k = move.kind
        if k in (MoveKind.PLACE, MoveKind.STACK, MoveKind.PASS):
            if self.phase != "place":
                return "cubes are placed only right after the placement roll, before the movement roll"
            if k is MoveKind.PASS:
                return None
            return self._why_not_place(player, move)
        if self.phase != "move":
            return "pieces move only after the movement roll (place your cubes or 'pass' first)"
        if k is MoveKind.END:
            return None
        cost_or_reason = self._step_cost(player, move)
        if isinstance(cost_or_reason, str):
            return cost_or_reason
        if cost_or_reason > self.points:
            return f"it costs {cost_or_reason} points and only {self.points} are left ({rules.MOVE_COSTS})"
        return None

    def _why_not_place(self, player: str, move: Move) -> str | None:
        """Rulebook "Donde y como colocar los cubos" rules 1-6 and "Puntuación de 5"."""
        sq = move.square
        assert sq is not None
        if self.placements_left <= 0 or self.placement_roll is None or self.placement_roll <= 3:
            return f"no cube may be placed now ({rules.PLACE_TABLE})"
        if self.supply <= 0:
            return f"every cube is already on the board ({rules.SUPPLY_OUT})"
        if sq in ZONE_A:
            return f"no cube may be placed in zone A, the central squares ({rules.PLACE_ZONE_A})"
        if move.kind is MoveKind.STACK:
            if self.placement_roll != 5:
                return (
                    f"a cube goes on top of another only with a roll of 5, "
                    f"not {self.placement_roll} ({rules.PLACE_TABLE})"
                )
            h = self.stacks.get(sq, 0)
            if h == 0:
                return f"there is no cube at {fmt(sq)} to place a cube on ({rules.PLACE_ON_TOP})"
            if self.royal_at(sq) is not None:
                return f"a cube is never placed on a royal tower ({rules.PLACE_NEVER_ON})"
            if h >= 2:
                return f"there are no towers of more than two cubes ({rules.PLACE_NEVER_ON})"
            if self.has_char(sq):
                return f"a cube is never placed on a cube where a character stands ({rules.PLACE_NEVER_ON})"
            return None
        if sq in self.stacks:
            return (
                f"square {fmt(sq)} is taken: cubes are placed flat on empty squares "
                f"(on top of another cube only with a 5, as 'stack') ({rules.PLACE_TABLE})"
            )
        if len(self.players) > 2:
            if player in self.royal and player not in self.first_cube_placed:
                front = front_of(self.royal[player])
                if sq != front:
                    return (
                        f"your first cube must be placed in front of your royal tower, at {fmt(front)} "
                        f"({rules.PLACE_MANY})"
                    )
                return None
            if sq in ZONE_B or sq in ZONE_C:
                return f"with more than two players no cube is placed in zones B and C ({rules.PLACE_MANY})"
            return None
        if sq in forbidden_zone_for(self.players, player):
            zone, owner = ("C", "red") if player == "blue" else ("B", "blue")
            return f"{player} may not place cubes in zone {zone} of {owner}'s territory ({rules.PLACE_TWO})"
        return None

    def _step_cost(self, player: str, move: Move) -> int | str:
        """The cost of a step ("Resumen de puntuaciones de los dados") or why it is not allowed
        ("Cómo mover las piezas", "Movimientos de la torre real", "Algunos recordatorios")."""
        sq, hd = move.square, move.heading
        assert sq is not None and hd is not None
        t = (sq[0] + hd.dx, sq[1] + hd.dy)
        if not on_board(t):
            return f"{fmt(t)} is off the board"
        k = move.kind
        if k is MoveKind.CHAR:
            here = self.chars[player]
            if sq != here:
                return (
                    f"your character stands at {fmt(here)}, not at {fmt(sq)} "
                    "(you cannot move another player's character)"
                )
            if t not in self.stacks:
                return f"characters never touch the board: there is no cube at {fmt(t)} ({rules.OBJECTIVE})"
            if t in self.royal.values():
                if self.movement_roll is None or self.movement_roll < ROYAL_CLIMB_MIN:
                    return (
                        f"climbing a royal tower needs a single roll of 4, 5 or 6, "
                        f"not {self.movement_roll} ({rules.ROYAL_CLIMB})"
                    )
                if self.spent:
                    return (
                        f"climbing a royal tower must use the whole roll from a square next to it; "
                        f"{self.spent} point(s) were already spent this turn ({rules.ROYAL_CLIMB})"
                    )
                return self.points
            return COST_CLIMB if self.stacks[t] > self.stacks[here] else COST_CHAR
        h = self.stacks.get(sq, 0)
        if h == 0:
            return f"there is no cube at {fmt(sq)}"
        owner = self.royal_at(sq)
        if self.has_char(sq):
            who = ", ".join(self.chars_at(sq))
            return f"a cube with a character on it cannot be moved ({who} at {fmt(sq)}) ({rules.MOVE_NOT})"
        if k is MoveKind.ROYAL:
            if owner is None:
                return f"there is no royal tower at {fmt(sq)} ({rules.ROYAL})"
            if owner != player:
                return f"you cannot move another player's royal tower ({owner}'s) ({rules.MOVE_NOT})"
            rail = royal_range(self.players, self.players.index(player))
            if hd not in (Heading.N, Heading.S) or t not in rail:
                limit = (
                    "along its paved edge"
                    if len(self.players) == 2
                    else f"between its corner and y={CENTRE_Y}"
                )
                return f"a royal tower moves only from side to side, {limit} ({rules.ROYAL})"
            if t in self.stacks:
                return f"{fmt(t)} is taken: a piece never moves onto another cube ({rules.MOVE_NOT_ON_CUBE})"
            return COST_ROYAL
        if owner is not None:
            if owner != player:
                return f"you cannot move another player's royal tower ({owner}'s) ({rules.MOVE_NOT})"
            return (
                f"your royal tower moves with 'royal', and its top cube stays with the flag ({rules.ROYAL})"
            )
        if t in ZONE_A:
            return f"no piece moves into zone A, the central squares ({rules.MOVE_ZONE_A})"
        if t in self.stacks:
            return f"{fmt(t)} is taken: a piece never moves onto another cube ({rules.MOVE_NOT_ON_CUBE})"
        if k is MoveKind.CUBE:
            if h != 1:
                return f"{fmt(sq)} holds a two-cube tower: move it with 'tower' or lower its top with 'lower'"
            return COST_CUBE
        if h != 2:
            return f"{fmt(sq)} holds a single cube, not a tower: move it with 'cube'"
        return COST_TOWER if k is MoveKind.TOWER else COST_LOWER

    # ------------------------------------------------------------------ apply
    def apply(self, move: Move | ChanceEvent) -> State:
        """The state after ``move`` (a :class:`Move` or, at a chance node, a ``ChanceEvent``)."""
        if isinstance(move, ChanceEvent):
            return self._apply_chance(move)
        if not isinstance(move, Move):
            raise InvalidMoveError(f"not a move: {move!r}")
        reason = self.why_illegal(move)
        if reason is not None:
            raise IllegalMoveError(f"illegal move {str(move)!r}: {reason}")
        player = self.to_move
        assert player is not None
        k = move.kind
        if k is MoveKind.PASS:
            return replace(self, phase="move_roll", placements_left=0)
        if k is MoveKind.END:
            return self._end_turn()
        sq = move.square
        assert sq is not None
        stacks = dict(self.stacks)
        if k is MoveKind.PLACE:
            stacks[sq] = 1
            left = self.placements_left - 1
            supply = self.supply - 1
            done = left <= 0 or supply <= 0
            return replace(
                self,
                stacks=stacks,
                supply=supply,
                placements_left=0 if done else left,
                phase="move_roll" if done else "place",
                first_cube_placed=self.first_cube_placed | {player},
            )
        if k is MoveKind.STACK:
            stacks[sq] = 2
            return replace(self, stacks=stacks, supply=self.supply - 1, placements_left=0, phase="move_roll")
        t = move.target
        assert t is not None
        cost = self._step_cost(player, move)
        assert isinstance(cost, int)
        royal = self.royal
        chars = self.chars
        captures = self.captures
        if k is MoveKind.CHAR:
            chars = dict(chars)
            chars[player] = t
            owner = self.royal_at(t)
            if owner is not None and owner != player:
                royal = {p: s for p, s in royal.items() if p != owner}
                captures = (*captures, Capture(player, owner, self.turn))
        elif k is MoveKind.LOWER:
            stacks[sq] = 1
            stacks[t] = 1
        else:
            stacks[t] = stacks.pop(sq)
            if k is MoveKind.ROYAL:
                royal = dict(royal)
                royal[player] = t
        nxt = replace(
            self,
            stacks=stacks,
            royal=royal,
            chars=chars,
            captures=captures,
            points=self.points - cost,
            spent=self.spent + cost,
        )
        if captures is not self.captures and (len(self.players) == 2 or len(royal) <= 1):
            return replace(nxt, phase="over", to_move=None)
        if nxt.points <= 0:
            return nxt._end_turn()
        return nxt

    def _apply_chance(self, event: ChanceEvent) -> State:
        """Rulebook "Modo de juego": the roll-off, then per turn the placement roll (1-3 place
        nothing) and the movement roll (its points)."""
        if not self.is_chance_node():
            raise IllegalMoveError(f"no die is rolled now: {str(event)!r} (it is {self.to_move}'s decision)")
        expected = {"start": "start", "place_roll": "place", "move_roll": "move"}[self.phase]
        if event.kind != expected:
            raise IllegalMoveError(f"expected a {expected!r} chance event now, got {str(event)!r}")
        if event.kind == "start":
            if event.value not in self.players:
                raise IllegalMoveError(f"{event.value!r} is not a player of this game {list(self.players)!r}")
            return replace(
                self, to_move=event.value, turn=1, phase="place_roll" if self.supply > 0 else "move_roll"
            )
        value = event.value
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 6:
            raise IllegalMoveError(f"a die shows 1 to 6, got {value!r}")
        if event.kind == "place":
            if value <= 3:
                return replace(self, placement_roll=value, placements_left=0, phase="move_roll")
            n = min(2 if value == 6 else 1, self.supply)
            return replace(self, placement_roll=value, placements_left=n, phase="place")
        return replace(self, movement_roll=value, points=value, spent=0, phase="move")

    def _end_turn(self) -> State:
        """Rulebook "Modo de juego": the next turn is the right-hand neighbour's (seat order);
        with no cube left off the board only the movement roll is made ("Importante")."""
        assert self.to_move is not None
        i = self.players.index(self.to_move)
        nxt = self.players[(i + 1) % len(self.players)]
        turn = self.turn + 1
        base = replace(
            self,
            placement_roll=None,
            placements_left=0,
            movement_roll=None,
            points=0,
            spent=0,
        )
        if self.max_turns is not None and turn > self.max_turns:
            return replace(base, phase="over", to_move=None, stopped=True)
        return replace(base, to_move=nxt, turn=turn, phase="place_roll" if self.supply > 0 else "move_roll")

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """The interchange state document (``docs/rules/bandera.md``, "State file")."""
        royal_sq = {sq: p for p, sq in self.royal.items()}
        board: list[dict[str, Any]] = []
        for sq in sorted(self.stacks, key=lambda s: (s[1], s[0])):
            entry: dict[str, Any] = {"x": sq[0], "y": sq[1], "cubes": self.stacks[sq]}
            if sq in royal_sq:
                entry["flag"] = royal_sq[sq]
            board.append(entry)
        return {
            "game": "bandera",
            "format": FORMAT,
            "players": list(self.players),
            "level": self.level,
            "cubes": self.cubes_total,
            "supply": self.supply,
            "board": board,
            "characters": {p: {"x": sq[0], "y": sq[1]} for p, sq in self.chars.items()},
            "captures": [{"by": c.by, "flag": c.flag, "turn": c.turn} for c in self.captures],
            "turn": self.turn,
            "to_move": self.to_move,
            "phase": self.phase,
            "placement_roll": self.placement_roll,
            "placements_left": self.placements_left,
            "movement_roll": self.movement_roll,
            "points": self.points,
            "spent": self.spent,
            "first_cube_placed": sorted(self.first_cube_placed, key=self.players.index),
            "max_turns": self.max_turns,
            "stopped": self.stopped,
        }

    @classmethod
    def from_json(cls, doc: Any) -> State:
        """Read a state document; :class:`InvalidStateError` if it is unreadable or breaks a rule
        (the message names the first problems found by :func:`engine.bandera.validate_state`)."""
        from engine.bandera.validate import validate_state

        problems = [p for p in validate_state(doc) if p.severity == "error"]
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise InvalidStateError(f"invalid Captura la Bandera state: {problems[0]}{more}")
        return _build(doc)


def _build(doc: Mapping[str, Any]) -> State:
    """Build a state from a document that :func:`validate_state` accepted."""
    stacks: dict[Square, int] = {}
    royal: dict[str, Square] = {}
    for e in doc["board"]:
        sq = (e["x"], e["y"])
        stacks[sq] = e["cubes"]
        if e.get("flag") is not None:
            royal[e["flag"]] = sq
    max_turns = doc.get("max_turns")
    return State(
        players=tuple(doc["players"]),
        level=doc["level"],
        cubes_total=doc["cubes"],
        supply=doc["supply"],
        stacks=stacks,
        royal=royal,
        chars={p: (c["x"], c["y"]) for p, c in doc["characters"].items()},
        captures=tuple(Capture(c["by"], c["flag"], c["turn"]) for c in doc.get("captures", [])),
        turn=doc.get("turn", 0),
        to_move=doc.get("to_move"),
        phase=doc.get("phase", "start"),
        placement_roll=doc.get("placement_roll"),
        placements_left=doc.get("placements_left", 0),
        movement_roll=doc.get("movement_roll"),
        points=doc.get("points", 0),
        spent=doc.get("spent", 0),
        first_cube_placed=frozenset(doc.get("first_cube_placed", [])),
        max_turns=max_turns,
        stopped=bool(doc.get("stopped", False)),
    )


def new_state(
    players: int | Sequence[str] = 2,
    difficulty: str = "easy",
    *,
    first: str | None = None,
    max_turns: int | None = None,
) -> State:
    """The set-up position ("Preparación para iniciar la partida").

    ``players`` is a count (2-4; names ``blue``, ``red``, ``green``, ``yellow``) or the names in
    seat order (two players must be ``blue`` and ``red``, the board's colours).  ``difficulty``
    is ``easy`` (22 cubes), ``medium`` (18) or ``hard`` (14); the count includes the two cubes of
    each royal tower ("todos los demás permanecerán fuera").  ``first`` skips the roll-off;
    ``max_turns`` is an optional limit for automated play (not in the rulebook), after which the
    game stops and is scored as it stands.
    """
    if isinstance(players, int):
        names = default_players(players)
    else:
        names = tuple(players)
        default_players(len(names))
        if len(set(names)) != len(names):
            raise BanderaOptionError(f"player names must be different, got {list(names)!r}")
        for n in names:
            if (
                not isinstance(n, str)
                or not n
                or not n.replace("-", "").replace("_", "").isalnum()
                or not n.islower()
            ):
                raise BanderaOptionError(
                    f"player name {n!r} must be lower-case letters/digits (a flag colour)"
                )
        if len(names) == 2 and set(names) != set(TWO_PLAYER_NAMES):
            raise BanderaOptionError(
                f"two players play the board's colours 'blue' and 'red', got {list(names)!r}"
            )
        if len(names) == 2:
            names = TWO_PLAYER_NAMES
    level = parse_level(difficulty)
    total = LEVELS[level]
    stacks: dict[Square, int] = {}
    royal: dict[str, Square] = {}
    for i, name in enumerate(names):
        sq = start_square(names, i)
        stacks[sq] = 2
        royal[name] = sq
    if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
        raise BanderaOptionError(f"max_turns must be a positive number of turns, got {max_turns!r}")
    state = State(
        players=names,
        level=level,
        cubes_total=total,
        supply=total - 2 * len(names),
        stacks=stacks,
        royal=royal,
        chars=dict(royal),
        max_turns=max_turns,
    )
    if first is not None:
        if first not in names:
            raise BanderaOptionError(f"first player {first!r} is not one of {list(names)!r}")
        state = state.apply(ChanceEvent("start", first))
    return state
