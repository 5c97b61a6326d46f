"""The Gridopolis JSON state file and the set-up / state checks (``validate_state``).

Document (pads as ``[x, y, level]``; ``"x,y,level"`` strings are accepted too)::

    {"game": "gridopolis", "version": 1,
     "players": [{"name": "green", "forward": "+y", "blockers": 2, "pads": 3, "posts": 2,
                  "captured": 0}, ...],                        # in turn order
     "pads": [[2, 0, 0], ...], "posts": [[2, 2, 1], ...],      # a post holds the pad it names
     "kingerizers": [{"pad": [2, 0, 0], "player": "green"}, ...],
     "hyper_pads": [[3, 3, 1], ...],
     "blockers": [{"pad": [3, 3, 0], "player": "green"}],     # placed blocker boxes
     "markers": [{"pad": [2, 0, 0], "player": "green", "king": false}, ...],
     "to_move": "green", "king_move": null, "turns": 0, "rounds": 0,
     "turn_limit": null, "passes": 0, "quiet_turns": 0}

:func:`validate_state` never raises for rule problems: it returns one
:class:`engine.core.Problem` per problem, in words (which piece, where, what rule).
It raises :class:`InvalidStateError` only when the document is not a Gridopolis state at all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from engine.core import InvalidMoveError, InvalidStateError, Problem
from engine.gridopolis.layout import (
    HYPER_PADS,
    MARKERS_PER_PLAYER,
    START_BLOCKERS,
    START_PADS,
    START_POSTS,
    standard_layout,
)
from engine.gridopolis.pads import Pad
from engine.gridopolis.state import FORWARD_VECTORS, Marker, Player, State

__all__ = ["FORMAT_VERSION", "state_from_json", "state_to_json", "validate_state"]

FORMAT_VERSION = 1

R_PARTS = 'Gridopolis rulebook, "Configuración para Matrix" (the ten parts of each player)'
R_BUILD = 'Gridopolis rulebook, "Construye tu Grid-set"'
R_GRIDSET = 'Gridopolis rulebook, "Construyendo un Grid-set"'
R_NODES = 'Gridopolis rulebook, "Partes de nodo"'
R_MOVING = 'Gridopolis rulebook, "Moviente"'
R_BLOCKER = 'Gridopolis rulebook, "Caja bloqueadora"'
R_ADD = 'Gridopolis rulebook, "Agregar un pad"'
R_CAPTURE = 'Gridopolis rulebook, "Capturando", "Kamikaze"'
R_END = 'Gridopolis rulebook, "Fin del juego"'
R_LAYOUT = 'docs/rules/gridopolis.md, "The Matrix layout" (interpretation: the figure is missing)'

#: Problem codes that only concern the set-up (turn 0); ``from_json`` accepts them.
SETUP_CODES = frozenset(
    {"setup-marker", "setup-king", "setup-supply", "setup-blocker", "setup-levels", "setup-posts", "layout"}
)


def state_to_json(state: State) -> dict[str, Any]:
    """The interchange document of ``state`` (sorted, stable, round-trips exactly)."""
    return {
        "game": "gridopolis",
        "version": FORMAT_VERSION,
        "players": [
            {
                "name": p.name,
                "forward": p.forward,
                "blockers": p.blockers,
                "pads": p.pads,
                "posts": p.posts,
                "captured": p.captured,
            }
            for p in state.players
        ],
        "pads": [p.as_list() for p in sorted(state.pads)],
        "posts": [p.as_list() for p in sorted(state.posts)],
        "kingerizers": [{"pad": p.as_list(), "player": o} for p, o in sorted(state.kingerizers.items())],
        "hyper_pads": [p.as_list() for p in sorted(state.hyper_pads)],
        "blockers": [{"pad": p.as_list(), "player": o} for p, o in sorted(state.blockers.items())],
        "markers": [
            {"pad": p.as_list(), "player": m.player, "king": m.king} for p, m in sorted(state.markers.items())
        ],
        "to_move": state.players[state.to_move].name,
        "king_move": state.king_move.as_list() if state.king_move is not None else None,
        "turns": state.turns,
        "rounds": state.rounds,
        "turn_limit": state.turn_limit,
        "passes": state.passes,
        "quiet_turns": state.quiet_turns,
    }


def state_from_json(doc: Any) -> State:
    """Read a state document; raises :class:`InvalidStateError` naming the first problem
    when it is malformed or inconsistent (set-up-only findings do not prevent loading)."""
    state, problems = read_state(doc)
    errors = [p for p in problems if p.severity == "error" and p.code not in SETUP_CODES]
    if errors or state is None:
        more = f" (and {len(errors) - 1} more problems)" if len(errors) > 1 else ""
        raise InvalidStateError(f"invalid Gridopolis state: {errors[0]}{more}")
    return state


def validate_state(doc: Any) -> list[Problem]:
    """Every problem of a Gridopolis state document, in words (empty when it is right).

    Raises :class:`InvalidStateError` only when ``doc`` cannot be read as a Gridopolis
    state at all (not a JSON object, or another game's document).
    """
    return read_state(doc)[1]


# ---------------------------------------------------------------------- reading
class _Reader:
    def __init__(self) -> None:
        self.problems: list[Problem] = []

    def bad(self, message: str, where: str = "", rule: str = "") -> None:
        self.problems.append(Problem("format", message, where, rule or "Gridopolis state file"))

    def pad(self, value: Any, where: str) -> Pad | None:
        if isinstance(value, str):
            try:
                return Pad.parse(value)
            except InvalidMoveError:
                pass
        elif (
            isinstance(value, list)
            and len(value) == 3
            and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
            and value[2] >= 0
        ):
            return Pad(value[0], value[1], value[2])
        self.bad(f"{value!r} is not a pad: expected [x, y, level] with integers and level >= 0", where)
        return None

    def pad_list(self, doc: dict[str, Any], key: str, required: bool = True) -> list[Pad]:
        value = doc.get(key, None if required else [])
        if not isinstance(value, list):
            self.bad(f"field {key!r} must be a list of pads, got {value!r}", key)
            return []
        out = []
        for i, item in enumerate(value):
            p = self.pad(item, f"{key}[{i}]")
            if p is not None:
                out.append(p)
        return out

    def owned(
        self, doc: dict[str, Any], key: str, extra: Callable[[dict[str, Any], str], Any] | None = None
    ) -> list[tuple[Pad, str, Any]]:
        value = doc.get(key, [])
        if not isinstance(value, list):
            self.bad(
                f"field {key!r} must be a list of {{'pad': ..., 'player': ...}} objects, got {value!r}", key
            )
            return []
        out = []
        for i, item in enumerate(value):
            where = f"{key}[{i}]"
            if not isinstance(item, dict):
                self.bad(f"{item!r} must be an object with 'pad' and 'player'", where)
                continue
            p = self.pad(item.get("pad"), where)
            owner = item.get("player")
            if not isinstance(owner, str) or not owner:
                self.bad(f"'player' must be a player's name, got {owner!r}", where)
                continue
            if p is not None:
                out.append((p, owner, extra(item, where) if extra else None))
        return out

    def integer(
        self,
        doc: dict[str, Any],
        key: str,
        default: int | None,
        minimum: int = 0,
        where: str = "",
        nullable: bool = False,
    ) -> int | None:
        value = doc.get(key, default)
        if value is None and nullable:
            return None
        if not isinstance(value, int) or isinstance(value, bool) or value < minimum:
            self.bad(f"field {key!r} must be an integer >= {minimum}, got {value!r}", where or key)
            return default
        return value


def read_state(doc: Any) -> tuple[State | None, list[Problem]]:
    """``(state or None, problems)``: the state is ``None`` when the document is malformed."""
    if not isinstance(doc, dict):
        raise InvalidStateError(
            f"a Gridopolis state must be a JSON object, got {type(doc).__name__}: {doc!r:.80}"
        )
    game = doc.get("game", "gridopolis")
    if game != "gridopolis":
        raise InvalidStateError(f"not a Gridopolis state: 'game' is {game!r}, expected 'gridopolis'")
    r = _Reader()
    version = doc.get("version", FORMAT_VERSION)
    if version != FORMAT_VERSION:
        r.bad(
            f"unsupported state file version {version!r} (this Boardside reads version {FORMAT_VERSION})",
            "version",
        )

    players: list[Player] = []
    raw_players = doc.get("players")
    if not isinstance(raw_players, list) or not raw_players:
        r.bad(f"field 'players' must be a non-empty list of players, got {raw_players!r}", "players")
        raw_players = []
    for i, item in enumerate(raw_players):
        where = f"players[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str) or not item.get("name"):
            r.bad(f"{item!r} must be an object with a 'name'", where)
            continue
        forward = item.get("forward")
        if forward not in FORWARD_VECTORS:
            r.bad(
                f"player {item['name']!r} has forward {forward!r}; expected one of "
                f"{', '.join(FORWARD_VECTORS)}",
                where,
            )
            continue
        nums = {}
        for key, default in (
            ("blockers", START_BLOCKERS),
            ("pads", START_PADS),
            ("posts", START_POSTS),
            ("captured", 0),
        ):
            nums[key] = r.integer(item, key, default, where=f"{where}.{key}") or 0
        players.append(
            Player(item["name"], forward, nums["blockers"], nums["pads"], nums["posts"], nums["captured"])
        )
    names = [p.name for p in players]

    pads = r.pad_list(doc, "pads")
    posts = r.pad_list(doc, "posts", required=False)
    hyper = r.pad_list(doc, "hyper_pads")
    kingerizers = r.owned(doc, "kingerizers")
    blockers = r.owned(doc, "blockers")

    def king_flag(item: dict[str, Any], where: str) -> bool:
        k = item.get("king", False)
        if not isinstance(k, bool):
            r.bad(f"'king' must be true or false, got {k!r}", where)
            return False
        return k

    if not isinstance(doc.get("markers"), list):
        r.bad(f"field 'markers' must be a list, got {doc.get('markers')!r}", "markers")
    markers = r.owned(doc, "markers", king_flag)
    to_move_name = doc.get("to_move", names[0] if names else None)
    king_move_raw = doc.get("king_move")
    king_move = r.pad(king_move_raw, "king_move") if king_move_raw is not None else None
    turns = r.integer(doc, "turns", 0) or 0
    rounds = r.integer(doc, "rounds", 0) or 0
    passes = r.integer(doc, "passes", 0) or 0
    quiet_turns = r.integer(doc, "quiet_turns", 0) or 0
    turn_limit = r.integer(doc, "turn_limit", None, minimum=1, nullable=True)

    problems = r.problems
    if problems:
        return None, problems

    # ------------------------------------------------------------ consistency (any time)
    def add(code: str, message: str, where: str, rule: str, severity: str = "error") -> None:
        problems.append(Problem(code, message, where, rule, "warning" if severity == "warning" else "error"))

    if len(set(names)) != len(names):
        dup = [n for n, c in Counter(names).items() if c > 1]
        add("players", f"player names must differ; {dup[0]!r} appears more than once", "players", R_PARTS)
    if not 2 <= len(players) <= 4:
        add(
            "players",
            f"Matrix is played by 2, 3 or 4 players, this state has {len(players)}",
            "players",
            R_PARTS,
        )
    forwards = Counter(p.forward for p in players)
    for fwd, c in forwards.items():
        if c > 1:
            add(
                "players",
                f"{c} players share the forward direction {fwd!r}: each start row faces its own side",
                "players",
                R_BUILD,
            )
    known = set(names)
    pad_set = set(pads)
    for p, c in Counter(pads).items():
        if c > 1:
            add("pad-duplicate", f"pad {p} is listed {c} times", f"pad at {p}", R_GRIDSET)
    for pl in players:
        for key, cap in (("blockers", START_BLOCKERS), ("pads", START_PADS), ("posts", START_POSTS)):
            if getattr(pl, key) > cap:
                add(
                    "supply",
                    f"{pl.name} holds {getattr(pl, key)} spare {key}; each player starts with {cap}",
                    f"{pl.name}'s reserve",
                    R_PARTS,
                )

    # posts and support
    for p in sorted(set(posts)):
        below = p.below()
        if p not in pad_set:
            add(
                "post",
                f"the post at {p} holds no pad: a post joins a pad to the pad directly below it",
                f"post under {p}",
                R_ADD,
            )
        elif below not in pad_set:
            add(
                "post",
                f"the post under {p} stands on nothing: there is no pad at {below}",
                f"post under {p}",
                R_ADD,
            )
    supported = _supported(pad_set, set(posts))
    for p in sorted(pad_set - supported):
        add(
            "unsupported",
            f"pad {p} is not held up: no chain of links and posts joins it to level 0",
            f"pad at {p}",
            R_GRIDSET,
        )

    # node parts: kingerizers, hyper-pads, blocker boxes -- one per pad, on pads
    node_at: dict[Pad, str] = {}

    def place_node(pad: Pad, what: str, rule: str) -> None:
        if pad not in pad_set:
            add("node-off-grid", f"{what} is at {pad}, where there is no pad", f"{what} at {pad}", rule)
        if pad in node_at:
            add(
                "node-conflict",
                f"{what} and {node_at[pad]} share the pad at {pad}: one node part per pad",
                f"pad at {pad}",
                R_NODES,
            )
        node_at[pad] = what

    for pad in hyper:
        place_node(pad, "hyper-pad", R_BUILD)
    for pad, owner, _ in kingerizers:
        if owner not in known:
            add(
                "unknown-player",
                f"the kingerizer at {pad} belongs to {owner!r}, who is not a player",
                f"kingerizer at {pad}",
                R_NODES,
            )
        place_node(pad, f"{owner}'s kingerizer", R_BUILD)
    for pad, owner, _ in blockers:
        if owner not in known:
            add(
                "unknown-player",
                f"the blocker box at {pad} belongs to {owner!r}, who is not a player",
                f"blocker box at {pad}",
                R_BLOCKER,
            )
        place_node(pad, f"{owner}'s blocker box", R_BLOCKER)
    if len(set(hyper)) != 5:
        add(
            "hyper-pads",
            f"the grid-set has {len(set(hyper))} hyper-pads; Matrix places five "
            '("Coloque hiper-almohadillas como se muestra, cinco en total")',
            "hyper-pads",
            R_BUILD,
        )

    rows: dict[str, list[Pad]] = {n: [] for n in names}
    for pad, owner, _ in kingerizers:
        rows.setdefault(owner, []).append(pad)
    for pl in players:
        row = sorted(set(rows.get(pl.name, [])))
        msg = _row_problem(row, pl)
        if msg:
            add("start-row", msg, f"{pl.name}'s start row", R_BUILD)

    blocked = {pad for pad, _, _ in blockers}
    placed = Counter(owner for _, owner, _ in blockers)
    for pl in players:
        if placed[pl.name] + pl.blockers != START_BLOCKERS:
            add(
                "blockers",
                f"{pl.name} has placed {placed[pl.name]} blocker boxes and holds {pl.blockers}: "
                f"each player has exactly {START_BLOCKERS}",
                f"{pl.name}'s blocker boxes",
                R_BLOCKER,
            )

    # markers
    marker_at: dict[Pad, Marker] = {}
    for pad, owner, king in markers:
        m = Marker(owner, bool(king))
        what = f"{m.describe()} at {pad}"
        if owner not in known:
            add(
                "unknown-player",
                f"the marker at {pad} belongs to {owner!r}, who is not a player",
                what,
                R_PARTS,
            )
        if pad not in pad_set:
            add("marker-off-grid", f"the {what} stands where there is no pad", what, R_GRIDSET)
        elif pad in blocked:
            add(
                "marker-on-blocker", f"the {what} stands on a pad taken out by a blocker box", what, R_BLOCKER
            )
        if pad in marker_at:
            add(
                "marker-stack",
                f"two markers share the pad at {pad} ({marker_at[pad].describe()} and {m.describe()})",
                f"pad at {pad}",
                R_MOVING,
            )
        marker_at[pad] = m
    on_grid = Counter(m.player for m in marker_at.values())
    for pl in players:
        if on_grid[pl.name] > MARKERS_PER_PLAYER:
            add(
                "markers",
                f"{pl.name} has {on_grid[pl.name]} markers on the grid-set; each player has "
                f"{MARKERS_PER_PLAYER}",
                f"{pl.name}'s markers",
                R_PARTS,
            )
    missing = MARKERS_PER_PLAYER * len(players) - sum(on_grid[pl.name] for pl in players)
    held = sum(pl.captured for pl in players)
    if missing >= 0 and held != missing:
        add(
            "captures",
            f"{missing} markers are off the grid-set but the players hold {held} captured "
            "markers: every marker that leaves the grid-set is held by a player as a capture",
            "captured markers",
            R_CAPTURE,
        )

    # whose turn
    to_move = 0
    if to_move_name not in known:
        add("to-move", f"'to_move' is {to_move_name!r}, who is not a player", "to_move", R_MOVING)
    else:
        to_move = names.index(to_move_name)
        alive_count = sum(1 for pl in players if on_grid[pl.name] > 0)
        if on_grid[to_move_name] == 0 and alive_count > 1:
            add(
                "to-move",
                f"it is {to_move_name}'s turn but {to_move_name} has no marker left on the grid-set",
                "to_move",
                R_END,
            )
    if king_move is not None:
        km = marker_at.get(king_move)
        if km is None or not km.king or km.player != to_move_name:
            add(
                "king-move",
                f"'king_move' names {king_move}, which does not hold a king of {to_move_name!r}",
                "king_move",
                R_MOVING,
            )
    if turn_limit is not None and rounds > turn_limit:
        add(
            "turn-limit",
            f"{rounds} rounds have been played, more than the turn limit {turn_limit}",
            "rounds",
            R_END,
        )

    # ------------------------------------------------------------ the set-up (turn 0)
    if turns == 0:
        _setup_checks(add, players, pad_set, set(posts), set(hyper), rows, marker_at, blockers)

    state = State(
        players=tuple(players),
        pads=frozenset(pad_set),
        posts=frozenset(posts),
        kingerizers={pad: owner for pad, owner, _ in kingerizers},
        hyper_pads=frozenset(hyper),
        blockers={pad: owner for pad, owner, _ in blockers},
        markers=marker_at,
        to_move=to_move,
        king_move=king_move,
        turns=turns,
        rounds=rounds,
        turn_limit=turn_limit,
        passes=passes,
        quiet_turns=quiet_turns,
    )
    return state, problems


def _supported(pads: set[Pad], posts: set[Pad]) -> set[Pad]:
    """Pads joined to level 0 (which rests on the table) by links and posts."""
    cells = {(p.x, p.y, p.level) for p in pads}
    held = {(p.x, p.y, p.level) for p in posts}
    seen = {c for c in cells if c[2] == 0}
    todo = list(seen)
    while todo:
        x, y, lv = todo.pop()
        nbrs = [(x + 1, y, lv), (x - 1, y, lv), (x, y + 1, lv), (x, y - 1, lv)]
        if (x, y, lv) in held:
            nbrs.append((x, y, lv - 1))
        if (x, y, lv + 1) in held:
            nbrs.append((x, y, lv + 1))
        for q in nbrs:
            if q in cells and q not in seen:
                seen.add(q)
                todo.append(q)
    return {p for p in pads if (p.x, p.y, p.level) in seen}


def _row_problem(row: list[Pad], player: Player) -> str:
    """Three kingerizers in a straight row of neighbouring pads, across the player's way
    ("Coloque los kingerizers en una sola 'fila de inicio' para cada jugador ... para un
    total de tres")."""
    if len(row) != MARKERS_PER_PLAYER:
        return (
            f"{player.name} has {len(row)} kingerizers; the start row is {MARKERS_PER_PLAYER} kingerizers "
            "in one row"
        )
    fx, fy = FORWARD_VECTORS[player.forward]
    along = (abs(fy), abs(fx), 0)  # the row runs across the forward direction
    first = row[0]
    expected = [Pad(first.x + along[0] * k, first.y + along[1] * k, first.level) for k in range(len(row))]
    if row != expected:
        return (
            f"{player.name}'s kingerizers at {', '.join(str(p) for p in row)} are not one straight "
            f"row of neighbouring pads on one level running across {player.name}'s forward "
            f"direction {player.forward}"
        )
    return ""


def _setup_checks(
    add: Callable[..., None],
    players: list[Player],
    pads: set[Pad],
    posts: set[Pad],
    hyper: set[Pad],
    rows: dict[str, list[Pad]],
    marker_at: dict[Pad, Marker],
    blockers: list[tuple[Pad, str, Any]],
) -> None:
    for pad, m in sorted(marker_at.items()):
        if m.king:
            add(
                "setup-king",
                f"the {m.describe()} at {pad} is a king at the start: all markers begin as pawns "
                '("Todos los marcadores comienzan como peones")',
                f"{m.describe()} at {pad}",
                'Gridopolis rulebook, "Empeñar"',
            )
        if pad not in set(rows.get(m.player, [])):
            add(
                "setup-marker",
                f"the {m.describe()} at {pad} is not on {m.player}'s start row: markers start on "
                'their own start row and must leave it ("Los marcadores deben salir")',
                f"{m.describe()} at {pad}",
                R_MOVING,
            )
    for p in players:
        count = sum(1 for m in marker_at.values() if m.player == p.name)
        if count != MARKERS_PER_PLAYER:
            add(
                "setup-marker",
                f"{p.name} has {count} markers on the grid-set at the start; each player starts "
                f"with {MARKERS_PER_PLAYER}",
                f"{p.name}'s markers",
                R_PARTS,
            )
        if (p.blockers, p.pads, p.posts, p.captured) != (START_BLOCKERS, START_PADS, START_POSTS, 0):
            add(
                "setup-supply",
                f"{p.name} starts with {p.blockers} blocker boxes, {p.pads} pads, {p.posts} posts "
                f"and {p.captured} captures; the rulebook gives {START_BLOCKERS}, {START_PADS}, "
                f"{START_POSTS} and 0",
                f"{p.name}'s reserve",
                R_PARTS,
            )
    for pad, owner, _ in blockers:
        add(
            "setup-blocker",
            f"{owner}'s blocker box is already on {pad} at the start: blocker boxes are placed "
            "during play, instead of a move",
            f"blocker box at {pad}",
            R_BLOCKER,
        )
    levels = sorted({p.level for p in pads})
    if levels != [0, 1, 2]:
        add(
            "setup-levels",
            f"the grid-set has levels {levels}; Matrix builds three levels, 0, 1 and 2 "
            '("Construya tres niveles")',
            "grid-set",
            R_BUILD,
        )
    for lv in (1, 2):
        n = sum(1 for p in posts if p.level == lv)
        if n != 4:
            add(
                "setup-posts",
                f"level {lv} stands on {n} posts; Matrix adds four support posts for each level "
                '("agregue cuatro puestos de apoyo para cada nivel")',
                f"posts under level {lv}",
                R_BUILD,
            )
    if 2 <= len(players) <= 4:
        std_pads, std_posts = standard_layout(len(players))
        missing = sorted(std_pads - pads)
        extra = sorted(pads - std_pads)
        if missing or extra:
            parts = []
            if missing:
                parts.append(f"{len(missing)} pads missing (e.g. {missing[0]})")
            if extra:
                parts.append(f"{len(extra)} extra pads (e.g. {extra[0]})")
            add(
                "layout",
                f"the grid-set differs from the standard Matrix layout for {len(players)} players: "
                + ", ".join(parts),
                "grid-set",
                R_LAYOUT,
                "warning",
            )
        if hyper != set(HYPER_PADS):
            add(
                "layout",
                "the hyper-pads are not where the standard Matrix layout puts them (the centre of "
                "level 1 and the four corners of level 2)",
                "hyper-pads",
                R_LAYOUT,
                "warning",
            )
        if posts != set(std_posts):
            add(
                "layout",
                "the support posts are not under the corner pads of levels 1 and 2 as in the standard "
                "Matrix layout",
                "posts",
                R_LAYOUT,
                "warning",
            )
