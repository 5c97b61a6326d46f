"""Legal placement generation: the three-block path (CTRL rulebook, "Placing Blocks").

Implements the interpretation fixed in docs/rules/ctrl.md ("Paths"):

* **First block** (rulebook "Placing your First Block"): a cell ``c1`` that is not blocked and is
  face-adjacent to a block ``b`` of the mover's colour with ``c1 = b + d``, ``d != -z`` (never on the
  bottom of anything, rulebook "The Battlefield").
* **Making a Path** (rulebook "Making a Path", "Reaching an Edge", "Hitting a Wall", "Stepping Up &
  Down"): choose a support normal ``N`` with ``occupied(c1 - N)``, ``N != -z``, and a travel direction
  ``D`` perpendicular to ``N``; each further block is one step from ``(p, N, D)``:

  - ``ahead = p + D`` occupied (a wall): STEP UP to ``ahead + N`` if that is free, else CLIMB to
    ``p + N`` with ``N, D = -D, N``;
  - else ``ahead`` blocked (table, another colour's flag; rulebook "Obstructions"): obstructed;
  - else ``ahead - N`` occupied: STRAIGHT to ``ahead``;
  - else an edge: STEP DOWN to ``ahead - N`` if ``ahead - 2N`` is occupied, else ROLL to ``ahead - N``
    with ``N, D = D, -N``;
  - the step is obstructed if its cell is blocked or the new ``N`` is ``-z``.

* A legal placement is the *set* of its cells.  The table is never a support and never a wall.
"""

from __future__ import annotations

from collections.abc import Iterable, Set

from engine.ctrl.geometry import DOWN, NOT_DOWN, PERP, Cell


def step(
    p: Cell,
    n: Cell,
    d: Cell,
    occupied: Set[Cell],
    blocked_extra: Set[Cell],
) -> tuple[Cell, Cell, Cell] | None:
    """One path step from block ``p`` with support normal ``n`` and travel direction ``d``.

    ``occupied`` holds Central Cube cells and blocks (including blocks already placed this turn);
    ``blocked_extra`` holds cells with another colour's flag.  Returns ``(next, n', d')`` or
    ``None`` when the path is obstructed.
    """
    ax, ay, az = p[0] + d[0], p[1] + d[1], p[2] + d[2]
    ahead = (ax, ay, az)
    nx, ny, nz = n
    if ahead in occupied:
        up = (ax + nx, ay + ny, az + nz)
        if up not in occupied:  # STEP UP onto a one-block wall
            nxt, n2, d2 = up, n, d
        else:  # CLIMB the wall: roll 90 degrees backward
            nxt = (p[0] + nx, p[1] + ny, p[2] + nz)
            n2 = (-d[0], -d[1], -d[2])
            d2 = n
    elif az < 0 or ahead in blocked_extra:
        return None  # hitting the table or an opponent's flag
    elif (ax - nx, ay - ny, az - nz) in occupied:
        nxt, n2, d2 = ahead, n, d  # STRAIGHT along the surface
    else:
        below = (ax - nx, ay - ny, az - nz)
        if (ax - 2 * nx, ay - 2 * ny, az - 2 * nz) in occupied:
            nxt, n2, d2 = below, n, d  # STEP DOWN a one-block edge
        else:
            nxt, n2, d2 = below, d, (-nx, -ny, -nz)  # ROLL 90 degrees forward over the edge
    if n2 == DOWN or nxt[2] < 0 or nxt in occupied or nxt in blocked_extra:
        return None
    return nxt, n2, d2


def first_cells(own_blocks: Iterable[Cell], occupied: Set[Cell], blocked_extra: Set[Cell]) -> set[Cell]:
    """Candidate first blocks: free cells next to an own block, never below it."""
    out: set[Cell] = set()
    for b in own_blocks:
        for d in NOT_DOWN:
            c = (b[0] + d[0], b[1] + d[1], b[2] + d[2])
            if c[2] >= 0 and c not in occupied and c not in blocked_extra:
                out.add(c)
    return out


def placements(
    own_blocks: Iterable[Cell],
    occupied: Set[Cell],
    blocked_extra: Set[Cell],
    length: int = 3,
    forbidden: Set[Cell] = frozenset(),
) -> set[frozenset[Cell]]:
    """Every distinct legal placement (set of ``length`` cells).

    ``forbidden`` lists cells no path cell may occupy (the first-turn rule: cells face-adjacent to
    an opponent's starting block).  This is the hot path of the engine, so :func:`step` is inlined
    here; tests check it against :func:`explain_path`, which calls :func:`step`.
    """
    result: set[frozenset[Cell]] = set()
    if length <= 0:
        return result
    # Paths of up to 3 blocks never test their own earlier cells: in the frame (N, D) of the cell
    # just placed, the previous cell is always one step back along -D (straight, step up, climb,
    # step down and roll all satisfy this), while every cell a step tests lies at D-component 0 or
    # +1.  So for length <= 3 the occupied set needs no updates; longer paths add their cells.
    # (tests/ctrl/test_golden.py checks this generator against explain_path, which adds them.)
    track = length > 3
    occ = set(occupied) if track else occupied
    flags = blocked_extra
    for c1 in first_cells(own_blocks, occupied, blocked_extra):
        if c1 in forbidden:
            continue
        if length == 1:
            result.add(frozenset((c1,)))
            continue
        x1, y1, z1 = c1
        for n in NOT_DOWN:
            if (x1 - n[0], y1 - n[1], z1 - n[2]) not in occupied:
                continue
            for d in PERP[n]:
                path = [c1]
                if track:
                    occ.add(c1)  # type: ignore[attr-defined]
                px, py, pz = x1, y1, z1
                nx, ny, nz = n
                dx, dy, dz = d
                ok = True
                for _ in range(length - 1):
                    ax, ay, az = px + dx, py + dy, pz + dz
                    if (ax, ay, az) in occ:
                        up = (ax + nx, ay + ny, az + nz)
                        if up not in occ:  # step up
                            nxt = up
                        else:  # climb
                            nxt = (px + nx, py + ny, pz + nz)
                            nx, ny, nz, dx, dy, dz = -dx, -dy, -dz, nx, ny, nz
                    elif az < 0 or (ax, ay, az) in flags:
                        ok = False
                        break
                    elif (ax - nx, ay - ny, az - nz) in occ:
                        nxt = (ax, ay, az)  # straight
                    elif (ax - 2 * nx, ay - 2 * ny, az - 2 * nz) in occ:
                        nxt = (ax - nx, ay - ny, az - nz)  # step down
                    else:  # roll
                        nxt = (ax - nx, ay - ny, az - nz)
                        nx, ny, nz, dx, dy, dz = dx, dy, dz, -nx, -ny, -nz
                    if nz == -1 or nxt[2] < 0 or nxt in occ or nxt in flags or nxt in forbidden:
                        ok = False
                        break
                    path.append(nxt)
                    if track:
                        occ.add(nxt)  # type: ignore[attr-defined]
                    px, py, pz = nxt
                if track:
                    occ.difference_update(path)  # type: ignore[attr-defined]
                if ok:
                    result.add(frozenset(path))
    return result


def explain_path(
    c1: Cell, n: Cell, d: Cell, occupied: Set[Cell], blocked_extra: Set[Cell], length: int = 3
) -> list[Cell] | None:
    """The cells of the path from ``(c1, n, d)``, or ``None`` if obstructed (used by tests and hints)."""
    if (c1[0] - n[0], c1[1] - n[1], c1[2] - n[2]) not in occupied or n == DOWN:
        return None
    occ = set(occupied)
    occ.add(c1)
    path = [c1]
    p, nn, dd = c1, n, d
    for _ in range(length - 1):
        r = step(p, nn, dd, occ, blocked_extra)
        if r is None:
            return None
        p, nn, dd = r
        path.append(p)
        occ.add(p)
    return path
