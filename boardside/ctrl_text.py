"""Terminal presentation of CTRL: the rulebook's score sheet and the five side views."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rich.table import Table
from rich.text import Text

from engine.ctrl.geometry import CENTRAL_CUBE, SIDES, Cell
from engine.ctrl.moves import FlagSpot

STYLE = {"blue": "bold white on blue", "pink": "bold white on magenta", "yellow": "bold black on yellow",
         "green": "bold white on green", "cube": "white on grey23", "flag": "bold red"}
LETTER = {"blue": "B", "pink": "P", "yellow": "Y", "green": "G"}
SIDE_LABEL = {"+x": "SIDE 1 (+x)", "-x": "SIDE 2 (-x)", "+y": "SIDE 3 (+y)", "-y": "SIDE 4 (-y)", "top": "SIDE 5 (top)"}


def score_sheet(
    sides: Mapping[str, Mapping[str, int]],
    totals: Mapping[str, int],
    winners: Sequence[str],
    colors: Sequence[str],
    title: str = "CTRL score sheet",
) -> Table:
    """The rulebook's score pad: rows = colours, columns SIDE 1..5 and Total."""
    table = Table(title=title)
    table.add_column("Colour")
    for side in SIDES:
        table.add_column(SIDE_LABEL[side], justify="right")
    table.add_column("Total", justify="right", style="bold")
    for c in colors:
        mark = " *" if c in winners else ""
        table.add_row(Text(c.capitalize() + mark, style=STYLE.get(c, "")),
                      *[str(sides[s].get(c, 0)) for s in SIDES], str(totals.get(c, 0)))
    return table


def winner_line(winners: Sequence[str], totals: Mapping[str, int] | None = None,
                uncertain_sides: Sequence[str] = (), trusted: bool = True) -> str:
    """The winner as the sheet gives it.  A sheet read from pictures that is not trusted, or has sides whose counts
    may be off, says so on this line too (the winner is then only what the counts read give), with how far behind
    the runner-up is: a person deciding the game reads this line, not only the table's title."""
    if not winners:
        line = "No winner."
    elif len(winners) == 1:
        line = f"Winner: {winners[0]}"
    else:
        line = "Shared win: " + ", ".join(winners)
    if trusted and not uncertain_sides:
        return line
    why = []
    if uncertain_sides:
        ordered = [s for s in SIDES if s in uncertain_sides]
        why.append(f"the counts of side{'s' if len(ordered) > 1 else ''} {', '.join(ordered)} may be off")
    if not trusted:
        why.append("the reading is not trusted")
    if totals and winners:
        best = totals.get(winners[0], 0)
        rest = sorted(((best - v, c) for c, v in totals.items() if c not in winners))
        if rest and rest[0][0] == 0:
            why.append(f"{rest[0][1]} has as many points (the tie-break decides)")
        elif rest:
            why.append(f"{rest[0][1]} is {rest[0][0]} point{'s' if rest[0][0] != 1 else ''} behind")
    return f"{line} -- NOT CERTAIN: " + "; ".join(why) + " (check those sides by hand)"


def _axes(side: str) -> tuple[Cell, Cell, Cell]:
    """(view direction into the battlefield, right, up) for a side view."""
    return {
        "+x": ((-1, 0, 0), (0, 1, 0), (0, 0, 1)),
        "-x": ((1, 0, 0), (0, -1, 0), (0, 0, 1)),
        "+y": ((0, -1, 0), (-1, 0, 0), (0, 0, 1)),
        "-y": ((0, 1, 0), (1, 0, 0), (0, 0, 1)),
        "top": ((0, 0, -1), (1, 0, 0), (0, 1, 0)),
    }[side]


def side_view(blocks: Mapping[Cell, str], flags: Mapping[str, FlagSpot], side: str) -> Text:
    """What a player sees looking straight at ``side``: the nearest piece in each column of cells."""
    view, right, up = _axes(side)
    flag_at = {f.cell: (c, f) for c, f in flags.items()}
    things: dict[Cell, str] = {c: "cube" for c in CENTRAL_CUBE}
    things.update(blocks)
    cells = list(things) + list(flag_at)

    def dot(a: Cell, b: Cell) -> int:
        return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]

    us = [dot(c, right) for c in cells]
    vs = [dot(c, up) for c in cells]
    grid: dict[tuple[int, int], tuple[int, str, str]] = {}
    for c in cells:
        key = (dot(c, right), dot(c, up))
        depth = dot(c, view)  # smaller = nearer the viewer
        if c in things:
            kind = things[c]
            label = "#" if kind == "cube" else LETTER.get(kind, "?")
            style = STYLE.get(kind, "")
        else:
            col, f = flag_at[c]
            n = f.normal
            if dot(n, view) != 0:
                continue  # seen end-on: does not hide
            label, style = "f", f"bold {_flag_fg(col)}"
        if key not in grid or depth < grid[key][0]:
            grid[key] = (depth, label, style)
    text = Text(f"{SIDE_LABEL[side]}\n")
    for v in range(max(vs), min(vs) - 1, -1):
        for u in range(min(us), max(us) + 1):
            if (u, v) in grid:
                _, label, style = grid[(u, v)]
                text.append(f"{label} ", style=style)
            else:
                text.append(". ", style="dim")
        text.append("\n")
    return text


def _flag_fg(color: str) -> str:
    return {"blue": "blue", "pink": "magenta", "yellow": "yellow", "green": "green"}.get(color, "red")
