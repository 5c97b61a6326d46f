"""Quirky Circuits scenarios: the board, tokens, battery track, hand sizes, deck and objective.

The rulebook's scenario book is not available, so Boardside defines a readable TOML format
(docs/rules/quirky.md, "Scenario format") and ships its own scenarios as package data.  The
parser takes *text* (the engine does no file I/O); syntax errors and rule errors are both
reported with a line and a column.
"""

from __future__ import annotations

import re
import tomllib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import GameError
from engine.motion import Heading, Pose
from engine.quirky.cards import Card, basic_deck

ROBOTS: dict[str, str] = {
    "gizmo": "vacuum robot: sucks up dust tokens on every space it enters",
    "twirl": "dancing robot: momentum after Forward 2 (rulebook, 'Momento de Twirl')",
    "rover": "carrier robot: one token on its cargo bed; long tokens overhang behind it",
    "penny": "two-handed robot: picks up into its right hand, then its left; Swap exchanges them",
}
#: carrying slots per robot (Rover's bed, Penny's right and left hands)
SLOTS: dict[str, int] = {"gizmo": 0, "twirl": 0, "rover": 1, "penny": 2}
#: interpretation of the missing hand-size table (docs/rules/quirky.md, "Hand sizes")
DEFAULT_HANDS: dict[int, int] = {2: 8, 3: 6, 4: 5}
MAP_CHARS = {".": "floor", "#": "obstacle", "Q": "start", "L": "spin-left", "R": "spin-right"}
Cell = tuple[int, int]


class ScenarioError(GameError):
    """A scenario file cannot be read or breaks the scenario format; names line and column."""

    def __init__(self, message: str, source: str = "scenario", line: int = 0, column: int = 0) -> None:
        self.source, self.line, self.column, self.reason = source, line, column, message
        where = f"{source}, line {line}, column {column}" if line else source
        super().__init__(f"{where}: {message}")


@dataclass(frozen=True)
class TokenSpec:
    """A scenario token: ``id`` unique, ``kind`` (dust, vase, ...), start space; ``long`` overhangs Rover."""

    id: str
    kind: str
    at: Cell
    long: bool = False
    fixed: bool = False  # a marker (basket, table, ...) that no robot can pick up


@dataclass(frozen=True)
class Objective:
    """Scenario objective: every given condition at once (rulebook, "Fin del juego")."""

    text: str = ""
    collect: tuple[str, ...] = ()  # every token of these kinds collected (carried by the robot)
    reach: Cell | None = None  # the robot stands on this space ...
    facing: Heading | None = None  # ... facing this way (only with reach)
    deliver: tuple[tuple[str, Cell], ...] = ()  # token id rests on the floor of this space
    intact: tuple[str, ...] = ()  # scenario rule: breaking a token of these kinds loses at once


@dataclass(frozen=True)
class Board:
    width: int
    height: int
    obstacles: frozenset[Cell]
    walls: frozenset[frozenset[Cell]]  # a wall separates two orthogonally adjacent spaces
    spins: Mapping[Cell, str]  # space -> "L" or "R"
    start: Pose

    def on_board(self, c: Cell) -> bool:
        return 0 <= c[0] < self.width and 0 <= c[1] < self.height

    def barrier(self, a: Cell, b: Cell) -> bool:
        """A barrier between adjacent spaces ``a`` and ``b``: a wall, or ``b`` off the board."""
        return not self.on_board(b) or frozenset((a, b)) in self.walls

    def char(self, c: Cell) -> str:
        if c == (self.start.x, self.start.y):
            return "Q"
        if c in self.obstacles:
            return "#"
        return self.spins.get(c, ".")


@dataclass(frozen=True)
class Scenario:
    id: str
    title: str
    robot: str
    difficulty: int
    description: str
    board: Board
    tokens: tuple[TokenSpec, ...]
    battery: int  # length of the track: the marker starts on this (highest) space
    yellow: int  # battery >= yellow: yellow section (or better)
    green: int  # battery >= green: green section
    hands: Mapping[int, int]
    deck: Mapping[Card, int]
    first: frozenset[str]  # quirk card codes that must be played before any other card
    vacuum: tuple[str, ...]  # token kinds Gizmo sucks up
    objective: Objective
    source: str = field(default="", compare=False)

    @property
    def slots(self) -> int:
        return SLOTS[self.robot]

    def deck_list(self) -> list[Card]:
        return sorted(Counter(self.deck).elements())

    def hand_size(self, players: int) -> int:
        if players not in self.hands:
            raise GameError(
                f"scenario {self.id!r} is for {', '.join(map(str, sorted(self.hands)))} players, "
                f"not {players!r}"
            )
        return self.hands[players]

    def section(self, battery: int) -> str:
        """Battery section: ``green`` and ``yellow`` are the rulebook's achievement levels."""
        if battery >= self.green:
            return "green"
        if battery >= self.yellow:
            return "yellow"
        return "red"


# --------------------------------------------------------------------------- locating errors


class _Locator:
    """Finds the line/column of a key in TOML text (for errors found after parsing)."""

    _HEADER = re.compile(r"^\s*\[(\[)?\s*([A-Za-z0-9_.\-\"]+)\s*\]")

    def __init__(self, text: str) -> None:
        self.lines = text.splitlines()

    def find(self, table: str, key: str | None = None, index: int = 0) -> tuple[int, int]:
        current, seen = "", -1
        header_line = (1, 1)
        for i, line in enumerate(self.lines):
            m = self._HEADER.match(line)
            if m:
                current = m.group(2).strip('"')
                if current == table:
                    seen += 1
                    if seen == index:
                        header_line = (i + 1, line.index(m.group(2)) + 1)
                continue
            if current != table or (table and seen != index):
                continue
            if key is None:
                continue
            km = re.match(rf"^(\s*)\"?{re.escape(key)}\"?\s*=", line)
            if km:
                return i + 1, len(km.group(1)) + 1
        if key is None or table:
            return header_line if (table and seen >= index) else (1, 1)
        return 1, 1

    def value_pos(self, table: str, key: str, needle: str, index: int = 0) -> tuple[int, int]:
        """Position of ``needle`` on or after the key's line (e.g. one entry of a list)."""
        line, col = self.find(table, key, index)
        for i in range(line - 1, min(len(self.lines), line + 30)):
            j = self.lines[i].find(needle, col - 1 if i == line - 1 else 0)
            if j >= 0:
                return i + 1, j + 1
        return line, col


# --------------------------------------------------------------------------- parsing


def _cell(value: Any) -> Cell | None:
    if (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        return (value[0], value[1])
    return None


_WALL = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*,\s*([NESWnesw])\s*$")


def parse_scenario(text: str, source: str = "scenario") -> Scenario:
    """Parse a scenario from TOML text; raises :class:`ScenarioError` with line and column."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(exc))
        msg = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise ScenarioError(
            f"TOML syntax error: {msg}", source, int(m.group(1)) if m else 0, int(m.group(2)) if m else 0
        ) from None
    loc = _Locator(text)

    def fail(
        msg: str, table: str, key: str | None = None, index: int = 0, needle: str | None = None
    ) -> ScenarioError:
        if needle is not None and key is not None:
            line, col = loc.value_pos(table, key, needle, index)
        else:
            line, col = loc.find(table, key, index)
        return ScenarioError(msg, source, line, col)

    def get(
        table: dict[str, Any], tname: str, key: str, typ: type | tuple[type, ...], default: Any = ...
    ) -> Any:
        if key not in table:
            if default is ...:
                raise fail(f"missing key {key!r}" + (f" in [{tname}]" if tname else ""), tname)
            return default
        value = table[key]
        if not isinstance(value, typ) or (isinstance(value, bool) and typ is int):
            want = typ.__name__ if isinstance(typ, type) else " or ".join(t.__name__ for t in typ)
            raise fail(f"{key} must be {want}, got {value!r}", tname, key)
        return value

    known_top = {
        "id",
        "title",
        "robot",
        "difficulty",
        "description",
        "board",
        "battery",
        "hands",
        "deck",
        "tokens",
        "objective",
        "rules",
    }
    for key in doc:
        if key not in known_top:
            raise (
                fail(f"unknown key {key!r}", "", key)
                if not isinstance(doc[key], dict)
                else fail(f"unknown table [{key}]", key)
            )

    sid = get(doc, "", "id", str)
    if not re.fullmatch(r"[a-z0-9][a-z0-9\-]*", sid):
        raise fail(f"id must be lower-case letters, digits and '-', got {sid!r}", "", "id")
    title = get(doc, "", "title", str)
    robot = get(doc, "", "robot", str)
    if robot not in ROBOTS:
        raise fail(f"unknown robot {robot!r} (expected one of {', '.join(ROBOTS)})", "", "robot")
    difficulty = get(doc, "", "difficulty", int, 1)
    description = get(doc, "", "description", str, "")

    # board
    bt = get(doc, "", "board", dict)
    for key in bt:
        if key not in {"map", "facing", "walls"}:
            raise fail(f"unknown key {key!r} in [board]", "board", key)
    raw_map = get(bt, "board", "map", str)
    rows = [r.strip() for r in raw_map.strip("\n").splitlines()]
    map_line, _ = loc.find("board", "map")
    # the first map row is on the line after `map = """` when the string starts with a newline
    key_text = loc.lines[map_line - 1] if 0 < map_line <= len(loc.lines) else ""
    opens_block = re.search(r"(\"\"\"|\'\'\')\s*$", key_text) is not None
    first_row_line = map_line + 1 if opens_block or raw_map.startswith("\n") else map_line
    if not rows or not rows[0]:
        raise fail("board map is empty", "board", "map")
    width, height = len(rows[0]), len(rows)
    obstacles: set[Cell] = set()
    spins: dict[Cell, str] = {}
    start: Cell | None = None
    for r, row in enumerate(rows):
        line_no = first_row_line + r
        raw_line = loc.lines[line_no - 1] if 0 < line_no <= len(loc.lines) else row
        indent = len(raw_line) - len(raw_line.lstrip())
        if len(row) != width:
            raise ScenarioError(
                f"map row {r + 1} has {len(row)} spaces, the first row has {width}",
                source,
                line_no,
                indent + 1,
            )
        y = height - 1 - r
        for x, ch in enumerate(row):
            if ch not in MAP_CHARS:
                raise ScenarioError(
                    f"unknown map character {ch!r} (expected one of {' '.join(MAP_CHARS)})",
                    source,
                    line_no,
                    indent + x + 1,
                )
            if ch == "#":
                obstacles.add((x, y))
            elif ch in "LR":
                spins[(x, y)] = ch
            elif ch == "Q":
                if start is not None:
                    raise ScenarioError("the map has more than one Q space", source, line_no, indent + x + 1)
                start = (x, y)
    if start is None:
        raise fail("the map has no Q space (the robot's start)", "board", "map")
    facing_text = get(bt, "board", "facing", str)
    if facing_text not in ("N", "E", "S", "W"):
        raise fail(f"facing must be one of N, E, S, W, got {facing_text!r}", "board", "facing")
    walls: set[frozenset[Cell]] = set()
    for w in get(bt, "board", "walls", list, []):
        m = _WALL.match(w) if isinstance(w, str) else None
        if not m:
            raise fail(
                f"wall must be 'x,y,SIDE' such as '2,3,E', got {w!r}",
                "board",
                "walls",
                needle=f'"{w}"' if isinstance(w, str) else None,
            )
        a = (int(m.group(1)), int(m.group(2)))
        h = Heading[m.group(3).upper()]
        b = (a[0] + h.dx, a[1] + h.dy)
        if not (0 <= a[0] < width and 0 <= a[1] < height) or not (0 <= b[0] < width and 0 <= b[1] < height):
            raise fail(
                f"wall {w!r} is not between two spaces of the {width}x{height} board (the edge is "
                "already a barrier)",
                "board",
                "walls",
                needle=f'"{w}"',
            )
        walls.add(frozenset((a, b)))
    board = Board(
        width,
        height,
        frozenset(obstacles),
        frozenset(walls),
        dict(spins),
        Pose(start[0], start[1], Heading[facing_text]),
    )

    # battery
    bat = get(doc, "", "battery", dict)
    track = get(bat, "battery", "track", int)
    if not 1 <= track <= 20:
        raise fail(f"battery track must have 1..20 spaces, got {track!r}", "battery", "track")
    green = get(bat, "battery", "green", int, track)
    yellow = get(bat, "battery", "yellow", int, min(green, max(1, track // 2)))
    if not 1 <= yellow <= green <= track:
        raise fail(
            f"need 1 <= yellow <= green <= track, got yellow={yellow!r} green={green!r} track={track!r}",
            "battery",
            "yellow" if yellow > green or yellow < 1 else "green",
        )

    # tokens
    tokens: list[TokenSpec] = []
    ids: set[str] = set()
    raw_tokens = get(doc, "", "tokens", list, [])
    for i, t in enumerate(raw_tokens):
        if not isinstance(t, dict):
            raise fail("tokens must be an array of tables [[tokens]]", "", "tokens")
        tid = get(t, "tokens", "id", str) if "id" in t else None
        if tid is None:
            raise fail("token without an id", "tokens", None, i)
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_\-]*", tid) or tid == "robot":
            raise ScenarioError(
                f"token id {tid!r} must be a name such as 'vase' (and not 'robot')",
                source,
                *loc.find("tokens", "id", i),
            )
        if tid in ids:
            raise ScenarioError(f"duplicate token id {tid!r}", source, *loc.find("tokens", "id", i))
        ids.add(tid)
        kind = t.get("kind", tid)
        if not isinstance(kind, str):
            raise ScenarioError(
                f"token kind must be a string, got {kind!r}", source, *loc.find("tokens", "kind", i)
            )
        at = _cell(t.get("at"))
        if at is None or not board.on_board(at):
            raise ScenarioError(
                f"token {tid!r} must be at [x, y] on the {width}x{height} board, got {t.get('at')!r}",
                source,
                *loc.find("tokens", "at", i),
            )
        long = t.get("long", False)
        if not isinstance(long, bool):
            raise ScenarioError(
                f"long must be true or false, got {long!r}", source, *loc.find("tokens", "long", i)
            )
        fixed = t.get("fixed", False)
        if not isinstance(fixed, bool):
            raise ScenarioError(
                f"fixed must be true or false, got {fixed!r}", source, *loc.find("tokens", "fixed", i)
            )
        for key in t:
            if key not in {"id", "kind", "at", "long", "fixed"}:
                raise ScenarioError(f"unknown key {key!r} in [[tokens]]", source, *loc.find("tokens", key, i))
        tokens.append(TokenSpec(tid, kind, at, long, fixed))

    # hands
    hands: dict[int, int] = dict(DEFAULT_HANDS)
    if "hands" in doc:
        ht = get(doc, "", "hands", dict)
        hands = {}
        for k, v in ht.items():
            if not k.isdigit() or not 2 <= int(k) <= 4:
                raise fail(f'hands keys are player counts "2".."4", got {k!r}', "hands", k)
            if not isinstance(v, int) or isinstance(v, bool) or not 1 <= v <= 15:
                raise fail(f"hand size for {k} players must be 1..15, got {v!r}", "hands", k)
            hands[int(k)] = v
        if not hands:
            raise fail("[hands] lists no player count", "hands")

    # deck
    deck = basic_deck()
    first: frozenset[str] = frozenset()
    if "deck" in doc:
        dt = get(doc, "", "deck", dict)
        for key in dt:
            if key not in {"add", "remove", "first"}:
                raise fail(f"unknown key {key!r} in [deck]", "deck", key)
        for what in ("add", "remove"):
            for code, n in get(dt, "deck", what, dict, {}).items():
                try:
                    card = Card.parse(code)
                except GameError as exc:
                    raise fail(str(exc), "deck", what, needle=code) from None
                if not isinstance(n, int) or isinstance(n, bool) or n < 1:
                    raise fail(f"card count must be a positive integer, got {n!r}", "deck", what, needle=code)
                if what == "add":
                    deck[card] += n
                else:
                    if deck[card] < n:
                        raise fail(
                            f"cannot remove {n} {code!r}: the deck has {deck[card]}",
                            "deck",
                            what,
                            needle=code,
                        )
                    deck[card] -= n
        fl = get(dt, "deck", "first", list, [])
        for code in fl:
            if not isinstance(code, str) or not any(c.code == code for c in deck if deck[c] > 0):
                raise fail(
                    f"'first' names {code!r}, which is not a card code in this deck",
                    "deck",
                    "first",
                    needle=str(code),
                )
        first = frozenset(fl)
    deck = +deck
    for card in deck:
        if card.code == "MT":
            for name in (card.token, card.target):
                if name not in ids and name != "robot":
                    raise fail(
                        f"card {str(card)!r} names {name!r}, which is not a token of this scenario",
                        "deck",
                        "add",
                        needle=str(card),
                    )
    total = sum(deck.values())
    for n, size in hands.items():
        if n * size > total:
            raise fail(
                f"{n} players with {size} cards each need {n * size} cards, the deck has {total}",
                "hands",
                str(n),
            )
        if n * size < 5:
            raise fail(
                f"{n} players with {size} cards each cannot program the 5 cards a round needs",
                "hands",
                str(n),
            )

    # rules
    vacuum: tuple[str, ...] = ("dust",)
    if "rules" in doc:
        rt = get(doc, "", "rules", dict)
        for key in rt:
            if key != "vacuum":
                raise fail(f"unknown key {key!r} in [rules]", "rules", key)
        vac = get(rt, "rules", "vacuum", list)
        if not all(isinstance(v, str) for v in vac):
            raise fail(f"vacuum must list token kinds, got {vac!r}", "rules", "vacuum")
        vacuum = tuple(vac)

    # objective
    ot = get(doc, "", "objective", dict)
    kinds = {t.kind for t in tokens}
    for key in ot:
        if key not in {"text", "collect", "reach", "facing", "deliver", "intact"}:
            raise fail(f"unknown key {key!r} in [objective]", "objective", key)
    collect = get(ot, "objective", "collect", list, [])
    for k in collect:
        if k not in kinds:
            raise fail(
                f"collect names {k!r}, which is not a token kind of this scenario",
                "objective",
                "collect",
                needle=str(k),
            )
        if robot == "gizmo" and k not in vacuum:
            raise fail(
                f"gizmo cannot collect {k!r}: not a vacuum kind", "objective", "collect", needle=str(k)
            )
        if robot != "gizmo" and SLOTS[robot] < sum(1 for t in tokens if t.kind == k):
            raise fail(
                f"{robot} cannot carry every {k!r} token at once", "objective", "collect", needle=str(k)
            )
    reach = None
    if "reach" in ot:
        reach = _cell(ot["reach"])
        if reach is None or not board.on_board(reach) or reach in board.obstacles:
            raise fail(
                f"reach must be a free space [x, y] on the board, got {ot['reach']!r}", "objective", "reach"
            )
    facing = None
    if "facing" in ot:
        f = ot["facing"]
        if reach is None or f not in ("N", "E", "S", "W"):
            raise fail(f"facing needs reach and one of N, E, S, W, got {f!r}", "objective", "facing")
        facing = Heading[f]
    deliver: list[tuple[str, Cell]] = []
    for tid, cell in get(ot, "objective", "deliver", dict, {}).items():
        c = _cell(cell)
        if tid not in ids:
            raise fail(
                f"deliver names {tid!r}, which is not a token id of this scenario",
                "objective",
                "deliver",
                needle=tid,
            )
        if c is None or not board.on_board(c) or c in board.obstacles:
            raise fail(
                f"deliver target for {tid!r} must be a free space [x, y], got {cell!r}",
                "objective",
                "deliver",
                needle=tid,
            )
        deliver.append((tid, c))
    if deliver and SLOTS[robot] == 0 and not any(c.code == "MT" for c in deck):
        raise fail(f"{robot} cannot carry tokens and the deck has no Move Token card", "objective", "deliver")
    intact = get(ot, "objective", "intact", list, [])
    for k in intact:
        if k not in kinds:
            raise fail(
                f"intact names {k!r}, which is not a token kind of this scenario",
                "objective",
                "intact",
                needle=str(k),
            )
    if not (collect or reach or deliver):
        raise fail("the objective needs at least one of collect, reach, deliver", "objective")
    objective = Objective(
        get(ot, "objective", "text", str, ""), tuple(collect), reach, facing, tuple(deliver), tuple(intact)
    )
    if start in board.obstacles:  # pragma: no cover - the map cannot hold both Q and # on one space
        raise fail("the Q space is an obstacle", "board", "map")

    return Scenario(
        sid,
        title,
        robot,
        difficulty,
        description,
        board,
        tuple(tokens),
        track,
        yellow,
        green,
        hands,
        dict(deck),
        first,
        vacuum,
        objective,
        source,
    )


# --------------------------------------------------------------------------- shipped scenarios


def builtin_ids() -> list[str]:
    """Ids of the scenarios shipped as package data, easiest first."""
    return [s.id for s in builtin_scenarios()]


def builtin_text(sid: str) -> str:
    """The TOML text of a shipped scenario (what ``boardside quirky show ID --toml`` prints)."""
    from engine.quirky.scenarios import TEXTS

    if sid not in TEXTS:
        raise ScenarioError(f"unknown scenario {sid!r} (known: {', '.join(builtin_ids())})", "scenario")
    return TEXTS[sid]


_CACHE: dict[str, Scenario] = {}


def builtin_scenarios() -> list[Scenario]:
    from engine.quirky.scenarios import TEXTS

    if not _CACHE:
        for sid, text in TEXTS.items():
            scn = parse_scenario(text, f"scenarios/{sid}.toml")
            if scn.id != sid:  # pragma: no cover - guarded by tests
                raise ScenarioError(f"shipped scenario {sid!r} declares id {scn.id!r}", scn.source)
            _CACHE[scn.id] = scn
    order = list(ROBOTS)
    return sorted(_CACHE.values(), key=lambda s: (s.difficulty, order.index(s.robot), s.id))


def builtin_scenario(sid: str) -> Scenario:
    """A shipped scenario by id; unknown ids raise :class:`ScenarioError`."""
    for scn in builtin_scenarios():
        if scn.id == sid:
            return scn
    raise ScenarioError(f"unknown scenario {sid!r} (known: {', '.join(builtin_ids())})", "scenario")
