"""Annotated pictures that show the camera scoring's work: every reconstructed block's visible faces
outlined in its colour (faces counted for the side this picture shows are filled), faces of that side
a flag covers crossed out (they are not counted: CTRL rulebook, "Scoring"), the cells the reading
reports that no picture shows marked in red, the per-side count written on the picture, and a legend."""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np
import numpy.typing as npt

from engine.ctrl.geometry import ALL_DIRS, CENTRAL_CUBE, SIDE_VECTORS, Cell
from engine.ctrl.scoring import FaceView
from vision.camera import ViewCamera
from vision.pieces import face_corners
from vision.preview import PALETTE

U8 = npt.NDArray[np.uint8]


def annotate_view(
    image: U8, camera: ViewCamera, blocks: Mapping[Cell, str], faces: list[FaceView], side: str,
    unobserved: list[Cell], counts: Mapping[str, int],
) -> U8:
    out = image.copy()
    overlay = image.copy()
    s = camera.block_mm
    occupied = set(blocks) | set(CENTRAL_CUBE)
    counted = {(f.cell, f.side) for f in faces if f.status == "counted"}
    flag_covered = {(f.cell, f.side) for f in faces if f.status == "flag"}
    crosses: list[npt.NDArray[np.int32]] = []
    for cell, color in blocks.items():
        for n in ALL_DIRS:
            if (cell[0] + n[0], cell[1] + n[1], cell[2] + n[2]) in occupied or n == (0, 0, -1):
                continue
            quad = face_corners(cell, n) * s
            centre = quad.mean(axis=0)
            if float(np.dot(camera.center - centre, np.array(n, float))) <= 0:
                continue
            px = np.round(camera.project(quad)).astype(np.int32)
            bgr = PALETTE.get(color, (128, 128, 128))
            side_of_n = next((k for k, v in SIDE_VECTORS.items() if v == n), "")
            if side_of_n == side and (cell, side) in counted:
                cv2.fillConvexPoly(overlay, px, bgr, cv2.LINE_AA)
            cv2.polylines(out, [px], True, bgr, 2, cv2.LINE_AA)
            if side_of_n == side and (cell, side) in flag_covered:
                crosses.append(px)
    out = np.asarray(cv2.addWeighted(overlay, 0.35, out, 0.65, 0), np.uint8)
    for px in crosses:  # drawn after the blend so that they stay plain
        for a, b in ((0, 2), (1, 3)):
            cv2.line(out, tuple(int(v) for v in px[a]), tuple(int(v) for v in px[b]), (255, 255, 255), 3, cv2.LINE_AA)
            cv2.line(out, tuple(int(v) for v in px[a]), tuple(int(v) for v in px[b]), (20, 20, 20), 1, cv2.LINE_AA)
    for cell in unobserved:
        for n in ((0, 0, 1), (1, 0, 0), (0, 1, 0), (-1, 0, 0), (0, -1, 0)):
            px = np.round(camera.project(face_corners(cell, n) * s)).astype(np.int32)
            cv2.polylines(out, [px], True, (0, 0, 255), 1, cv2.LINE_AA)
    text = f"side {side}: " + "  ".join(f"{c} {n}" for c, n in counts.items())
    cv2.rectangle(out, (0, 0), (out.shape[1], 34), (255, 255, 255), -1)
    cv2.putText(out, text, (10, 24), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (20, 20, 20), 2, cv2.LINE_AA)
    for i, (line, bgr) in enumerate(reversed(legend_lines(side, len(unobserved), len(crosses)))):
        cv2.putText(out, line, (10, out.shape[0] - 12 - 24 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (255, 255, 255), 4,
                    cv2.LINE_AA)
        cv2.putText(out, line, (10, out.shape[0] - 12 - 24 * i), cv2.FONT_HERSHEY_SIMPLEX, 0.6, bgr, 2, cv2.LINE_AA)
    return out


def legend_lines(side: str, n_unobserved: int, n_flag_covered: int) -> list[tuple[str, tuple[int, int, int]]]:
    """The legend written at the bottom of an annotated picture (text, BGR colour), top line first."""
    lines: list[tuple[str, tuple[int, int, int]]] = [(f"filled: faces counted for side {side}", (20, 20, 20))]
    if n_flag_covered:
        lines.append((f"crossed: {n_flag_covered} face(s) of side {side} under a flag (not counted)", (20, 20, 20)))
    if n_unobserved:
        lines.append((f"red: {n_unobserved} cell(s) no picture shows", (0, 0, 255)))
    return lines
