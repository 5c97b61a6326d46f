"""Text and picture views of a Quirky Circuits board (application layer: may use OpenCV)."""

from __future__ import annotations

from pathlib import Path

from engine.errors import BoardsideInputError
from engine.motion import Heading
from engine.quirky import Scenario, Table

ARROWS = {Heading.N: "^", Heading.E: ">", Heading.S: "v", Heading.W: "<"}


def token_letters(table: Table) -> dict[str, str]:
    """One letter per token id (lower case of its first free letter), for the ASCII board's legend."""
    used: set[str] = set()
    out: dict[str, str] = {}
    for t in table.tokens:
        for ch in (t.id + "abcdefghijklmnopqrstuvwxyz").lower():
            if ch.isalpha() and ch not in used and ch not in "lqrv":
                used.add(ch)
                out[t.id] = ch
                break
    return out


def ascii_board(scn: Scenario, table: Table | None = None) -> str:
    """The board as text: north at the top, ``|`` and ``-`` walls, robot as an arrow, tokens as letters."""
    table = table or Table.initial(scn)
    b = scn.board
    letters = token_letters(table)
    lines = ["    " + " ".join(f"{x:<1}" for x in range(b.width)) if b.width <= 10 else ""]
    lines.append("   +" + "-" * (2 * b.width - 1) + "+")
    for y in range(b.height - 1, -1, -1):
        row = f"{y:2d} |"
        for x in range(b.width):
            c = (x, y)
            ch = b.char(c)
            on = [t for t in table.tokens if t.at == c]
            if on:
                ch = letters[on[-1].id].upper() if on[-1].broken else letters[on[-1].id]
            if table.cell == c:
                ch = ARROWS[table.pose.heading]
            row += ch
            if x < b.width - 1:
                row += "|" if frozenset((c, (x + 1, y))) in b.walls else " "
        lines.append(row + "|")
        if y > 0:
            sep = "   |"
            for x in range(b.width):
                sep += "-" if frozenset(((x, y), (x, y - 1))) in b.walls else " "
                if x < b.width - 1:
                    sep += " "
            lines.append(sep + "|" if sep.strip("| ") else "   |" + " " * (2 * b.width - 1) + "|")
    lines.append("   +" + "-" * (2 * b.width - 1) + "+")
    legend = [
        f"{ARROWS[table.pose.heading]} {scn.robot} at {table.pose}",
        "# obstacle  Q start  L/R spin space",
    ]
    for t in table.tokens:
        where = f"at {t.at[0]},{t.at[1]}" if t.at else "held"
        legend.append(f"{letters[t.id]} {t.id} ({t.kind}) {where}" + (" BROKEN" if t.broken else ""))
    if any(table.held):
        legend.append("holding: " + ", ".join(h or "-" for h in table.held))
    if table.bag:
        legend.append("vacuumed: " + ", ".join(table.bag))
    if table.momentum:
        legend.append(f"momentum marker: {table.momentum.name}")
    return "\n".join(lines + legend)


def render_png(scn: Scenario, path: str | Path, table: Table | None = None, cell: int = 64) -> None:
    """Draw the board (obstacles, walls, spin spaces, tokens, robot, objective) to a PNG with OpenCV."""
    import cv2
    import numpy as np

    table = table or Table.initial(scn)
    b = scn.board
    margin = 30
    w, h = b.width * cell + 2 * margin, b.height * cell + 2 * margin + 40
    img = np.full((h, w, 3), 245, np.uint8)

    def box(x: int, y: int) -> tuple[int, int, int, int]:
        x0 = margin + x * cell
        y0 = margin + (b.height - 1 - y) * cell
        return x0, y0, x0 + cell, y0 + cell

    font = cv2.FONT_HERSHEY_SIMPLEX
    obj = scn.objective
    goals = {c for _, c in obj.deliver} | ({obj.reach} if obj.reach else set())
    for y in range(b.height):
        for x in range(b.width):
            x0, y0, x1, y1 = box(x, y)
            colour = (250, 250, 250)
            if (x, y) in b.obstacles:
                colour = (90, 90, 90)
            elif (x, y) in goals:
                colour = (190, 240, 190)
            cv2.rectangle(img, (x0, y0), (x1, y1), colour, -1)
            cv2.rectangle(img, (x0, y0), (x1, y1), (200, 200, 200), 1)
            spin = b.spins.get((x, y))
            if spin:
                cv2.circle(img, ((x0 + x1) // 2, (y0 + y1) // 2), cell // 3, (200, 120, 40), 2)
                cv2.putText(img, spin, (x0 + cell // 2 - 8, y0 + cell // 2 + 8), font, 0.7, (200, 120, 40), 2)
            if (x, y) == (b.start.x, b.start.y):
                cv2.putText(img, "Q", (x0 + 4, y0 + 18), font, 0.5, (0, 0, 200), 2)
    for wall in b.walls:
        (ax, ay), (bx, _by) = sorted(wall)
        x0, y0, x1, y1 = box(ax, ay)
        if ax != bx:  # wall on the east side of a
            cv2.line(img, (x1, y0), (x1, y1), (0, 0, 160), 5)
        else:  # wall on the north side of a
            cv2.line(img, (x0, y0), (x1, y0), (0, 0, 160), 5)
    cv2.rectangle(img, (margin, margin), (margin + b.width * cell, margin + b.height * cell), (0, 0, 160), 3)
    letters = token_letters(table)
    stacks: dict[tuple[int, int], int] = {}
    for t in table.tokens:
        if t.at is None:
            continue
        k = stacks.get(t.at, 0)
        stacks[t.at] = k + 1
        x0, y0, _, _ = box(*t.at)
        centre = (x0 + 14 + 18 * k, y0 + cell - 14)
        cv2.circle(img, centre, 9, (40, 40, 200) if t.broken else (40, 150, 230), -1)
        cv2.putText(img, letters[t.id], (centre[0] - 5, centre[1] + 5), font, 0.45, (255, 255, 255), 1)
    x0, y0, x1, y1 = box(table.pose.x, table.pose.y)
    cx, cy, r = (x0 + x1) // 2, (y0 + y1) // 2, cell // 3
    d = table.pose.heading
    tip = (cx + d.dx * r, cy - d.dy * r)
    left = (cx - d.dy * r // 2 * -1 - d.dx * r // 2, cy - d.dx * r // 2 + d.dy * r // 2)
    right = (cx - d.dy * r // 2 - d.dx * r // 2, cy + d.dx * r // 2 + d.dy * r // 2)
    cv2.fillPoly(img, [np.array([tip, left, right], np.int32)], (30, 160, 30))
    cv2.putText(
        img, f"{scn.title} ({scn.robot}) - {obj.text}"[:80], (margin, h - 20), font, 0.45, (0, 0, 0), 1
    )
    p = Path(path)
    if p.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        raise BoardsideInputError(f"picture must be a .png or .jpg file, got {str(p)!r}")
    p.parent.mkdir(parents=True, exist_ok=True)
    if not cv2.imwrite(str(p), img):
        raise BoardsideInputError(f"cannot write picture {str(p)!r}")
