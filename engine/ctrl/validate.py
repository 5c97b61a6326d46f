"""CTRL rule checks that return data (a list of :class:`engine.core.Problem`).

Used by ``boardside ctrl validate``, ``boardside validate ctrl`` and on every state the camera
reconstructs before it is trusted.  Each problem names the rulebook passage it rests on.
"""

from __future__ import annotations

from collections import Counter, deque
from typing import Any

from engine.core import InvalidStateError, Problem
from engine.ctrl.geometry import CENTRAL_CUBE, DOWN, UP, Cell, cell_str, neighbours
from engine.ctrl.state import BLOCKS_PER_COLOR, BLOCKS_PER_TURN, State

R_COMPONENTS = 'CTRL rulebook, "Components" (22 blocks per player)'
R_SETUP = 'CTRL rulebook, "Setup" 3-4'
R_BATTLEFIELD = 'CTRL rulebook, "The Battlefield"'
R_FLAGS = 'CTRL rulebook, "Flags"'
R_TURN = 'CTRL rulebook, "Game Turn" / "Placing Blocks"'
R_FIRST = 'CTRL rulebook, "First Turn Rule"'
R_SETUP_FLAG = 'CTRL rulebook, "Setup" 4'


def _pre_problems(doc: Any) -> tuple[Any, list[Problem]]:
    """Problems the State cannot represent (two blocks in one cell); returns a cleaned document."""
    problems: list[Problem] = []
    if isinstance(doc, dict) and isinstance(doc.get("blocks"), list):
        seen: dict[str, int] = {}
        kept = []
        for i, b in enumerate(doc["blocks"]):
            key = str(b.get("cell")) if isinstance(b, dict) else str(i)
            if key in seen:
                problems.append(Problem(
                    "duplicate-cell", f"two blocks in the same cell (blocks[{seen[key]}] and blocks[{i}])",
                    where=f"cell {key}", rule=R_BATTLEFIELD))
                continue
            seen[key] = i
            kept.append(b)
        doc = dict(doc, blocks=kept)
    return doc, problems


def validate_state(doc_or_state: Any) -> list[Problem]:
    """Every rule problem of a CTRL state document (or :class:`State`), in words.

    Raises :class:`InvalidStateError` only when the document cannot be read as CTRL at all.
    """
    problems: list[Problem] = []
    if isinstance(doc_or_state, State):
        state = doc_or_state
    else:
        doc, problems = _pre_problems(doc_or_state)
        state = State.from_json(doc)
    occ = state.occupied
    counts = Counter(state.blocks.values())
    in_play = set(state.colors)

    for cell, color in sorted(state.blocks.items()):
        where = f"{color} block at {cell_str(cell)}"
        if color not in in_play:
            problems.append(Problem("color-not-in-play", f"{color} is not a colour in this game", where, R_SETUP))
        if cell in CENTRAL_CUBE:
            problems.append(Problem("inside-cube", "the block is inside the Central Cube", where, R_BATTLEFIELD))
        if cell[2] < 0:
            problems.append(Problem("below-table", "the block is below the table surface", where, R_BATTLEFIELD))

    for color, n in sorted(counts.items()):
        if n > BLOCKS_PER_COLOR:
            problems.append(Problem("too-many", f"{n} {color} blocks; a colour has only {BLOCKS_PER_COLOR}",
                                    f"{color} blocks", R_COMPONENTS))
        elif (n - 1) % BLOCKS_PER_TURN != 0:
            problems.append(Problem(
                "count-not-turns",
                f"{n} {color} blocks; after the start block, blocks are placed {BLOCKS_PER_TURN} per turn "
                f"(1, 4, 7, ..., {BLOCKS_PER_COLOR})", f"{color} blocks", R_TURN))

    # connection to the Central Cube (rulebook "The Battlefield")
    reached: set[Cell] = set()
    queue = deque(c for c in state.blocks if any(nb in CENTRAL_CUBE for nb in neighbours(c)))
    reached.update(queue)
    while queue:
        c = queue.popleft()
        for nb in neighbours(c):
            if nb in state.blocks and nb not in reached:
                reached.add(nb)
                queue.append(nb)
    for cell, color in sorted(state.blocks.items()):
        if cell not in reached and cell not in CENTRAL_CUBE:
            problems.append(Problem("not-connected", "the block is not connected to the Central Cube",
                                    f"{color} block at {cell_str(cell)}", R_BATTLEFIELD))
        elif cell[2] >= 0 and cell not in CENTRAL_CUBE and not any(
                nb in occ for nb in neighbours(cell) if nb != (cell[0], cell[1], cell[2] + 1)):
            problems.append(Problem(
                "hanging", "the block hangs under another block (blocks never go on the bottom of anything)",
                f"{color} block at {cell_str(cell)}", R_BATTLEFIELD))

    # start blocks (rulebook "Setup" 3)
    for color in state.colors:
        start = state.starts.get(color)
        if start is None:
            problems.append(Problem("no-start", f"{color} has no start position", color, R_SETUP))
            continue
        where = f"{color} start {cell_str(start)}"
        if state.blocks.get(start) != color:
            have = state.blocks.get(start)
            what = f"a {have} block" if have else "nothing"
            problems.append(Problem("start-missing", f"the start cell holds {what}, expected a {color} block",
                                    where, R_SETUP))
        if start[2] != 0:
            problems.append(Problem("start-off-table", "a starting block must touch the table (z = 0)",
                                    where, R_SETUP))
        if not any(nb in CENTRAL_CUBE for nb in neighbours(start)):
            problems.append(Problem("start-not-on-cube", "a starting block must be connected to the Central Cube",
                                    where, R_SETUP))

    # flags (rulebook "Flags")
    cells_seen: dict[Cell, str] = {}
    for color, f in sorted(state.flags.items()):
        where = f"{color} flag at {cell_str(f.cell)} pointing {f.points}"
        if color not in in_play:
            problems.append(Problem("color-not-in-play", f"{color} is not a colour in this game", where, R_SETUP))
        if f.normal == DOWN:
            problems.append(Problem("flag-down", "a flag may never point down", where, R_FLAGS))
        if f.cell in occ:
            problems.append(Problem("flag-in-block", "the flag's cell is occupied by a block or the Central Cube",
                                    where, R_FLAGS))
        if f.cell[2] < 0:
            problems.append(Problem("flag-below-table", "the flag is below the table", where, R_FLAGS))
        owner = state.blocks.get(f.block)
        if owner != color:
            what = f"a {owner} block" if owner else ("the Central Cube" if f.block in CENTRAL_CUBE else "nothing")
            problems.append(Problem("flag-not-plugged",
                                    f"the flag must be plugged into a {color} block, but {cell_str(f.block)} is {what}",
                                    where, R_FLAGS))
        if f.cell in cells_seen:
            problems.append(Problem("flags-same-cell", f"the {cells_seen[f.cell]} flag is in the same cell",
                                    where, R_FLAGS))
        cells_seen[f.cell] = color

    # whose turn (rulebook "Game Turn", "First Turn Rule")
    if not state.terminal and state.to_move is not None:
        tm = state.to_move
        if state.remaining(tm) == 0:
            problems.append(Problem("to-move-done", f"{tm} is to move but has placed all its blocks",
                                    tm, R_TURN, "warning"))
        if tm in state.first_turn_pending and counts.get(tm, 0) > 1:
            problems.append(Problem("first-turn-but-moved",
                                    f"first_turn is true but {tm} already has {counts[tm]} blocks", tm, R_FIRST))
    return problems


def check_setup(doc_or_state: Any) -> list[Problem]:
    """Check a table *set-up* (rulebook "Setup" 1-4): exactly one start block per colour, on
    distinct sides of the Central Cube, touching the table, each flag plugged into it pointing up."""
    state = doc_or_state if isinstance(doc_or_state, State) else State.from_json(doc_or_state)
    problems = [p for p in validate_state(state) if p.code not in ("first-turn-but-moved",)]
    counts = Counter(state.blocks.values())
    for color in state.colors:
        if counts.get(color, 0) != 1:
            problems.append(Problem("setup-count", f"{color} has {counts.get(color, 0)} blocks on the battlefield; "
                                    "at set-up each colour has only its start block", color, R_SETUP))
        f = state.flags.get(color)
        start = state.starts.get(color)
        if f is None:
            problems.append(Problem("setup-no-flag", f"the {color} flag is not plugged in", color, R_SETUP_FLAG))
        elif start is not None and (f.block != start or f.normal != UP):
            problems.append(Problem("setup-flag", f"the {color} flag should stand on its start block pointing up "
                                    f"(found at {cell_str(f.cell)} pointing {f.points})", color, R_SETUP_FLAG))
    sides: dict[str, str] = {}
    for color in state.colors:
        start = state.starts.get(color)
        if start is None:
            continue
        side = _side_of(start)
        if side in sides:
            problems.append(Problem("setup-same-side", f"{color} and {sides[side]} start on the same side ({side})",
                                    color, R_SETUP))
        sides[side] = color
    return problems


def _side_of(c: Cell) -> str:
    x, y, _ = c
    if x > 2:
        return "+x"
    if x < 0:
        return "-x"
    if y > 2:
        return "+y"
    if y < 0:
        return "-y"
    return "top"


def is_valid(doc_or_state: Any) -> bool:
    try:
        return not [p for p in validate_state(doc_or_state) if p.severity == "error"]
    except InvalidStateError:
        return False
