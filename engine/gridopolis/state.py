"""The Gridopolis "Matrix" game state: rules of movement, jumping, nodes and endings.

Every rule names its passage of the Gridopolis rulebook (``../shared/seeds/002_710f66395df92b4b.txt``,
Spanish); docs/rules/gridopolis.md lists them with translations and every interpretation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

from engine.core import ChanceEvent, GameError, GameState, IllegalMoveError, InvalidMoveError
from engine.gridopolis.layout import (
    HYPER_PADS,
    MARKERS_PER_PLAYER,
    START_BLOCKERS,
    START_PADS,
    START_POSTS,
    seats_for,
    standard_layout,
)
from engine.gridopolis.moves import AddPad, EndTurn, Jump, Kamikaze, Move, Pass, PlaceBlocker, Step
from engine.gridopolis.pads import ORTHOGONAL, Pad, rays

__all__ = ["FORWARD_VECTORS", "QUIET_TURNS_PER_PLAYER", "Marker", "Player", "State", "new_state"]

#: Turns per player still in the game without a capture, kamikaze, crowning, blocker box or
#: added pad after which the game ends on points (interpretation: the no-progress ending).
QUIET_TURNS_PER_PLAYER = 50

#: A player's forward direction (away from its start row) as a horizontal unit vector.
FORWARD_VECTORS: dict[str, tuple[int, int]] = {"+y": (0, 1), "-y": (0, -1), "+x": (1, 0), "-x": (-1, 0)}


@dataclass(frozen=True)
class Marker:
    """A player's marker: a pawn, or a king once flipped (rulebook "Rey", "Empeñar")."""

    player: str
    king: bool = False

    def describe(self) -> str:
        return f"{self.player} {'king' if self.king else 'pawn'}"


@dataclass(frozen=True)
class Player:
    """A player, its forward direction and what it still holds ("diez partes").

    ``captured`` counts the markers this player holds as captures (points in the timed
    game, rulebook "Fin del juego, opción 2" and "Kamikaze").
    """

    name: str
    forward: str
    blockers: int = START_BLOCKERS
    pads: int = START_PADS
    posts: int = START_POSTS
    captured: int = 0


@dataclass(eq=True)
class State(GameState[Move]):
    """A Gridopolis position.  Treated as immutable: :meth:`apply` returns a new state.

    ``king_move`` is set between a king's first move and its optional second move
    (rulebook "Moviente": "obtienen dos movimientos separados seguidos").  ``rounds``
    counts completed rounds (every living player has had a turn); with ``turn_limit``
    the timed ending (option 2) happens after that many rounds.
    """

    players: tuple[Player, ...]
    pads: frozenset[Pad]
    posts: frozenset[Pad]
    kingerizers: Mapping[Pad, str]
    hyper_pads: frozenset[Pad]
    blockers: Mapping[Pad, str]
    markers: Mapping[Pad, Marker]
    to_move: int = 0
    king_move: Pad | None = None
    turns: int = 0
    rounds: int = 0
    turn_limit: int | None = None
    passes: int = 0
    quiet_turns: int = 0

    # ------------------------------------------------------------------ queries
    @property
    def player_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.players)

    def player(self, name: str) -> Player:
        for p in self.players:
            if p.name == name:
                return p
        raise GameError(f"unknown player {name!r} (players: {', '.join(self.player_names)})")

    def index_of(self, name: str) -> int:
        return self.player_names.index(self.player(name).name)

    def markers_of(self, name: str) -> list[Pad]:
        return sorted(p for p, m in self.markers.items() if m.player == name)

    @cached_property
    def _on_grid(self) -> dict[str, int]:
        counts = {p.name: 0 for p in self.players}
        for m in self.markers.values():
            counts[m.player] = counts.get(m.player, 0) + 1
        return counts

    def alive(self) -> list[int]:
        """Seat indices of players who still have a marker on the grid-set."""
        return [i for i, p in enumerate(self.players) if self._on_grid.get(p.name, 0) > 0]

    def points(self, name: str) -> int:
        """Markers left plus markers captured (rulebook "Fin del juego, opción 2":
        "cuenta todos los marcadores que te quedan y los que has capturado")."""
        return self._on_grid.get(name, 0) + self.player(name).captured

    @cached_property
    def _start_rows(self) -> dict[str, frozenset[Pad]]:
        rows: dict[str, set[Pad]] = {p.name: set() for p in self.players}
        for pad, owner in self.kingerizers.items():
            rows.setdefault(owner, set()).add(pad)
        return {k: frozenset(v) for k, v in rows.items()}

    def start_row(self, name: str) -> frozenset[Pad]:
        """The pads carrying ``name``'s kingerizers (rulebook "Kingerizer")."""
        return self._start_rows.get(name, frozenset())

    def is_playable(self, pad: Pad) -> bool:
        """A pad exists and no blocker box has taken it out of play ("Caja bloqueadora")."""
        return pad in self.pads and pad not in self.blockers

    def open_pads(self) -> list[Pad]:
        """Pads a blocker box may go on: "cualquier pad abierto (que no esté ocupado por un
        kingerizer, hyperpad o marcador de jugador)" (rulebook "Caja bloqueadora")."""
        return sorted(
            p
            for p in self.pads
            if p not in self.blockers
            and p not in self.kingerizers
            and p not in self.hyper_pads
            and p not in self.markers
        )

    def links(self) -> list[tuple[Pad, Pad]]:
        """Links joining orthogonal neighbours of one level (derived: every pad is linked
        on all four sides to the pads next to it, rulebook "Construyendo un Grid-set")."""
        out = []
        for p in sorted(self.pads):
            for d in ((1, 0, 0), (0, 1, 0)):
                q = p + d
                if q in self.pads:
                    out.append((p, q))
        return out

    def levels(self) -> list[int]:
        return sorted({p.level for p in self.pads})

    # ------------------------------------------------------------------ GameState
    def ending(self) -> str | None:
        """How the game ended, or ``None`` (rulebook "Fin del juego").

        ``"last-marker"``: at most one player has markers left ("Opción 1: ¡Sé el último
        marcador en pie!"); ``"turn-limit"``: ``turn_limit`` rounds are complete ("Opción 2:
        Juega hasta el límite de tiempo que elijas. Asegúrese de que cada persona tenga el
        mismo número de turnos"); ``"no-moves"``: every player still in the game passed in a
        row; ``"no-progress"``: ``QUIET_TURNS_PER_PLAYER`` turns per player still in the game
        without a capture, kamikaze, crowning, blocker box or added pad -- the markers left can
        no longer get at each other, or nobody tries (interpretations, docs/rules/gridopolis.md).
        """
        alive = self.alive()
        if len(alive) <= 1:
            return "last-marker"
        if self.turn_limit is not None and self.rounds >= self.turn_limit:
            return "turn-limit"
        if self.passes >= len(alive):
            return "no-moves"
        if self.quiet_turns >= QUIET_TURNS_PER_PLAYER * len(alive):
            return "no-progress"
        return None

    def is_terminal(self) -> bool:
        return self.ending() is not None

    def current_player(self) -> str | None:
        if self.is_terminal():
            return None
        return self.players[self.to_move].name

    def returns(self) -> Mapping[str, float]:
        """1.0 to the winner, shared wins split, 0.0 otherwise (rulebook "Fin del juego").

        Last marker standing wins outright (option 1); otherwise (turn limit, nobody able
        to move, or a kamikaze removing the last two markers) the most points win (option 2).
        """
        ending = self.ending()
        if ending is None:
            raise GameError("returns() called on a game that is not over")
        alive = self.alive()
        if ending == "last-marker" and len(alive) == 1:
            winners = [self.players[alive[0]].name]
        else:
            best = max(self.points(p.name) for p in self.players)
            winners = [p.name for p in self.players if self.points(p.name) == best]
        return {p.name: (1.0 / len(winners) if p.name in winners else 0.0) for p in self.players}

    def legal_moves(self) -> Sequence[Move]:
        return self._legal

    @cached_property
    def _legal(self) -> tuple[Move, ...]:
        if self.is_terminal():
            return ()
        name = self.players[self.to_move].name
        if self.king_move is not None:
            return (*self._marker_moves(self.king_move), EndTurn())
        moves: list[Move] = []
        for pad in self.markers_of(name):
            moves.extend(self._marker_moves(pad))
        me = self.players[self.to_move]
        if me.blockers > 0:
            moves.extend(PlaceBlocker(p) for p in self.open_pads())
        if me.pads > 0:
            moves.extend(self._add_pad_moves(me.posts > 0))
        if not moves:
            moves.append(Pass())
        return tuple(moves)

    @cached_property
    def _legal_set(self) -> frozenset[Move]:
        return frozenset(self._legal)

    def is_legal(self, move: Move) -> bool:
        return move in self._legal_set

    # ------------------------------------------------------------------ move generation
    def _allowed(self, marker: Marker, frm: Pad, to: Pad) -> bool:
        """The pawn direction rules (rulebook "Moviente"): never back toward the baseline
        ("nunca pueden retroceder, hacia su línea de base"), sideways fine except along the
        start row ("Moverse hacia los lados está bien, excepto para la fila de inicio").
        Kings move in any direction ("Los reyes pueden mover un pad en cualquier dirección")."""
        if marker.king:
            return True
        fx, fy = self._forward[marker.player]
        d = frm.delta(to)
        f = d[0] * fx + d[1] * fy
        if f < 0:
            return False
        row = self.start_row(marker.player)
        return not (f == 0 and frm in row and to in row)

    @cached_property
    def _forward(self) -> dict[str, tuple[int, int]]:
        return {p.name: FORWARD_VECTORS[p.forward] for p in self.players}

    def _transmissions(self, start: Pad, landing: Pad) -> list[Pad | None]:
        """Hyper-pad transmission choices after landing on ``landing`` (rulebook "Hyper-pad"):
        to any other open hyper-pad of the mover's choice ("a cualquier otro hiperpad abierto,
        de su elección"), compulsory unless all are occupied ("debe transmitir, a menos que
        todos los demás hiperpadres estén ocupados"), any of them even for pawns ("Los peones
        no están sujetos a la regla de 'moverse hacia atrás'").  The pad the marker started
        from counts as open: it has left it."""
        if landing not in self.hyper_pads:
            return [None]
        targets = sorted(h for h in self.hyper_pads if h != landing and (h not in self.markers or h == start))
        return list(targets) if targets else [None]

    def _marker_moves(self, a: Pad) -> Iterator[Move]:
        marker = self.markers[a]
        # steps: one pad in any of the 26 directions (rulebook "Moviente")
        for _d, b, _beyond in rays(a):
            if not self.is_playable(b) or b in self.markers or not self._allowed(marker, a, b):
                continue
            for h in self._transmissions(a, b):
                yield Step(a, b, h)
        yield from self._jumps(a, marker)
        # kamikaze: jump an opponent on the same level and fall off (rulebook "Kamikaze")
        for d, over, beyond in rays(a):
            if d[2] != 0:
                continue
            victim = self.markers.get(over)
            if victim is None or victim.player == marker.player:
                continue
            if self.is_playable(beyond) or not self._allowed(marker, a, over):
                continue
            yield Kamikaze(a, over)

    def _jumps(self, a: Pad, marker: Marker) -> Iterator[Jump]:
        """Straight-line hops over one marker onto an empty pad beyond, chained.

        Own-marker jumps ("Moviente": "saltar a su propio equipo ... en línea recta ...
        varios marcadores en el mismo movimiento") and captures ("Saltar 101": "salte sobre
        ellos, en línea recta, a un panel vacío"; "Salto múltiple") never mix ("No puedes
        combinar").  Each hop is straight; the direction may change between hops; no marker
        is jumped twice and no pad landed on twice; pawns never hop backward; a hop onto a
        hyper-pad ends the chain with the transmission (interpretations).
        """
        out: list[Jump] = []

        def dfs(path: tuple[Pad, ...], jumped: frozenset[Pad], capture: bool | None) -> None:
            cur = path[-1]
            for _d, over, land in rays(cur):
                if over == a or over in jumped:
                    continue
                victim = self.markers.get(over)
                if victim is None:
                    continue
                kind = victim.player != marker.player
                if capture is not None and kind != capture:
                    continue
                if not self.is_playable(land) or land in path:
                    continue
                if land in self.markers and land != a:
                    continue
                if not self._allowed(marker, cur, land):
                    continue
                new_path = (*path, land)
                if land in self.hyper_pads:
                    for h in self._transmissions(a, land):
                        out.append(Jump(new_path, kind, h))
                    continue
                out.append(Jump(new_path, kind))
                dfs(new_path, jumped | {over}, kind)

        dfs((a,), frozenset(), None)
        return iter(out)

    def _add_pad_moves(self, posts_left: bool) -> Iterator[AddPad]:
        """Add a pad "en cualquier lugar que quepa, ya sea horizontal o verticalmente"
        (rulebook "Agregar un pad"): linked beside a pad of the same level, or on a post
        directly above a pad ("la nueva plataforma debe estar directamente encima de otra
        plataforma").  A blocked pad is out of the game and anchors nothing (interpretation)."""
        horizontal: set[Pad] = set()
        vertical: set[Pad] = set()
        for q in self.pads:
            if q in self.blockers:
                continue
            for d in ORTHOGONAL:
                n = q + d
                if n not in self.pads:
                    horizontal.add(n)
            if posts_left:
                n = q.above()
                if n not in self.pads:
                    vertical.add(n)
        for n in sorted(horizontal):
            yield AddPad(n, post=False)
        for n in sorted(vertical):
            yield AddPad(n, post=True)

    # ------------------------------------------------------------------ applying moves
    def apply(self, move: Move | ChanceEvent | str) -> State:
        """The state after ``move`` (a :class:`Move` or its notation).

        Raises :class:`InvalidMoveError` for a malformed move and :class:`IllegalMoveError`
        (saying which rule) for a well-formed move the rules do not allow here.
        """
        if isinstance(move, str):
            move = Move.parse(move)
        if isinstance(move, ChanceEvent):
            raise IllegalMoveError(f"Gridopolis has no chance events, got {str(move)!r}")
        if not isinstance(move, Move):
            raise InvalidMoveError(f"not a Gridopolis move: {move!r}")
        if not self.is_legal(move):
            raise IllegalMoveError(self.why_illegal(move))
        return self._do(move)

    def _do(self, move: Move) -> State:
        me = self.to_move
        name = self.players[me].name
        players = list(self.players)
        if isinstance(move, Step | Jump):
            markers = dict(self.markers)
            marker = markers.pop(move.frm)
            landings: tuple[Pad, ...] = (move.to,) if isinstance(move, Step) else move.path[1:]
            if isinstance(move, Jump) and move.capture:
                for q in move.jumped():
                    del markers[q]
                players[me] = replace(players[me], captured=players[me].captured + len(move.jumped()))
            # "Una vez que aterrizas en la línea de inicio de cualquier oponente ... ahora es un rey"
            crowned = marker.king or any(
                self.kingerizers.get(q, name) != name for q in (*landings, move.final)
            )
            markers[move.final] = Marker(name, crowned)
            progress = crowned != marker.king or (isinstance(move, Jump) and move.capture)
            after = replace(
                self,
                markers=markers,
                players=tuple(players),
                passes=0,
                quiet_turns=0 if progress else self.quiet_turns,
            )
            if marker.king and self.king_move is None:
                # a king's optional second move, with the same king (rulebook "Moviente")
                return replace(after, king_move=move.final)
            return after._end_turn()
        if isinstance(move, Kamikaze):
            markers = dict(self.markers)
            del markers[move.frm]
            victim = markers.pop(move.over)
            # "El verde captura y mantiene el azul. El verde se le da al oponente azul."
            players[me] = replace(players[me], captured=players[me].captured + 1)
            vi = self.index_of(victim.player)
            players[vi] = replace(players[vi], captured=players[vi].captured + 1)
            return replace(self, markers=markers, players=tuple(players), passes=0, quiet_turns=0)._end_turn()
        if isinstance(move, PlaceBlocker):
            blockers = dict(self.blockers)
            blockers[move.pad] = name
            players[me] = replace(players[me], blockers=players[me].blockers - 1)
            return replace(
                self, blockers=blockers, players=tuple(players), passes=0, quiet_turns=0
            )._end_turn()
        if isinstance(move, AddPad):
            posts = self.posts | {move.pad} if move.post else self.posts
            players[me] = replace(
                players[me], pads=players[me].pads - 1, posts=players[me].posts - (1 if move.post else 0)
            )
            return replace(
                self,
                pads=self.pads | {move.pad},
                posts=posts,
                players=tuple(players),
                passes=0,
                quiet_turns=0,
            )._end_turn()
        if isinstance(move, EndTurn):
            return self._end_turn()
        if isinstance(move, Pass):
            return replace(self, passes=self.passes + 1)._end_turn()
        raise InvalidMoveError(f"not a Gridopolis move: {move!r}")  # pragma: no cover

    def _end_turn(self) -> State:
        """Pass the turn to the next player in seat order who still has markers; a round is
        complete when the turn wraps past the last seat, so every player has had the same
        number of turns ("quien fue primero, continúe hasta justo antes de que sea el turno de
        esa primera persona", rulebook "Fin del juego, opción 2")."""
        alive = set(self.alive())
        n = len(self.players)
        nxt = self.to_move
        for k in range(1, n + 1):
            j = (self.to_move + k) % n
            if j in alive:
                nxt = j
                break
        wrapped = nxt <= self.to_move
        return replace(
            self,
            to_move=nxt,
            king_move=None,
            turns=self.turns + 1,
            rounds=self.rounds + (1 if wrapped else 0),
            quiet_turns=self.quiet_turns + 1,
        )

    # ------------------------------------------------------------------ explanations
    def why_illegal(self, move: Move) -> str:
        """A sentence naming the rule ``move`` breaks here (for :class:`IllegalMoveError`)."""
        s = repr(str(move))
        if self.is_terminal():
            return f"move {s} is not allowed: the game is over ({self.ending()})"
        name = self.players[self.to_move].name
        me = self.players[self.to_move]
        if self.king_move is not None:
            if isinstance(move, EndTurn):
                return f"move {s} is legal"  # pragma: no cover
            if not (move.moves_marker and getattr(move, "frm", None) == self.king_move):
                return (
                    f"move {s} is not allowed: {name} is making the king's optional second move "
                    f"and may only move the king at {self.king_move} or say 'end' (rulebook \"Moviente\")"
                )
        if isinstance(move, EndTurn):
            return f"move {s} is not allowed: 'end' declines a king's second move and no king has moved"
        if isinstance(move, Pass):
            return f"move {s} is not allowed: {name} may pass only when no other move is possible"
        if isinstance(move, PlaceBlocker):
            if me.blockers <= 0:
                return (
                    f"move {s} is not allowed: {name} has used both blocker boxes "
                    '(rulebook "Caja bloqueadora")'
                )
            return f'move {s} is not allowed: {self._why_not_open(move.pad)} (rulebook "Caja bloqueadora")'
        if isinstance(move, AddPad):
            return f'move {s} is not allowed: {self._why_no_pad(move, me)} (rulebook "Agregar un pad")'
        if isinstance(move, Step | Jump | Kamikaze):
            marker = self.markers.get(move.frm)
            if marker is None:
                return f"move {s} is not allowed: there is no marker at {move.frm}"
            if marker.player != name:
                return (
                    f"move {s} is not allowed: the marker at {move.frm} is {marker.player}'s, "
                    f"and it is {name}'s turn"
                )
            return f"move {s} is not allowed: {self._why_marker(move, marker)}"
        return f"move {s} is not allowed here"  # pragma: no cover

    def _why_not_open(self, pad: Pad) -> str:
        if pad not in self.pads:
            return f"there is no pad at {pad}"
        if pad in self.blockers:
            return f"the pad at {pad} already has a blocker box"
        if pad in self.kingerizers:
            return f"the pad at {pad} carries {self.kingerizers[pad]}'s kingerizer"
        if pad in self.hyper_pads:
            return f"the pad at {pad} is a hyper-pad"
        if pad in self.markers:
            return f"the pad at {pad} is occupied by a {self.markers[pad].describe()}"
        return f"the pad at {pad} is not open"  # pragma: no cover

    def _why_no_pad(self, move: AddPad, me: Player) -> str:
        if me.pads <= 0:
            return f"{me.name} has used all three spare pads"
        if move.pad in self.pads:
            return f"there is already a pad at {move.pad}"
        if move.post:
            if me.posts <= 0:
                return f"{me.name} has used both spare posts"
            below = move.pad.below()
            if not self.is_playable(below):
                return (
                    f"a pad on a post must stand directly above another pad, and {below} "
                    "is not a playable pad"
                )
        return f"the new pad at {move.pad} would not be linked to any playable pad of level {move.pad.level}"

    def _why_marker(self, move: Step | Jump | Kamikaze, marker: Marker) -> str:
        if isinstance(move, Kamikaze):
            victim = self.markers.get(move.over)
            if victim is None or victim.player == marker.player:
                return (
                    f"a kamikaze jumps an opponent's marker, and there is none at {move.over} "
                    '(rulebook "Kamikaze")'
                )
            if not self._allowed(marker, move.frm, move.over):
                return self._direction_reason(marker)
            return (
                f"a kamikaze must fall off the grid-set, but {move.landing} is a playable pad: "
                'jump there as a capture instead (rulebook "Kamikaze")'
            )
        hops: list[tuple[Pad, Pad]]
        hops = [(move.frm, move.to)] if isinstance(move, Step) else list(zip(move.path, move.path[1:], strict=False))
        for i, (a, b) in enumerate(hops):
            if not self.is_playable(b):
                what = "there is no pad" if b not in self.pads else "a blocker box has taken out the pad"
                return f"{what} at {b}"
            if b in self.markers and b != move.frm:
                return f"the pad at {b} is occupied by a {self.markers[b].describe()}"
            if not self._allowed(marker, a, b):
                return self._direction_reason(marker)
            if isinstance(move, Jump):
                over = move.jumped()[i]
                victim = self.markers.get(over)
                if victim is None:
                    return f'a jump goes over a marker, and there is none at {over} (rulebook "Saltar 101")'
                if (victim.player != marker.player) != move.capture:
                    kind = "capture ('x')" if move.capture else "jump over own markers ('~')"
                    return (
                        f"the {victim.describe()} at {over} cannot be jumped in a {kind}: own jumps and "
                        'captures never mix (rulebook "Salto múltiple")'
                    )
                if b in self.hyper_pads and i < len(hops) - 1:
                    return f"a jump that lands on the hyper-pad at {b} ends there and transmits"
        landing = move.landing
        options = self._transmissions(move.frm, landing)
        if move.transmit is None and options != [None]:
            return (
                f"a marker landing on the hyper-pad at {landing} must transmit to another open hyper-pad: "
                f"add '>' and one of {', '.join(str(h) for h in options if h)} (rulebook \"Hyper-pad\")"
            )
        if move.transmit is not None:
            if landing not in self.hyper_pads:
                return f"only a marker landing on a hyper-pad transmits, and {landing} is not one"
            return (
                f"{move.transmit} is not another open hyper-pad (choose one of: "
                + ", ".join(str(h) for h in options if h)
                + ') (rulebook "Hyper-pad")'
            )
        return "no rule allows it here"  # pragma: no cover

    def _direction_reason(self, marker: Marker) -> str:
        return (
            f"{marker.player}'s pawns never move back toward their start row and never sideways along it "
            f'(forward is {self.player(marker.player).forward}; rulebook "Moviente")'
        )

    # ------------------------------------------------------------------ files and pictures
    def to_json(self) -> dict[str, Any]:
        from engine.gridopolis.serialize import state_to_json

        return state_to_json(self)

    @classmethod
    def from_json(cls, doc: Any) -> State:
        from engine.gridopolis.serialize import state_from_json

        return state_from_json(doc)

    def render(self, highlight: Sequence[Pad] = ()) -> str:
        from engine.gridopolis.render import render_state

        return render_state(self, highlight)


def new_state(players: int | Sequence[str] = 2, turn_limit: int | None = None) -> State:
    """The set-up of a Matrix game (rulebook "Configuración para Matrix").

    ``players`` is 2, 3 or 4, or a list of 2-4 colours for the seats in turn order
    (south, west, north, east; two players sit south and north).  ``turn_limit`` makes it
    the timed game (option 2) with that many rounds ("Asegúrese de que cada persona tenga
    el mismo número de turnos").
    """
    colours: list[str] | None = None
    if isinstance(players, int):
        count = players
    else:
        colours = [str(c) for c in players]
        count = len(colours)
    if count not in (2, 3, 4):
        raise GameError(f"Matrix is played by 2, 3 or 4 players, got {players!r}")
    if colours is not None and len(set(colours)) != len(colours):
        raise GameError(f"player colours must differ, got {players!r}")
    if turn_limit is not None and turn_limit < 1:
        raise GameError(f"turn limit must be at least 1 round, got {turn_limit!r}")
    seats = seats_for(count)
    names = colours or [s.colour for s in seats]
    pads, posts = standard_layout(count)
    kingerizers = {pad: names[i] for i, seat in enumerate(seats) for pad in seat.start_row}
    markers = {pad: Marker(names[i]) for i, seat in enumerate(seats) for pad in seat.start_row}
    assert all(len(seat.start_row) == MARKERS_PER_PLAYER for seat in seats)
    return State(
        players=tuple(Player(names[i], seat.forward) for i, seat in enumerate(seats)),
        pads=pads,
        posts=posts,
        kingerizers=kingerizers,
        hyper_pads=HYPER_PADS,
        blockers={},
        markers=markers,
        turn_limit=turn_limit,
    )
