"""Printing a board at true scale, tiled over several sheets when it is larger than the paper.

A board that fits the printable area of one sheet (paper minus a 5 mm printer margin) is printed
on one page, centred.  A larger board is cut into tiles; every tile is printed on its own page
inside a 7 mm border that carries the sheet's label ("sheet r,c of R x C", rows counted from the
north edge), a 50 mm scale bar, a grey cut line around the tile and alignment marks: crosses at
the tile's corners and ticks continuing the grid lines into the border, so neighbouring sheets
line up.  Cuts never pass through a marker, so every marker is printed whole on one sheet; the
layout reports how many markers each sheet carries (large Quirky boards have markers inside the
grid for this, see :mod:`calibration.boards`).

Pages are written with :func:`calibration.printing.write_pdf_pages` (``/PrintScaling /None``):
print at 100 % / "actual size".
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardImage, BoardSpec, BoardSpecError, _Canvas, fiducials_in, render_board
from calibration.mat import PAPER_SIZES_MM

__all__ = ["PRINTER_MARGIN_MM", "SHEET_BORDER_MM", "BoardPrintError", "Sheet", "SheetLayout", "layout_sheets"]

PRINTER_MARGIN_MM = 5.0
SHEET_BORDER_MM = 7.0
_PAPER_ALIASES = {k.lower(): k for k in PAPER_SIZES_MM}


class BoardPrintError(BoardSpecError):
    """A board cannot be printed as asked (unknown paper, cell or marker larger than the sheet)."""


@dataclass(frozen=True)
class Sheet:
    """One printed page: ``row``/``col`` from 1 (row 1 = north), ``region_mm`` of the board it shows."""

    row: int
    col: int
    region_mm: tuple[float, float, float, float]
    marker_ids: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "region_mm": [round(v, 3) for v in self.region_mm],
            "marker_ids": list(self.marker_ids),
        }


@dataclass(frozen=True)
class SheetLayout:
    spec: BoardSpec
    paper: str
    orientation: str  # "landscape" | "portrait"
    page_mm: tuple[float, float]
    rows: int
    cols: int
    sheets: tuple[Sheet, ...]

    @property
    def tiled(self) -> bool:
        return len(self.sheets) > 1

    def to_json(self) -> dict[str, Any]:
        return {
            "board": self.spec.name,
            "paper": self.paper,
            "orientation": self.orientation,
            "page_mm": list(self.page_mm),
            "rows": self.rows,
            "cols": self.cols,
            "sheets": [s.to_json() for s in self.sheets],
        }


def paper_name(paper: str) -> str:
    name = _PAPER_ALIASES.get(paper.strip().lower()) if isinstance(paper, str) else None
    if name is None:
        raise BoardPrintError(f"unknown paper {paper!r} (expected one of {', '.join(PAPER_SIZES_MM)})")
    return name


def _intervals(spec: BoardSpec, axis: int) -> list[tuple[float, float]]:
    """The ranges along ``axis`` taken by markers (with their quiet zone), merged per marker line."""
    lines: dict[float, tuple[float, float]] = {}
    for f in spec.fiducials:
        vs = [c[axis] for c in f.corners_mm]
        q = f.side_mm / 6 + 0.5  # the white quiet zone and a little room for the cutter
        key = round(f.centre_mm[axis], 3)
        a, b = lines.get(key, (math.inf, -math.inf))
        lines[key] = (min(a, min(vs) - q), max(b, max(vs) + q))
    return sorted(lines.values())


def _cuts(lo: float, hi: float, step: float, blocked: list[tuple[float, float]], what: str) -> list[float]:
    """Cut positions ``lo = c0 < c1 < ... = hi``: pieces at most ``step`` long, no cut inside a blocked
    interval (a marker), every piece holding at least one whole marker interval; fewest pieces, then
    the most even (largest smallest piece).  Cuts are chosen among the interval ends (dynamic programme)."""
    free = [c for c in {lo, hi, *(v for ab in blocked for v in ab)} if lo <= c <= hi]
    cands = sorted(c for c in free if not any(a < c < b for a, b in blocked))

    def holds(p: float, q: float) -> bool:
        return any(p - 1e-9 <= a and b <= q + 1e-9 for a, b in blocked)

    best: dict[float, tuple[int, float, list[float]]] = {lo: (0, math.inf, [lo])}
    for q in cands[1:]:
        options = []
        for p, (n, smallest, path) in best.items():
            if 0 < q - p <= step + 1e-9 and holds(p, q):
                options.append((n + 1, min(smallest, q - p), [*path, q]))
        if options:
            n, smallest, path = min(options, key=lambda o: (o[0], -o[1]))
            best[q] = (n, smallest, path)
    if hi not in best:
        raise BoardPrintError(what)
    return best[hi][2]


def _layout(spec: BoardSpec, paper: str, orientation: str) -> SheetLayout:
    w, h = PAPER_SIZES_MM[paper]
    if orientation == "portrait":
        w, h = h, w
    x0, y0, x1, y1 = spec.extent_mm
    bw, bh = x1 - x0, y1 - y0
    single_w, single_h = w - 2 * PRINTER_MARGIN_MM, h - 2 * PRINTER_MARGIN_MM
    if bw <= single_w + 1e-6 and bh <= single_h + 1e-6:
        sheet = Sheet(1, 1, (x0, y0, x1, y1), spec.marker_ids)
        return SheetLayout(spec, paper, orientation, (w, h), 1, 1, (sheet,))
    tw, th = w - 2 * (PRINTER_MARGIN_MM + SHEET_BORDER_MM), h - 2 * (PRINTER_MARGIN_MM + SHEET_BORDER_MM)
    largest_marker = max(f.side_mm * 4 / 3 for f in spec.fiducials)
    if spec.cell_mm > min(tw, th) or largest_marker > min(tw, th):
        raise BoardPrintError(
            f"a {spec.cell_mm:g} mm cell does not fit on {paper} paper (a sheet holds at most "
            f"{min(tw, th):g} mm); use larger paper or a smaller --cell-mm"
        )
    msg = (
        f"cannot tile {spec.name!r} ({spec.cell_mm:g} mm cells) over {paper} sheets so that every sheet "
        f"holds a whole marker; use larger paper or a smaller --cell-mm"
    )
    xs = _cuts(x0, x1, tw, _intervals(spec, 0), msg)
    ys = _cuts(y0, y1, th, _intervals(spec, 1), msg)
    rows, cols = len(ys) - 1, len(xs) - 1
    sheets = []
    for r in range(rows):  # row 1 = north
        ya, yb = ys[rows - 1 - r], ys[rows - r]
        for c in range(cols):
            region = (xs[c], ya, xs[c + 1], yb)
            ids = tuple(f.id for f in fiducials_in(spec, region))
            sheets.append(Sheet(r + 1, c + 1, region, ids))
    return SheetLayout(spec, paper, orientation, (w, h), rows, cols, tuple(sheets))


def layout_sheets(spec: BoardSpec, paper: str = "A4") -> SheetLayout:
    """How ``spec`` is printed on ``paper``: one sheet when it fits, else the orientation needing fewer
    sheets (landscape on a tie).  Raises :class:`BoardPrintError`."""
    name = paper_name(paper)
    best: SheetLayout | None = None
    err: BoardPrintError | None = None
    for orientation in ("landscape", "portrait"):
        try:
            lay = _layout(spec, name, orientation)
        except BoardPrintError as exc:
            err = err or exc
            continue
        if best is None or len(lay.sheets) < len(best.sheets):
            best = lay
    if best is None:
        assert err is not None
        raise err
    return best


U8 = npt.NDArray[np.uint8]


def render_sheet(layout: SheetLayout, sheet: Sheet, px_per_mm: float) -> U8:
    """The page image (RGB) of ``sheet``: the board region at its true size plus the border marks."""
    spec = layout.spec
    w, h = layout.page_mm
    x0, y0, x1, y1 = sheet.region_mm
    # the page in board mm: the tile placed so that it is centred on the page
    ox = x0 - (w - (x1 - x0)) / 2
    oy = y0 - (h - (y1 - y0)) / 2
    page_region = (ox, oy, ox + w, oy + h)
    width, height = max(1, round(w * px_per_mm)), max(1, round(h * px_per_mm))
    page = BoardImage(spec, np.full((height, width, 3), 255, np.uint8), px_per_mm, page_region)
    tile = render_board(spec, px_per_mm, region_mm=sheet.region_mm)
    c0, r0 = (round(v + 0.5) for v in page.mm_to_px(np.array([x0, y1])))
    th, tw = tile.image.shape[:2]
    th, tw = min(th, height - r0), min(tw, width - c0)
    page.image[r0 : r0 + th, c0 : c0 + tw] = tile.image[:th, :tw]
    if not layout.tiled:
        return page.image
    cv = _Canvas(page)
    grey, ink = (150, 150, 150), (60, 60, 60)
    b = SHEET_BORDER_MM
    # cut line around the tile
    for a, z in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
        cv.line(a, z, 0.2, grey)
    # corner crosses and grid-line ticks in the border
    for cx in (x0, x1):
        for cy in (y0, y1):
            cv.line((cx - b * 0.8, cy), (cx + b * 0.8, cy), 0.25, ink)
            cv.line((cx, cy - b * 0.8), (cx, cy + b * 0.8), 0.25, ink)
    cell = spec.cell_mm
    gw, gh = spec.grid_mm
    for i in range(spec.cols + 1):
        gx = i * cell
        if x0 < gx < x1:
            if y0 > 0:
                cv.line((gx, y0 - b * 0.6), (gx, y0), 0.3, ink)
            if y1 < gh:
                cv.line((gx, y1), (gx, y1 + b * 0.6), 0.3, ink)
    for j in range(spec.rows + 1):
        gy = j * cell
        if y0 < gy < y1:
            if x0 > 0:
                cv.line((x0 - b * 0.6, gy), (x0, gy), 0.3, ink)
            if x1 < gw:
                cv.line((x1, gy), (x1 + b * 0.6, gy), 0.3, ink)
    # label (north border) and 50 mm scale bar (south border)
    joins = []
    if sheet.col < layout.cols:
        joins.append(f"east: {sheet.row},{sheet.col + 1}")
    if sheet.row < layout.rows:
        joins.append(f"south: {sheet.row + 1},{sheet.col}")
    label = (
        f"{spec.name}  sheet {sheet.row},{sheet.col} of {layout.rows} x {layout.cols}"
        f"  ({', '.join(joins) or 'last sheet'})  print at 100 %, cut on the grey line"
    )
    cv.text(label, ((x0 + x1) / 2, y1 + b / 2), 2.2, ink)
    bx = x0 + 10.0
    by = y0 - b / 2
    cv.line((bx, by), (bx + 50.0, by), 0.5, (0, 0, 0))
    for t in range(6):
        cv.line((bx + 10.0 * t, by - 1.5), (bx + 10.0 * t, by + 0.25), 0.3, (0, 0, 0))
    cv.text("50 mm", (bx + 62.0, by), 2.0, ink)
    return page.image


def render_preview(layout: SheetLayout, px_per_mm: float = 2.0) -> U8:
    """The whole board (RGB) with the sheet boundaries drawn in blue and each sheet's number."""
    bi = render_board(layout.spec, px_per_mm)
    if not layout.tiled:
        return bi.image
    cv = _Canvas(bi)
    for s in layout.sheets:
        x0, y0, x1, y1 = s.region_mm
        for a, z in (((x0, y0), (x1, y0)), ((x1, y0), (x1, y1)), ((x1, y1), (x0, y1)), ((x0, y1), (x0, y0))):
            cv.line(a, z, 1.0, (40, 90, 220))
        cv.text(f"{s.row},{s.col}", ((x0 + x1) / 2, (y0 + y1) / 2), 12.0, (40, 90, 220))
    return bi.image


def write_board(
    path: str | os.PathLike[str],
    layout: SheetLayout,
    dpi: float = 300.0,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write the sheets of ``layout`` as a multi-page true-scale PDF (``.pdf``) or, for ``.png``, the
    preview of the whole board with the sheet layout.  Returns the path."""
    from calibration.printing import MM_PER_INCH, write_pdf_pages, write_png

    p = Path(path)
    suffix = p.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise BoardPrintError(f"output must end in .pdf or .png, got {str(p)!r}")
    if not (isinstance(dpi, (int, float)) and math.isfinite(dpi) and 50 <= dpi <= 600):
        raise BoardPrintError(f"dpi must be between 50 and 600, got {dpi!r}")
    k = dpi / MM_PER_INCH
    if suffix == ".png":
        img = render_preview(layout, min(k, 4.0))
        write_png(p, np.asarray(cv2.cvtColor(img, cv2.COLOR_RGB2BGR), np.uint8), min(k, 4.0) * MM_PER_INCH)
        return p
    pages = []
    for i, sheet in enumerate(layout.sheets):
        pages.append(
            (np.asarray(cv2.cvtColor(render_sheet(layout, sheet, k), cv2.COLOR_RGB2BGR), np.uint8), layout.page_mm)
        )
        if progress is not None:
            progress(i + 1, len(layout.sheets))
    write_pdf_pages(p, pages, f"Boardside {layout.spec.name}", dpi)
    return p
