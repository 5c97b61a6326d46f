"""Annotated pictures of a board reading: every read cell outlined and labelled with what was read,
every problem's cell(s) outlined in red with the problem's number, and the problems listed."""

from __future__ import annotations

from collections.abc import Collection, Sequence

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import gridopolis_pad_top_mm
from engine.core import Problem
from vision.board_classify import CellReading
from vision.board_locate import BoardPose

__all__ = ["annotate_board"]

U8 = npt.NDArray[np.uint8]

_BGR = {"blue": (200, 90, 20), "red": (40, 40, 220), "green": (60, 160, 40), "yellow": (0, 200, 230),
        "grey": (150, 150, 150), "white": (240, 240, 240), "black": (30, 30, 30), "brown": (40, 80, 130),
        "orange": (0, 140, 255), "purple": (160, 60, 140), "pink": (180, 120, 250)}
_SHORT = {"cube": "1", "tower2": "2", "royal_tower": "R", "character": "C", "pawn": "P", "king": "K",
          "occluded": "?", "unseen": "-", "dust_bunny": "D", "vase": "V", "seed": "S", "fossil": "F",
          "quirky_flag": "Fl"}


def _label(c: CellReading) -> str:
    s = _SHORT.get(c.kind, c.kind[:2])
    if c.kind in ("character", "royal_tower") and c.cubes:
        s = ("R" if c.kind == "royal_tower" else str(c.cubes)) + ("C" if c.character else "")
    return s


def annotate_board(
    image: U8, pose: BoardPose, cells: Sequence[CellReading], problems: Sequence[Problem],
    problem_cells: Sequence[Sequence[tuple[int, int]]], title: str = "",
    unsure: Collection[tuple[int, ...]] = (),
) -> U8:
    """A copy of ``image`` (BGR) with the reading drawn on it.  ``unsure``: the sites whose reading is unsure
    (:mod:`vision.board_sureness`): their label gets a ``?`` and a second, orange outline inside."""
    doubtful = {tuple(k) for k in unsure}
    out = image.copy()
    spec = pose.spec
    s = spec.cell_mm
    w, h = spec.grid_mm
    grid = pose.project(np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], np.float64))
    cv2.polylines(out, [np.round(grid).astype(np.int32)], True, (255, 255, 255), 1, cv2.LINE_AA)

    def cell_poly(x: int, y: int, inset: float, z: float = 0.0) -> npt.NDArray[np.int32]:
        pts = np.array([[x * s + inset, y * s + inset, z], [(x + 1) * s - inset, y * s + inset, z],
                        [(x + 1) * s - inset, (y + 1) * s - inset, z], [x * s + inset, (y + 1) * s - inset, z]])
        return np.asarray(np.round(pose.project(pts)), np.int32)

    def floor(key: tuple[int, ...]) -> float:
        return gridopolis_pad_top_mm(key[2]) if len(key) > 2 else 0.0

    for c in cells:
        if (c.kind == "empty" and tuple(c.key) not in doubtful) or len(c.key) < 2:
            continue
        x, y = c.key[0], c.key[1]
        colour = _BGR.get(c.colour or "", (255, 255, 255))
        if c.kind in ("occluded", "unseen"):
            colour = (0, 165, 255)
        poly = cell_poly(x, y, 0.12 * s) if len(c.key) == 2 else cell_poly(x, y, 0.2 * s, floor(c.key))
        cv2.polylines(out, [poly], True, colour, 2, cv2.LINE_AA)
        cx, cy = poly.mean(axis=0)
        text = ("0" if c.kind == "empty" else _label(c))
        if tuple(c.key) in doubtful and c.kind not in ("occluded", "unseen"):
            text += "?"
            inner = cell_poly(x, y, 0.22 * s) if len(c.key) == 2 else cell_poly(x, y, 0.3 * s, floor(c.key))
            cv2.polylines(out, [inner], True, (0, 140, 255), 2, cv2.LINE_AA)
        cv2.putText(out, text, (int(cx) - 8, int(cy) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0, 0, 0), 3, cv2.LINE_AA)
        cv2.putText(out, text, (int(cx) - 8, int(cy) + 6), cv2.FONT_HERSHEY_SIMPLEX, 0.55, colour, 1, cv2.LINE_AA)
    for n, (p, where) in enumerate(zip(problems, problem_cells, strict=True), start=1):
        red = (0, 0, 255) if p.severity == "error" else (0, 200, 255)
        for x, y in where:
            if not (0 <= x < spec.cols and 0 <= y < spec.rows):
                continue
            poly = cell_poly(x, y, 0.0)
            cv2.polylines(out, [poly], True, red, 3, cv2.LINE_AA)
            tx, ty = poly.min(axis=0)
            cv2.putText(out, str(n), (int(tx) + 2, int(ty) + 14), cv2.FONT_HERSHEY_SIMPLEX, 0.5, red, 2, cv2.LINE_AA)
    lines = [title] if title else []
    lines += [f"{n}. {'unsure' if p.code == 'cell-unsure' else p.severity}: {p.where + ': ' if p.where else ''}"
              f"{p.message}" for n, p in enumerate(problems, start=1)]
    if not problems:
        lines.append("OK: no problem found")
    lines.append("labels: 1/2 cubes, R royal tower, C character, P pawn, K king, bl blocker, ? covered, - unseen; "
                 "a label ending in ? (orange inner outline, 0? = read empty): the camera is unsure of it, check it")
    # the list goes on a white panel under the picture, so that no part of the board is hidden
    wrapped: list[str] = []
    for line in lines:
        while len(line) > 150:
            cut = line.rfind(" ", 0, 150)
            cut = cut if cut > 40 else 150
            wrapped.append(line[:cut])
            line = "    " + line[cut:].lstrip()
        wrapped.append(line)
    panel = np.full((18 * len(wrapped) + 10, out.shape[1], 3), 255, np.uint8)
    for i, line in enumerate(wrapped):
        bad = line[:12].split(" ")[1:2] == ["error:"]
        cv2.putText(panel, line, (8, 18 + 18 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.45,
                    (0, 0, 200) if bad else (20, 20, 20), 1, cv2.LINE_AA)
    return np.asarray(np.vstack([out, panel]), np.uint8)
