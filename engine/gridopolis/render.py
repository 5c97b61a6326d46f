"""ASCII pictures of a grid-set, one grid per level (north at the top, as on the table).

Cells are three characters wide: ``.`` an empty pad, ``g``/``G`` a green pawn/king (the
player's initial), ``#`` a pad taken out by a blocker box; ``( )`` marks a hyper-pad, ``[ ]``
a kingerizer (start row), ``< >`` a highlighted pad (e.g. a legal destination -- the
rulebook's "almohadillas naranjas").  Pure text: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.gridopolis.pads import Pad
from engine.gridopolis.state import State

__all__ = ["initials", "render_state"]


def initials(state: State) -> dict[str, str]:
    """One letter per player: its initial, or its seat number when initials clash."""
    letters = [p.name[:1].lower() or "?" for p in state.players]
    if len(set(letters)) != len(letters):
        letters = [str(i + 1) for i in range(len(state.players))]
    return {p.name: letters[i] for i, p in enumerate(state.players)}


def render_state(state: State, highlight: Sequence[Pad] = ()) -> str:
    if not state.pads:
        return "(empty grid-set)\n"
    marks = initials(state)
    hl = set(highlight)
    xs = [p.x for p in state.pads]
    ys = [p.y for p in state.pads]
    x0, x1, y0, y1 = min(xs), max(xs), min(ys), max(ys)
    lines: list[str] = []
    header = ("     " + "".join(f"{x:^3}" for x in range(x0, x1 + 1))).rstrip()
    for level in sorted({p.level for p in state.pads}, reverse=True):
        lines.append(f"level {level}" + (" (table)" if level == 0 else ""))
        lines.append(header)
        for y in range(y1, y0 - 1, -1):
            row = []
            for x in range(x0, x1 + 1):
                pad = Pad(x, y, level)
                if pad not in state.pads:
                    row.append("   ")
                    continue
                m = state.markers.get(pad)
                if pad in state.blockers:
                    c = "#"
                elif m is not None:
                    c = marks[m.player].upper() if m.king else marks[m.player]
                else:
                    c = "."
                if pad in hl:
                    row.append(f"<{c}>")
                elif pad in state.hyper_pads:
                    row.append(f"({c})")
                elif pad in state.kingerizers:
                    row.append(f"[{c}]")
                else:
                    row.append(f" {c} ")
            lines.append((f"{y:>3}  " + "".join(row)).rstrip())
        lines.append("")
    legend = []
    for p in state.players:
        start = sorted(state.start_row(p.name))
        legend.append(
            f"{marks[p.name]}/{marks[p.name].upper()} {p.name} (forward {p.forward}; start row "
            f"{' '.join(str(q) for q in start)}; {state.points(p.name)} pts; reserve: {p.blockers} blocker, "
            f"{p.pads} pad, {p.posts} post)"
        )
    lines.extend(legend)
    lines.append("( ) hyper-pad  [ ] start row (kingerizer)  # blocker box  lower case pawn, upper case king")
    ending = state.ending()
    if ending is not None:
        res = state.returns()
        winners = [n for n, v in res.items() if v > 0]
        lines.append(f"game over ({ending}): winner {' and '.join(winners)}")
    else:
        who = state.players[state.to_move].name
        extra = f", second move of the king at {state.king_move} (or 'end')" if state.king_move else ""
        limit = f" of {state.turn_limit}" if state.turn_limit is not None else ""
        lines.append(f"round {state.rounds + 1}{limit}, turn {state.turns + 1}: {who} to move{extra}")
    return "\n".join(lines) + "\n"
