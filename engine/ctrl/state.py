"""The CTRL game state, turn structure and rules (rulebook: shared/seeds/001_1525aa0c305d7bb7.txt).

A turn (rulebook "Game Turn") has three steps: remove your flag, place your blocks as one path,
plug your flag into an exposed face of your colour.  The engine models a turn as two decisions of
the same player: a *placement* (or a pass when no path exists) and then a *flag spot* (or no flag
when no face is free).  :class:`engine.ctrl.moves.Turn` bundles both for records and the CLI.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

from engine.core import GameState, IllegalMoveError, InvalidMoveError, InvalidStateError
from engine.ctrl import paths
from engine.ctrl.geometry import (
    CENTRAL_CUBE,
    DIR_NAMES,
    NOT_DOWN,
    Cell,
    cell_str,
    neighbours,
    parse_cell,
    parse_direction,
)
from engine.ctrl.moves import CtrlMove, FlagSpot, NoFlag, Pass, Placement, Turn
from engine.ctrl.scoring import face_views, side_scores, totals, winners

#: Colours in the default turn order (docs/rules/ctrl.md, "Set-up").
COLORS: tuple[str, ...] = ("blue", "pink", "yellow", "green")
#: Default start blocks (docs/rules/ctrl.md, "Set-up"; the rulebook's figure is missing).
DEFAULT_STARTS: dict[str, Cell] = {
    "blue": (1, -1, 0),
    "pink": (3, 1, 0),
    "yellow": (1, 3, 0),
    "green": (-1, 1, 0),
}
#: Rulebook "Components": 22 blocks per player (the start block is one of them).
BLOCKS_PER_COLOR = 22
#: Rulebook "Game Turn": three blocks per turn.
BLOCKS_PER_TURN = 3

Phase = Literal["place", "flag"]


@dataclass(frozen=True, eq=False)
class State(GameState[CtrlMove]):
    """A CTRL position.  Treat as immutable: :meth:`apply` returns a new state.

    ``owners`` maps each colour to the player who plays it (the colour itself, except in the
    2-player variant); ``scoring`` maps each player of the 2-player variant to the colour they
    secretly chose to score (rulebook "2-Player Variant").
    """

    blocks: Mapping[Cell, str]
    flags: Mapping[str, FlagSpot]
    starts: Mapping[str, Cell]
    colors: tuple[str, ...]
    owners: Mapping[str, str]
    scoring: Mapping[str, str] | None = None
    to_move: str | None = None
    phase: Phase = "place"
    first_turn_pending: frozenset[str] = frozenset()
    passes_in_row: int = 0
    terminal: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    # ------------------------------------------------------------------ derived data
    @cached_property
    def occupied(self) -> frozenset[Cell]:
        """Central Cube cells and blocks: ``occupied(c)`` of docs/rules/ctrl.md."""
        return CENTRAL_CUBE | frozenset(self.blocks)

    @cached_property
    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(self.colors, 0)
        for color in self.blocks.values():
            out[color] = out.get(color, 0) + 1
        return out

    def remaining(self, color: str) -> int:
        """Blocks of ``color`` not yet on the battlefield."""
        return max(0, BLOCKS_PER_COLOR - self.counts.get(color, 0))

    @cached_property
    def _by_color(self) -> dict[str, list[Cell]]:
        out: dict[str, list[Cell]] = {}
        for c, col in self.blocks.items():
            out.setdefault(col, []).append(c)
        return out

    def blocks_of(self, color: str) -> list[Cell]:
        return list(self._by_color.get(color, ()))

    @property
    def players(self) -> list[str]:
        seen: list[str] = []
        for c in self.colors:
            p = self.owners[c]
            if p not in seen:
                seen.append(p)
        return seen

    def opponents_of(self, color: str) -> list[str]:
        """Colours played by other players (the 2-player variant's own second colour is not one)."""
        me = self.owners.get(color)
        return [c for c in self.colors if self.owners.get(c) != me]

    def other_flag_cells(self, color: str) -> frozenset[Cell]:
        """Cells holding a flag of another colour: they block ``color``'s paths (rulebook "Flags")."""
        return frozenset(f.cell for c, f in self.flags.items() if c != color)

    def first_turn_forbidden(self, color: str) -> frozenset[Cell]:
        """Rulebook "First Turn Rule": cells face-adjacent to an opponent's starting block."""
        if color not in self.first_turn_pending:
            return frozenset()
        out: set[Cell] = set()
        for opp in self.opponents_of(color):
            start = self.starts.get(opp)
            if start is not None:
                out.update(neighbours(start))
        return frozenset(out)

    def placement_sets(self, color: str | None = None) -> set[frozenset[Cell]]:
        """Every distinct legal placement for ``color`` (default: the mover), as cell sets.

        The colour's own flag is lifted first (rulebook "Game Turn" step 1), so it never blocks.
        """
        color = color or self.to_move
        if color is None:
            return set()
        length = min(BLOCKS_PER_TURN, self.remaining(color))
        return paths.placements(
            self.blocks_of(color),
            self.occupied,
            self.other_flag_cells(color),
            length,
            self.first_turn_forbidden(color),
        )

    @cached_property
    def _mover_sets(self) -> set[frozenset[Cell]]:
        return self.placement_sets()

    @cached_property
    def _mover_placements(self) -> list[Placement]:
        return [Placement(cells) for cells in sorted(tuple(sorted(s)) for s in self._mover_sets)]

    def placements(self) -> list[Placement]:
        """Legal placements for the mover, sorted (``boardside ctrl moves``)."""
        return list(self._mover_placements)

    def flag_spots(self, color: str | None = None) -> list[FlagSpot]:
        """Legal flag spots: a free cell in front of a face of the colour's block, never pointing down.

        Rulebook "Flags" and "Game Turn" step 3; docs/rules/ctrl.md, "Flags".
        """
        color = color or self.to_move
        if color is None:
            return []
        taken = self.other_flag_cells(color)
        occ = self.occupied
        spots: set[tuple[Cell, str]] = set()
        for b in self.blocks_of(color):
            for d in NOT_DOWN:
                cell = (b[0] + d[0], b[1] + d[1], b[2] + d[2])
                if cell not in occ and cell not in taken:
                    spots.add((cell, DIR_NAMES[d]))
        return [FlagSpot.trusted(cell, points) for cell, points in sorted(spots)]

    # ------------------------------------------------------------------ GameState interface
    def current_player(self) -> str | None:
        """The player to act (the owner of :attr:`to_move`), ``None`` when the game is over."""
        if self.terminal or self.to_move is None:
            return None
        return self.owners[self.to_move]

    def legal_moves(self) -> Sequence[CtrlMove]:
        if self.terminal or self.to_move is None:
            return []
        if self.phase == "place":
            pl = self._mover_placements
            return list(pl) if pl else [Pass()]
        spots = self.flag_spots()
        return list(spots) if spots else [NoFlag()]

    def apply(self, move: Any) -> State:
        """Apply a half-move (placement, pass, flag spot, no flag) or a whole :class:`Turn`."""
        if isinstance(move, Turn):
            first, second = move.moves()
            return self.apply(first).apply(second)
        if isinstance(move, str):
            from engine.ctrl.moves import parse_move

            move = parse_move(move)
        if self.terminal or self.to_move is None:
            raise IllegalMoveError(f"the game is over; cannot play {str(move)!r}")
        color = self.to_move
        if self.phase == "place":
            if isinstance(move, Placement):
                if frozenset(move.cells) not in self._mover_sets:
                    raise IllegalMoveError(self._why_illegal(move))
                blocks = dict(self.blocks)
                for c in move.cells:
                    blocks[c] = color
                flags = {k: v for k, v in self.flags.items() if k != color}
                return replace(self, blocks=blocks, flags=flags, phase="flag", passes_in_row=0)
            if isinstance(move, Pass):
                if self._mover_sets:
                    raise IllegalMoveError(
                        f"{color} cannot pass: {len(self._mover_sets)} legal placement(s) exist"
                    )
                flags = {k: v for k, v in self.flags.items() if k != color}
                return replace(self, flags=flags, phase="flag", passes_in_row=self.passes_in_row + 1)
            raise IllegalMoveError(f"{color} must place blocks (or pass) before plugging the flag, got {str(move)!r}")
        # phase == "flag"
        if isinstance(move, FlagSpot):
            if move not in set(self.flag_spots()):
                raise IllegalMoveError(self._why_flag_illegal(move))
            flags = dict(self.flags)
            flags[color] = move
        elif isinstance(move, NoFlag):
            if self.flag_spots():
                raise IllegalMoveError(f"{color} must plug its flag: a free face exists")
            flags = dict(self.flags)
        else:
            raise IllegalMoveError(f"{color} must plug its flag now, got {str(move)!r}")
        return replace(
            self,
            flags=flags,
            phase="place",
            first_turn_pending=self.first_turn_pending - {color},
        )._advanced()

    def _advanced(self) -> State:
        """Pass the turn to the next colour that still has blocks; detect the end of the game.

        docs/rules/ctrl.md, "End of game": the game ends when every colour has placed all 22 blocks,
        or when no colour that still has blocks has a legal path, or after a full round of passes.
        """
        assert self.to_move is not None
        order = self.colors
        i = order.index(self.to_move)
        with_blocks = [c for c in order if self.remaining(c) > 0]
        if not with_blocks:
            return replace(self, to_move=None, terminal=True)
        nxt = next(order[(i + k) % len(order)] for k in range(1, len(order) + 1)
                   if self.remaining(order[(i + k) % len(order)]) > 0)
        state = replace(self, to_move=nxt)
        if state.passes_in_row >= len(with_blocks):
            return replace(state, to_move=None, terminal=True)
        if not state._mover_sets and not any(state.placement_sets(c) for c in with_blocks if c != nxt):
            return replace(state, to_move=None, terminal=True)
        return state

    def is_terminal(self) -> bool:
        return self.terminal

    def scoring_colors(self) -> dict[str, str]:
        """Player -> the colour that scores for them (2-player variant: the secret choice).

        In a 2-player state whose secret choices are not recorded, every colour is scored and a
        player wins when one of their colours wins (docs/rules/ctrl.md, "2-player variant").
        """
        if self.scoring is not None:
            return dict(self.scoring)
        return {c: c for c in self.colors} if all(self.owners[c] == c for c in self.colors) else {}

    def contenders(self) -> list[str]:
        sc = self.scoring_colors()
        return list(sc.values()) if sc else list(self.colors)

    def side_scores(self) -> dict[str, dict[str, int]]:
        return side_scores(self.blocks, self.flags, self.colors)

    def totals(self) -> dict[str, int]:
        return totals(self.side_scores())

    def winners(self) -> list[str]:
        """Winning colours among the scoring colours (ties broken by flag height, then shared)."""
        return winners(self.totals(), self.flags, self.contenders())

    def returns(self) -> dict[str, float]:
        """1 for a win, shared equally between tied winners; 0 otherwise; keyed by player."""
        win = self.winners()
        win_players = {self.owners[c] for c in win}
        share = 1.0 / len(win_players) if win_players else 0.0
        return {p: (share if p in win_players else 0.0) for p in self.players}

    def face_views(self) -> list[Any]:
        return face_views(self.blocks, self.flags)

    # ------------------------------------------------------------------ helpers for messages
    def _why_illegal(self, move: Placement) -> str:
        color = self.to_move
        n = min(BLOCKS_PER_TURN, self.remaining(color or ""))
        if len(move.cells) != n:
            return f"placement {str(move)!r} has {len(move.cells)} cells; {color} must place {n}"
        for c in move.cells:
            if c in self.occupied:
                return f"placement {str(move)!r}: cell {cell_str(c)} is already occupied"
            if c[2] < 0:
                return f"placement {str(move)!r}: cell {cell_str(c)} is below the table"
            if c in self.other_flag_cells(color or ""):
                return f"placement {str(move)!r}: cell {cell_str(c)} holds another colour's flag"
        forbidden = self.first_turn_forbidden(color or "")
        if any(c in forbidden for c in move.cells):
            return f"placement {str(move)!r} touches an opponent's start block on {color}'s first turn"
        return f"placement {str(move)!r} is not a legal path for {color}"

    def _why_flag_illegal(self, spot: FlagSpot) -> str:
        color = self.to_move
        if spot.points_down:
            return f"{str(spot)!r}: a flag may never point down"
        if self.blocks.get(spot.block) != color:
            return f"{str(spot)!r}: the flag must be plugged into a {color} block (cell {cell_str(spot.block)})"
        return f"{str(spot)!r}: that face is not free"

    # ------------------------------------------------------------------ interchange
    def to_json(self) -> dict[str, Any]:
        """The interchange state document (issue "Foundation and the complete CTRL rules engine")."""
        doc: dict[str, Any] = {
            "game": "ctrl",
            "blocks": [{"cell": list(c), "color": col} for c, col in sorted(self.blocks.items())],
            "flags": [
                {"color": col, "cell": list(f.cell), "points": f.points}
                for col, f in sorted(self.flags.items(), key=lambda kv: self.colors.index(kv[0])
                                     if kv[0] in self.colors else 99)
            ],
            "starts": {c: list(self.starts[c]) for c in self.colors if c in self.starts},
            "to_move": self.to_move,
            "first_turn": bool(self.to_move in self.first_turn_pending) if self.to_move else False,
            "colors": list(self.colors),
            "phase": self.phase,
            "first_turn_pending": [c for c in self.colors if c in self.first_turn_pending],
            "passes_in_row": self.passes_in_row,
            "terminal": self.terminal,
        }
        players: dict[str, list[str]] = {}
        for c in self.colors:
            players.setdefault(self.owners[c], []).append(c)
        doc["players"] = players
        if self.scoring is not None:
            doc["scoring"] = dict(self.scoring)
        for k, v in self.extra.items():
            doc.setdefault(k, v)
        return doc

    @classmethod
    def from_json(cls, doc: Any) -> State:
        """Read an interchange document.  Raises :class:`InvalidStateError` when it is malformed.

        Rule problems (a floating block, 23 pinks) do not raise: run :func:`validate_state`.
        """
        if not isinstance(doc, dict):
            raise InvalidStateError(f"a CTRL state must be a JSON object, got {type(doc).__name__}")
        if doc.get("game", "ctrl") != "ctrl":
            raise InvalidStateError(f"not a CTRL state: game is {doc.get('game')!r}")
        raw_blocks = doc.get("blocks", [])
        if not isinstance(raw_blocks, list):
            raise InvalidStateError(f"'blocks' must be a list, got {raw_blocks!r:.60}")
        blocks: dict[Cell, str] = {}
        for i, b in enumerate(raw_blocks):
            if not isinstance(b, dict) or "cell" not in b or "color" not in b:
                raise InvalidStateError(f"blocks[{i}] = {b!r:.80} needs 'cell' and 'color'")
            cell = parse_cell(b["cell"], f"blocks[{i}].cell")
            color = _color(b["color"], f"blocks[{i}].color")
            if cell in blocks:
                raise InvalidStateError(f"two blocks in cell {list(cell)!r} (blocks[{i}])")
            blocks[cell] = color
        raw_flags = doc.get("flags", [])
        if not isinstance(raw_flags, list):
            raise InvalidStateError(f"'flags' must be a list, got {raw_flags!r:.60}")
        flags: dict[str, FlagSpot] = {}
        for i, f in enumerate(raw_flags):
            if not isinstance(f, dict) or not {"color", "cell", "points"} <= f.keys():
                raise InvalidStateError(f"flags[{i}] = {f!r:.80} needs 'color', 'cell' and 'points'")
            color = _color(f["color"], f"flags[{i}].color")
            if color in flags:
                raise InvalidStateError(f"two {color} flags (flags[{i}])")
            parse_direction(f["points"], f"flags[{i}].points")
            try:
                flags[color] = FlagSpot(parse_cell(f["cell"], f"flags[{i}].cell"), f["points"].strip())
            except InvalidMoveError as exc:
                raise InvalidStateError(str(exc)) from None
        raw_starts = doc.get("starts")
        if not isinstance(raw_starts, dict) or not raw_starts:
            raise InvalidStateError("'starts' must map each colour in play to its start cell")
        starts = {_color(k, "starts key"): parse_cell(v, f"starts[{k!r}]") for k, v in raw_starts.items()}
        raw_colors = doc.get("colors")
        if raw_colors is None:
            colors = tuple(c for c in COLORS if c in starts)
        else:
            if not isinstance(raw_colors, list):
                raise InvalidStateError(f"'colors' must be a list, got {raw_colors!r}")
            colors = tuple(_color(c, "colors entry") for c in raw_colors)
            if set(colors) != set(starts):
                raise InvalidStateError(f"'colors' {list(colors)!r} and 'starts' {sorted(starts)!r} disagree")
        owners: dict[str, str] = {c: c for c in colors}
        raw_players = doc.get("players")
        if raw_players is not None:
            if not isinstance(raw_players, dict):
                raise InvalidStateError(f"'players' must map player -> list of colours, got {raw_players!r}")
            owners = {}
            for p, cols in raw_players.items():
                if not isinstance(cols, list):
                    raise InvalidStateError(f"players[{p!r}] must be a list of colours, got {cols!r}")
                for c in cols:
                    owners[_color(c, f"players[{p!r}]")] = str(p)
            missing = [c for c in colors if c not in owners]
            if missing:
                raise InvalidStateError(f"colours {missing!r} are in play but owned by no player")
        scoring = doc.get("scoring")
        if scoring is not None:
            if not isinstance(scoring, dict):
                raise InvalidStateError(f"'scoring' must map player -> colour, got {scoring!r}")
            scoring = {str(p): _color(c, f"scoring[{p!r}]") for p, c in scoring.items()}
            for p, c in scoring.items():
                if owners.get(c) != p:
                    raise InvalidStateError(f"scoring colour {c!r} of {p!r} is not one of that player's colours")
        to_move = doc.get("to_move")
        if to_move is not None:
            to_move = _color(to_move, "to_move")
            if to_move not in colors:
                raise InvalidStateError(f"to_move {to_move!r} is not a colour in play {list(colors)!r}")
        phase = doc.get("phase", "place")
        if phase not in ("place", "flag"):
            raise InvalidStateError(f"phase {phase!r} must be 'place' or 'flag'")
        if "first_turn_pending" in doc:
            pend = doc["first_turn_pending"]
            if not isinstance(pend, list):
                raise InvalidStateError(f"'first_turn_pending' must be a list, got {pend!r}")
            pending = frozenset(_color(c, "first_turn_pending") for c in pend)
        else:
            first = doc.get("first_turn", False)
            if not isinstance(first, bool):
                raise InvalidStateError(f"'first_turn' must be true or false, got {first!r}")
            # On to_move's first turn, every colour after it in the order is also still in the
            # first round; otherwise every colour has already had its first turn.
            pending_set: set[str] = set()
            if first and to_move is not None:
                pending_set.update(colors[colors.index(to_move):])
            pending = frozenset(pending_set)
        passes = doc.get("passes_in_row", 0)
        if not isinstance(passes, int) or isinstance(passes, bool) or passes < 0:
            raise InvalidStateError(f"'passes_in_row' must be a non-negative integer, got {passes!r}")
        known = {"game", "blocks", "flags", "starts", "to_move", "first_turn", "colors", "phase",
                 "first_turn_pending", "passes_in_row", "terminal", "players", "scoring"}
        extra = {k: v for k, v in doc.items() if k not in known}
        state = cls(
            blocks=blocks, flags=flags, starts=starts, colors=colors, owners=owners, scoring=scoring,
            to_move=to_move, phase=phase, first_turn_pending=pending, passes_in_row=passes,
            terminal=False, extra=extra,
        )
        if to_move is None or doc.get("terminal") is True:
            return replace(state, to_move=None, terminal=True)
        return state


def _color(value: object, what: str) -> str:
    if not isinstance(value, str) or value.strip().lower() not in COLORS:
        raise InvalidStateError(f"{what} {value!r} is not a CTRL colour ({', '.join(COLORS)})")
    return value.strip().lower()


def new_state(
    players: int = 4,
    scoring: Mapping[str, str] | None = None,
    starts: Mapping[str, Cell] | None = None,
) -> State:
    """The set-up position (rulebook "Setup"; docs/rules/ctrl.md, "Set-up").

    ``players`` is 2 (the 2-player variant: player1 blue+yellow, player2 pink+green, turns go blue,
    pink, yellow, green), 3 (blue, pink, yellow) or 4.  Each start block stands on the table next to
    the Central Cube; each flag is plugged on top of its start block pointing ``+z``.
    """
    if players not in (2, 3, 4):
        raise InvalidStateError(f"CTRL is for 2 to 4 players, got {players!r}")
    start_map = dict(starts or DEFAULT_STARTS)
    colors = COLORS[:3] if players == 3 else COLORS
    if players == 2:
        owners = {"blue": "player1", "yellow": "player1", "pink": "player2", "green": "player2"}
        if scoring is not None:
            for p, c in scoring.items():
                if owners.get(c) != p:
                    raise InvalidStateError(f"scoring colour {c!r} is not one of {p!r}'s colours")
    else:
        owners = {c: c for c in colors}
        if scoring is not None:
            raise InvalidStateError("a secret scoring colour exists only in the 2-player variant")
    blocks = {start_map[c]: c for c in colors}
    flags = {c: FlagSpot.on_block(start_map[c], (0, 0, 1)) for c in colors}
    return State(
        blocks=blocks,
        flags=flags,
        starts={c: start_map[c] for c in colors},
        colors=tuple(colors),
        owners=owners,
        scoring=dict(scoring) if scoring is not None else None,
        to_move=colors[0],
        phase="place",
        first_turn_pending=frozenset(colors),
    )
