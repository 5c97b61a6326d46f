"""Annotated pictures: what the pose and the colour model saw, for a person to check at a glance."""

from __future__ import annotations

from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    from calibration.colour import ColourModel
    from calibration.pose import MatPose, MatView

__all__ = ["draw_colours", "draw_pose"]

U8 = npt.NDArray[np.uint8]


def _pt(p: npt.NDArray[np.float64]) -> tuple[int, int]:
    return (round(float(p[0])), round(float(p[1])))


def _text(
    img: U8,
    text: str,
    org: tuple[int, int],
    scale: float = 0.6,
    colour: tuple[int, int, int] = (255, 255, 255),
) -> None:
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 3, cv2.LINE_AA)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 1, cv2.LINE_AA)


def draw_pose(image: U8, pose: MatPose, view: MatView | None = None) -> U8:
    """The image with the corners used, the Central Cube's wire frame, world axes, side names and
    the quality figure drawn on it."""
    out: U8 = np.asarray(
        image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR), np.uint8
    )
    spec = pose.spec
    s = spec.block_mm
    if view is not None:
        for p in view.corner_px:
            cv2.circle(out, _pt(p), 3, (0, 220, 0), -1, cv2.LINE_AA)
        for quad in view.marker_px:
            cv2.polylines(out, [np.round(quad).astype(np.int32)], True, (255, 160, 0), 1, cv2.LINE_AA)
    # Central Cube: 3 x 3 x 3 cells
    c = 3 * s
    cube = np.array([[x, y, z] for z in (0, c) for y in (0, c) for x in (0, c)], np.float64)
    px = pose.project(cube)
    edges = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)]
    for a, b in edges:
        cv2.line(out, _pt(px[a]), _pt(px[b]), (0, 255, 255), 2, cv2.LINE_AA)
    # axes from the origin, one block long
    o = pose.project(np.array([[0, 0, 0], [2 * s, 0, 0], [0, 2 * s, 0], [0, 0, 2 * s]], np.float64))
    axes: list[tuple[int, tuple[int, int, int]]] = [(1, (0, 0, 255)), (2, (0, 200, 0)), (3, (255, 0, 0))]
    for axis, colour in axes:
        cv2.arrowedLine(out, _pt(o[0]), _pt(o[axis]), colour, 2, cv2.LINE_AA, tipLength=0.15)
    for side, (x, y) in spec.side_label_positions().items():
        p = pose.project([[x, y, 0]])[0]
        _text(out, side, _pt(p), 0.8, (0, 255, 255))
    ang = pose.angles_deg()
    lines = [
        f"pose {pose.quality}: rms {pose.rms_px:.2f} px, corners {pose.corners_seen}/{pose.corners_total}, "
        f"markers {pose.markers_seen}/{pose.markers_total}",
        f"camera from side {pose.facing_side()}: elevation {ang['elevation']:.1f} deg, "
        f"distance {ang['distance_mm']:.0f} mm",
    ]
    for i, line in enumerate(lines):
        _text(out, line, (10, 24 + 22 * i))
    return np.asarray(out, np.uint8)


_CLASS_BGR = {
    "blue": (200, 100, 0),
    "pink": (170, 90, 240),
    "yellow": (0, 210, 255),
    "green": (60, 170, 0),
    "black": (60, 60, 60),
    "white": (245, 245, 245),
    "print": (0, 0, 0),
    "unknown": (255, 0, 255),
}


def draw_colours(image: U8, model: ColourModel, step: int = 4) -> U8:
    """A class map of ``image`` (every ``step``-th pixel, scaled back up) beside the image."""
    small = image[::step, ::step]
    labels = model.classify_bgr(small.reshape(-1, 3)).reshape(small.shape[:2])
    cmap = np.zeros_like(small)
    for name, bgr in _CLASS_BGR.items():
        cmap[labels == name] = bgr
    big = cv2.resize(cmap, (image.shape[1], image.shape[0]), interpolation=cv2.INTER_NEAREST)
    out = np.hstack([image, big])
    for i, (name, bgr) in enumerate(_CLASS_BGR.items()):
        y = 20 + 18 * i
        cv2.rectangle(out, (image.shape[1] + 8, y - 12), (image.shape[1] + 22, y + 2), bgr, -1)
        _text(out, name, (image.shape[1] + 28, y), 0.5)
    return np.asarray(out, np.uint8)
