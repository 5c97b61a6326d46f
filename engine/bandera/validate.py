"""Check a Captura la Bandera state document against the rules: ``validate_state(doc)``.

Works on the raw JSON document (for instance a table read by the camera), never raises for
rule problems: every problem is a :class:`engine.core.Problem` saying which piece, where, and
which rule.  Only a document that cannot be read as this game at all (not an object, another
game, no list of players) raises :class:`engine.core.InvalidStateError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.bandera import rules
from engine.bandera.board import (
    HEIGHT,
    LEVELS,
    TWO_PLAYER_NAMES,
    WIDTH,
    ZONE_A,
    Square,
    fmt,
    on_board,
    royal_range,
    start_square,
)
from engine.core import InvalidStateError, Problem

_PHASES = ("start", "place_roll", "place", "move_roll", "move", "over")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _sq(v: Any) -> Square | None:
    if isinstance(v, Mapping) and _is_int(v.get("x")) and _is_int(v.get("y")):
        return (v["x"], v["y"])
    return None


def validate_state(doc: Any) -> list[Problem]:
    """Every rule problem of a state document, in words (empty list: the position is right)."""
    if not isinstance(doc, Mapping):
        raise InvalidStateError(f"a Captura la Bandera state is a JSON object, got {type(doc).__name__}")
    if doc.get("game") != "bandera":
        raise InvalidStateError(
            f"not a Captura la Bandera state: 'game' is {doc.get('game')!r}, expected 'bandera'"
        )
    players_raw = doc.get("players")
    if not isinstance(players_raw, list) or not all(isinstance(p, str) for p in players_raw):
        raise InvalidStateError(f"'players' must be a list of player names, got {players_raw!r}")
    players = tuple(players_raw)
    out: list[Problem] = []

    def add(code: str, message: str, where: str = "", rule: str = "", severity: str = "error") -> None:
        out.append(Problem(code, message, where, rule, "warning" if severity == "warning" else "error"))

    n = len(players)
    if not 2 <= n <= 4:
        add(
            "players-count", f"the game is for 2 to 4 players, this state has {n}", "players", rules.OBJECTIVE
        )
    if len(set(players)) != n:
        add("players-duplicate", f"a player is listed twice: {list(players)!r}", "players", rules.SETUP)
    if n == 2 and players != TWO_PLAYER_NAMES:
        add(
            "players-colours",
            f"two players play the board's colours ['blue', 'red'] (in that order), got {list(players)!r}",
            "players",
            rules.SETUP,
        )
    seats_ok = 2 <= n <= 4 and len(set(players)) == n and (n != 2 or players == TWO_PLAYER_NAMES)

    if doc.get("format", 1) != 1:
        add("format", f"unknown state format {doc.get('format')!r} (this program reads format 1)", "format")

    # ---- level and cube count
    level = doc.get("level")
    total = doc.get("cubes")
    if not isinstance(level, str) or level not in LEVELS:
        add("level", f"unknown level {level!r} (easy 22 cubes, medium 18, hard 14)", "level", rules.TURNS)
    elif total != LEVELS[level]:
        add(
            "level-cubes",
            f"level {level!r} plays with {LEVELS[level]} cubes, the state says {total!r}",
            "cubes",
            rules.COMPONENTS,
        )
    if level == "hard" and n > 2:
        add(
            "level-hard-players",
            f"the hard level (14 cubes) is recommended only for 2 players, this game has {n}",
            "level",
            rules.COMPONENTS,
            "warning",
        )
    supply: Any = doc.get("supply")
    if not _is_int(supply) or supply < 0:
        add(
            "supply",
            f"'supply' (cubes still off the board) must be a whole number >= 0, got {supply!r}",
            "supply",
        )
        supply = None

    # ---- the board
    stacks: dict[Square, int] = {}
    royal: dict[str, Square] = {}
    board = doc.get("board")
    if not isinstance(board, list):
        add("board", f"'board' must be a list of squares with cubes, got {board!r}", "board")
        board = []
    for i, entry in enumerate(board):
        sq = _sq(entry)
        if sq is None:
            add("board-entry", f"board entry {i} needs integer 'x' and 'y': {entry!r}", f"board[{i}]")
            continue
        where = f"cubes at ({fmt(sq)})"
        cubes = entry.get("cubes")
        if not _is_int(cubes) or cubes < 1:
            add("board-entry", f"'cubes' must be 1 or 2, got {cubes!r}", where)
            continue
        if not on_board(sq):
            add(
                "off-board",
                f"square ({fmt(sq)}) is off the board (x 0..{WIDTH - 1}, y 0..{HEIGHT - 1})",
                where,
                rules.PLACE_WHERE + " 1",
            )
            continue
        if sq in stacks:
            add(
                "duplicate-square",
                f"square ({fmt(sq)}) is listed twice on the board",
                where,
                rules.PLACE_WHERE + " 2",
            )
            continue
        stacks[sq] = cubes
        if sq in ZONE_A:
            add(
                "zone-a",
                "a cube stands in zone A (the two central squares), where no cube may be",
                where,
                rules.MOVE_ZONE_A,
            )
        if cubes > 2:
            add(
                "too-tall",
                f"a stack of {cubes} cubes: there are no towers of more than two cubes",
                where,
                rules.PLACE_NEVER_ON,
            )
        flag = entry.get("flag")
        if flag is not None and not isinstance(flag, str):
            add("board-entry", f"'flag' must name a player, got {flag!r}", where)
        elif flag is not None:
            fw = f"{flag}'s royal tower at ({fmt(sq)})"
            if flag not in players:
                add("flag-unknown", f"a flag of {flag!r}, who is not a player of this game", fw, rules.SETUP)
            elif flag in royal:
                add(
                    "flag-twice",
                    f"{flag}'s flag is on two towers, at ({fmt(royal[flag])}) and ({fmt(sq)})",
                    fw,
                    rules.SETUP,
                )
            else:
                royal[flag] = sq
                if cubes != 2:
                    add(
                        "royal-height",
                        f"a royal tower is two cubes with the flag on top, this one has {cubes}",
                        fw,
                        rules.SETUP,
                    )
                if seats_ok and sq not in royal_range(players, players.index(flag)):
                    rail = sorted(royal_range(players, players.index(flag)))
                    add(
                        "royal-off-rail",
                        f"{flag}'s royal tower must stay on its paved squares, "
                        f"from ({fmt(rail[0])}) to ({fmt(rail[-1])})",
                        fw,
                        rules.ROYAL,
                    )

    on_board_count = sum(stacks.values())
    if isinstance(level, str) and level in LEVELS:
        total = LEVELS[level]  # a wrong 'cubes' is reported once, above
    if _is_int(total) and supply is not None and on_board_count + supply != total:
        add(
            "cube-count",
            f"{on_board_count} cubes on the board + {supply} in the supply = {on_board_count + supply}, "
            f"but the game has {total}",
            "cubes",
            rules.COMPONENTS,
        )

    # ---- captures
    captured: dict[str, str] = {}
    caps = doc.get("captures", [])
    if not isinstance(caps, list):
        add("captures", f"'captures' must be a list, got {caps!r}", "captures")
        caps = []
    cap_turns: list[int] = []
    for i, c in enumerate(caps):
        if not (
            isinstance(c, Mapping)
            and isinstance(c.get("by"), str)
            and isinstance(c.get("flag"), str)
            and _is_int(c.get("turn"))
        ):
            add(
                "capture-entry",
                f"capture {i} needs 'by', 'flag' and an integer 'turn': {c!r}",
                f"captures[{i}]",
            )
            continue
        by, flag, turn_c = c["by"], c["flag"], c["turn"]
        cw = f"capture of {flag}'s flag by {by}"
        if by not in players or flag not in players:
            add("capture-player", f"{by!r} or {flag!r} is not a player of this game", cw, rules.CAPTURE)
            continue
        if by == flag:
            add("capture-self", f"{by} cannot capture their own flag", cw, rules.CAPTURE)
        if flag in captured:
            add("capture-twice", f"{flag}'s flag was already captured by {captured[flag]}", cw, rules.CAPTURE)
        captured.setdefault(flag, by)
        if flag in royal:
            add(
                "capture-flag-on-board",
                f"{flag}'s flag is recorded as captured but still stands on "
                f"the royal tower at ({fmt(royal[flag])})",
                cw,
                rules.SETUP,
            )
        if cap_turns and turn_c < cap_turns[-1]:
            add("capture-order", "captures must be listed in the order they happened", cw, rules.FLAGS)
        cap_turns.append(turn_c)
    for p in players:
        if p not in royal and p not in captured:
            add(
                "flag-missing",
                f"{p}'s flag is neither on a royal tower nor recorded as captured",
                f"{p}'s flag",
                rules.SETUP,
            )

    # ---- characters
    chars: dict[str, Square] = {}
    chars_raw = doc.get("characters")
    if not isinstance(chars_raw, Mapping):
        add("characters", f"'characters' must map each player to a square, got {chars_raw!r}", "characters")
        chars_raw = {}
    for p, v in chars_raw.items():
        sq = _sq(v)
        cw = f"{p}'s character"
        if p not in players:
            add(
                "character-unknown",
                f"a character of {p!r}, who is not a player of this game",
                cw,
                rules.SETUP,
            )
            continue
        if sq is None:
            add("character-entry", f"needs integer 'x' and 'y', got {v!r}", cw)
            continue
        cw = f"{p}'s character at ({fmt(sq)})"
        if not on_board(sq):
            add("off-board", f"({fmt(sq)}) is off the board", cw, rules.OBJECTIVE)
            continue
        chars[p] = sq
        if sq not in stacks:
            add(
                "character-on-table",
                "a character stands on the bare board: characters only ever stand on cubes",
                cw,
                rules.OBJECTIVE,
            )
        owner = next((o for o, s in royal.items() if s == sq), None)
        if owner is not None and owner != p:
            add(
                "character-on-royal",
                f"{p}'s character stands on {owner}'s royal tower but {owner}'s flag was not captured",
                cw,
                rules.CAPTURE,
            )
    for p in players:
        if p not in chars_raw:
            add("character-missing", f"{p} has no character on the board", f"{p}'s character", rules.SETUP)

    # ---- turn, phase and dice
    phase = doc.get("phase", "start")
    turn: Any = doc.get("turn", 0)
    to_move = doc.get("to_move")
    if phase not in _PHASES:
        add("phase", f"unknown phase {phase!r} (one of {', '.join(_PHASES)})", "phase")
        phase = None
    if not _is_int(turn) or turn < 0:
        add("turn", f"'turn' must be a whole number >= 0, got {turn!r}", "turn")
        turn = None
    elif cap_turns and cap_turns[-1] > turn:
        add(
            "capture-turn",
            f"a capture is dated turn {cap_turns[-1]}, after the current turn {turn}",
            "captures",
            rules.FLAGS,
        )
    if phase == "start":
        if to_move is not None or turn not in (0, None):
            add("start", "before the roll-off nobody is to move and the turn is 0", "phase", rules.TURNS)
    elif phase in ("place_roll", "place", "move_roll", "move"):
        if to_move not in players:
            add("to-move", f"'to_move' must name a player, got {to_move!r}", "to_move", rules.TURNS)
        if turn == 0:
            add("turn", "turn 0 is only the set-up, before the roll-off", "turn", rules.TURNS)
    elif phase == "over" and to_move is not None:
        add("to-move", f"nobody moves once the game is over, got {to_move!r}", "to_move")
    proll: Any = doc.get("placement_roll")
    left: Any = doc.get("placements_left", 0)
    mroll, points, spent = doc.get("movement_roll"), doc.get("points", 0), doc.get("spent", 0)
    for name, v in (("placement_roll", proll), ("movement_roll", mroll)):
        if v is not None and (not _is_int(v) or not 1 <= v <= 6):
            add("die", f"a die shows 1 to 6, '{name}' is {v!r}", name, rules.TURNS)
    if not all(_is_int(v) and v >= 0 for v in (left, points, spent)):
        add(
            "counters",
            "'placements_left', 'points', 'spent' must be whole numbers >= 0, "
            f"got {left!r}, {points!r}, {spent!r}",
        )
    elif phase == "place":
        if not _is_int(proll) or proll <= 3:
            add(
                "place-roll",
                f"cubes are placed only after a placement roll of 4-6, got {proll!r}",
                "placement_roll",
                rules.PLACE_TABLE,
            )
        elif left > (2 if proll == 6 else 1) or left < 1:
            add(
                "place-left",
                f"a roll of {proll} never leaves {left} cube(s) to place",
                "placements_left",
                rules.PLACE_TABLE,
            )
        if supply == 0:
            add("place-supply", "no cube is left to place", "supply", rules.SUPPLY_OUT)
    elif phase == "move":
        if not _is_int(mroll):
            add("move-roll", "the movement phase needs the movement roll", "movement_roll", rules.MOVE)
        elif points + spent != mroll or points < 1:
            add(
                "points",
                f"points left {points} + spent {spent} must equal the roll {mroll}, with at least 1 left",
                "points",
                rules.MOVE,
            )
    if phase in ("place_roll",) and supply == 0:
        add(
            "place-roll-skip",
            "with every cube in play the placement roll is skipped",
            "phase",
            rules.SUPPLY_OUT,
        )

    # ---- the end
    if seats_ok and phase is not None:
        ended = (n == 2 and bool(captured)) or (n > 2 and len(royal) <= 1 and len(captured) >= n - 1)
        if ended and phase != "over":
            add(
                "not-over",
                "the game is over (flags captured) but the state says it goes on",
                "phase",
                rules.FLAGS,
            )
        if phase == "over" and not ended and not doc.get("stopped", False):
            add("over", "the state says the game is over but no player has won yet", "phase", rules.FLAGS)
    first = doc.get("first_cube_placed", [])
    if not isinstance(first, list) or any(p not in players for p in first):
        add("first-cube", f"'first_cube_placed' must list players, got {first!r}", "first_cube_placed")
    mt = doc.get("max_turns")
    if mt is not None and (not _is_int(mt) or mt < 1):
        add("max-turns", f"'max_turns' must be a positive whole number or null, got {mt!r}", "max_turns")
    if not isinstance(doc.get("stopped", False), bool):
        add("stopped", f"'stopped' must be true or false, got {doc.get('stopped')!r}", "stopped")

    # ---- the set-up itself
    if phase == "start" and seats_ok:
        for i, p in enumerate(players):
            home = start_square(players, i)
            where = f"{p}'s royal tower"
            if royal.get(p) not in (None, home):
                add(
                    "setup-royal",
                    f"at the start {p}'s royal tower stands at ({fmt(home)}), not at ({fmt(royal[p])})",
                    where,
                    rules.SETUP,
                )
            if p in chars and p in royal and chars[p] != royal[p]:
                add(
                    "setup-character",
                    f"each character starts next to its flag on its own royal tower at ({fmt(royal[p])})",
                    f"{p}'s character at ({fmt(chars[p])})",
                    rules.SETUP,
                )
        for sq in stacks:
            if sq not in royal.values():
                add(
                    "setup-extra-cube",
                    "at the start the royal towers are the only cubes on the board",
                    f"cubes at ({fmt(sq)})",
                    rules.SETUP,
                )
        if captured:
            add("setup-captures", "no flag is captured before the game starts", "captures", rules.SETUP)
    return out
