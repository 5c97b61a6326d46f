"""A sample flat-board scene (a printed board with fiducials, cube stacks, tokens, a robot figure).

The board-vision work records its fixtures with the same scene builder
(:func:`boardside.fixtures_render.scene.add_board`) and backend; this module is the worked example.
Board frame: origin at the board's south-west corner, x east, y north, z up, millimetres
(docs/coordinates.md, "Flat boards").
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from boardside.fixtures_render.camera import intrinsics, look_at, make_camera
from boardside.fixtures_render.scene import (
    BoardPiece,
    Lighting,
    SceneSpec,
    add_board,
    add_table,
    apply_lighting,
)
from boardside.fixtures_render.sensor import SensorEffects, develop, encode_jpeg

CELL_MM = 40.0
GRID = 6
MARGIN_MM = 30.0
MARKER_MM = 24.0


def board_image(px_per_mm: float = 4.0) -> tuple[npt.NDArray[np.uint8], float, dict[int, list[list[float]]]]:
    """A printed 6x6 grid board with an ArUco marker (DICT_4X4_50, ids 0-3) in each corner.

    Returns (RGB image with row 0 = north edge, side in mm, marker id -> 4 corner points in board mm)."""
    side = GRID * CELL_MM + 2 * MARGIN_MM
    n = round(float(side * px_per_mm))
    img = np.full((n, n, 3), (236, 232, 222), np.uint8)

    def px(x: float, y: float) -> tuple[int, int]:
        return round(float(x * px_per_mm)), round(float((side - y) * px_per_mm))

    rng = np.random.default_rng(3)
    for i in range(GRID):
        for j in range(GRID):
            x0, y0 = MARGIN_MM + i * CELL_MM, MARGIN_MM + j * CELL_MM
            if rng.random() < 0.25:
                colour = tuple(int(v) for v in rng.choice([[200, 230, 255], [255, 220, 200], [210, 245, 210]]))
                cv2.rectangle(img, px(x0, y0 + CELL_MM), px(x0 + CELL_MM, y0), colour, -1)
    for k in range(GRID + 1):
        a = MARGIN_MM + k * CELL_MM
        cv2.line(img, px(a, MARGIN_MM), px(a, side - MARGIN_MM), (60, 60, 60), 2)
        cv2.line(img, px(MARGIN_MM, a), px(side - MARGIN_MM, a), (60, 60, 60), 2)
    d = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    markers: dict[int, list[list[float]]] = {}
    m = round(float(MARKER_MM * px_per_mm))
    centres = [
        (MARGIN_MM / 2, MARGIN_MM / 2),
        (side - MARGIN_MM / 2, MARGIN_MM / 2),
        (side - MARGIN_MM / 2, side - MARGIN_MM / 2),
        (MARGIN_MM / 2, side - MARGIN_MM / 2),
    ]
    for mid, (cx, cy) in enumerate(centres):
        mk = cv2.aruco.generateImageMarker(d, mid, m)
        c0, r0 = px(cx - MARKER_MM / 2, cy + MARKER_MM / 2)
        img[r0 : r0 + m, c0 : c0 + m] = mk[..., None]
        h = MARKER_MM / 2
        markers[mid] = [[cx - h, cy + h], [cx + h, cy + h], [cx + h, cy - h], [cx - h, cy - h]]
    return img, side, markers


def sample_pieces() -> list[BoardPiece]:
    def cell(i: int, j: int) -> tuple[float, float]:
        return MARGIN_MM + (i + 0.5) * CELL_MM, MARGIN_MM + (j + 0.5) * CELL_MM

    return [
        BoardPiece("cube", *cell(1, 1), color=(0.025, 0.13, 0.55), stack=3, size_mm=25),
        BoardPiece("cube", *cell(4, 2), color=(0.80, 0.16, 0.34), stack=1, size_mm=25),
        BoardPiece("cube", *cell(2, 4), color=(0.88, 0.62, 0.02), stack=2, size_mm=25),
        BoardPiece("token", *cell(5, 5), color=(0.05, 0.42, 0.09), size_mm=26),
        BoardPiece("token", *cell(0, 3), color=(0.6, 0.05, 0.04), size_mm=26),
        BoardPiece("robot", *cell(3, 3), color=(0.9, 0.9, 0.92), heading_deg=90.0, size_mm=34),
    ]


def render_sample_board(output: Path, spp: int = 6, seed: int = 4) -> dict[str, Any]:
    from boardside.fixtures_render.mitsuba_backend import render

    rng = np.random.default_rng(seed)
    img, side, markers = board_image()
    pieces = sample_pieces()
    spec = SceneSpec()
    add_board(spec, img, side, side, pieces, rng)
    add_table(spec, "oak", rng)
    lighting = Lighting.sample(rng, (side / 2, side / 2))
    apply_lighting(spec, lighting)
    hfov = 68.0
    K = intrinsics(1280, 720, hfov)
    dist = (-0.12, 0.03, 0.0, 0.0, 0.0)
    e, a = math.radians(55), math.radians(-70)
    target = np.array([side / 2, side / 2, 0.0])
    eye = target + 520 * np.array([math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)])
    R, t = look_at(eye, target, roll_deg=1.5)
    cam = make_camera(1280, 720, K, dist, R, t)
    result = render(spec, cam, spp=spp, seed=seed, labels=False)
    fx = SensorEffects.sample(rng, lighting.dim)
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_bytes(encode_jpeg(develop(result.linear, fx, rng), fx.jpeg_quality))
    truth = {
        "file": output.name,
        "simulated": "rendered photograph",
        "board": {
            "side_mm": side,
            "cell_mm": CELL_MM,
            "grid": GRID,
            "origin": "south-west corner, x east, y north",
            "aruco_dictionary": "DICT_4X4_50",
            "marker_corners_mm": markers,
        },
        "pieces": [
            {"kind": p.kind, "x_mm": p.x_mm, "y_mm": p.y_mm, "stack": p.stack, "heading_deg": p.heading_deg}
            for p in pieces
        ],
        "camera": cam.to_json(),
        "lighting": lighting.to_json(),
        "sensor": fx.to_json(),
    }
    output.with_suffix(".json").write_text(json.dumps(truth, indent=1) + "\n")
    return truth
