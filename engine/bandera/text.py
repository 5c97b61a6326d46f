"""A plain-text picture of a Captura la Bandera position (north at the top, as printed)."""

from __future__ import annotations

from engine.bandera.board import HEIGHT, PAVED, WIDTH, ZONE_A, ZONE_B, ZONE_C

LEGEND = (
    "legend: 1/2 = cubes on the square, capital letter = flag on a royal tower, small letters = "
    "characters standing there; empty squares: . plain, # zone A, = paved edge, + zone B/C"
)


def initials(players: tuple[str, ...]) -> dict[str, str]:
    """One letter per player: the first letter of the name, or the seat number if two clash."""
    first = [p[0] for p in players]
    if len(set(first)) == len(first):
        return dict(zip(players, first, strict=True))
    return {p: str(i + 1) for i, p in enumerate(players)}


def render(state: object, *, legend: bool = True) -> str:
    """The board as text plus one status line (``state`` is an ``engine.bandera.State``)."""
    from engine.bandera.state import State

    assert isinstance(state, State)
    ini = initials(state.players)
    royal_sq = {sq: p for p, sq in state.royal.items()}
    lines = ["    " + "".join(f"{x:<6}" for x in range(WIDTH))]
    for y in range(HEIGHT - 1, -1, -1):
        cells = []
        for x in range(WIDTH):
            sq = (x, y)
            h = state.stacks.get(sq, 0)
            if h:
                c0 = str(h)
            elif sq in ZONE_A:
                c0 = "#"
            elif sq in PAVED:
                c0 = "="
            elif sq in ZONE_B or sq in ZONE_C:
                c0 = "+"
            else:
                c0 = "."
            c1 = ini[royal_sq[sq]].upper() if sq in royal_sq else ""
            c2 = "".join(ini[p] for p in state.chars_at(sq))
            cells.append(f"{c0 + c1 + c2:<6}")
        lines.append(f"{y:>2}  " + "".join(cells).rstrip())
    lines.append(status(state))
    if legend:
        lines.append(LEGEND)
    return "\n".join(lines)


def status(state: object) -> str:
    from engine.bandera.state import State

    assert isinstance(state, State)
    caps = (
        ", ".join(f"{c.by} took {c.flag}'s flag (turn {c.turn})" for c in state.captures)
        or "no flag captured"
    )
    head = f"{state.level} level, {state.supply} cube(s) off the board; {caps}"
    if state.is_terminal():
        sc = state.scores()
        how = " (stopped by the turn limit)" if state.stopped else ""
        scores = ", ".join(f"{p} {sc[p]}" for p in state.players)
        return f"{head}\ngame over{how}: winner {' and '.join(state.winners())}; points {scores}"
    if state.phase == "start":
        return f"{head}\nroll-off to decide who begins"
    turn = f"turn {state.turn}, {state.to_move} to play"
    if state.phase == "place_roll":
        return f"{head}\n{turn}: roll the placement die"
    if state.phase == "place":
        return (
            f"{head}\n{turn}: placement roll {state.placement_roll}, {state.placements_left} cube(s) to place"
        )
    if state.phase == "move_roll":
        return f"{head}\n{turn}: roll the movement die"
    return f"{head}\n{turn}: movement roll {state.movement_roll}, {state.points} point(s) left"
