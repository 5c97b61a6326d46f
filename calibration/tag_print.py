"""The robot's printable tag sheet: the ArUco tag at true size with its white border, a cut line, an
arrow marking the robot's front, the mounting instructions and a scale bar (docs/robot_tracking.md)."""

from __future__ import annotations

import os
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from calibration.boards import BoardSpecError, RobotTag, render_robot_tag
from calibration.mat import PAPER_SIZES_MM
from calibration.printing import write_pdf

__all__ = ["render_tag_sheet", "write_tag_sheet"]

U8 = npt.NDArray[np.uint8]
MM_PER_INCH = 25.4


def _paper(paper: str) -> tuple[float, float]:
    for name, size in PAPER_SIZES_MM.items():
        if name.lower() == paper.strip().lower():
            w, h = size
            return (min(w, h), max(w, h))  # portrait
    raise BoardSpecError(f"unknown paper {paper!r} (expected one of {', '.join(PAPER_SIZES_MM)})")


def render_tag_sheet(tag: RobotTag, paper: str = "A4", dpi: float = 300.0) -> tuple[U8, tuple[float, float]]:
    """The page (BGR image, portrait) and its size in mm."""
    if not (50.0 <= dpi <= 1200.0):
        raise BoardSpecError(f"dpi must be between 50 and 1200, got {dpi!r}")
    w_mm, h_mm = _paper(paper)
    k = dpi / MM_PER_INCH
    page = np.full((round(h_mm * k), round(w_mm * k), 3), 255, np.uint8)
    n_px = round(tag.tag_mm * k)
    sticker = render_robot_tag(tag, px_per_mm=n_px / tag.tag_mm)  # RGB, white border included
    s_mm = sticker.shape[0] / k
    cx, cy = w_mm / 2, 30.0 + 15.0 + s_mm / 2  # the sticker's centre, mm from the top-left corner

    def px(x_mm: float, y_mm: float) -> tuple[int, int]:
        return round(x_mm * k), round(y_mm * k)

    x0, y0 = px(cx - s_mm / 2, cy - s_mm / 2)
    page[y0 : y0 + sticker.shape[0], x0 : x0 + sticker.shape[1]] = sticker[..., ::-1]
    # dashed cut line 3 mm outside the white border
    cut = s_mm / 2 + 3.0
    corners = [(cx - cut, cy - cut), (cx + cut, cy - cut), (cx + cut, cy + cut), (cx - cut, cy + cut)]
    thin = max(1, round(0.2 * k))
    for i in range(4):
        a, b = np.array(corners[i]), np.array(corners[(i + 1) % 4])
        length = float(np.linalg.norm(b - a))
        steps = int(length // 2.0)
        for j in range(0, steps, 2):
            p, q = a + (b - a) * j / steps, a + (b - a) * min(j + 1, steps) / steps
            cv2.line(page, px(*p), px(*q), (150, 150, 150), thin, cv2.LINE_AA)
    # the front arrow above the tag
    top = cy - cut - 2.0
    cv2.arrowedLine(page, px(cx, top - 0.5), px(cx, top - 13.0), (0, 0, 0), max(1, round(0.6 * k)),
                    cv2.LINE_AA, tipLength=0.35)

    def text(s: str, x_mm: float, y_mm: float, cap_mm: float, centre: bool = False) -> None:
        scale = cap_mm * k / 22.0
        thick = max(1, round(scale * 1.6))
        (tw, _), _ = cv2.getTextSize(s, cv2.FONT_HERSHEY_SIMPLEX, scale, thick)
        x = px(x_mm, y_mm)[0] - (tw // 2 if centre else 0)
        cv2.putText(page, s, (x, px(x_mm, y_mm)[1]), cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), thick,
                    cv2.LINE_AA)

    text("FRONT (the robot's heading)", cx, top - 15.0, 3.0, centre=True)
    y = cy + cut + 12.0
    lines = [
        f"Boardside robot tag: ArUco {tag.dictionary} id {tag.id}, black square {tag.tag_mm:g} mm.",
        "Cut on the dashed line. Glue it FLAT on top of the robot, centred over the point the robot",
        "turns about, the arrow pointing the way the robot drives forward.",
        f"Measure the height of the tag above the board: {tag.height_mm:g} mm expected",
        "(otherwise pass --tag-height-mm to `boardside quirky run ... --camera`).",
        "Print at 100 % (actual size): the black square and the bar below must measure as printed.",
    ]
    for line in lines:
        text(line, 20.0, y, 2.6)
        y += 6.0
    # scale bar: 50 mm
    y += 4.0
    cv2.rectangle(page, px(20.0, y), px(70.0, y + 3.0), (0, 0, 0), -1)
    text("50 mm", 74.0, y + 3.0, 2.6)
    return page, (w_mm, h_mm)


def write_tag_sheet(path: str | os.PathLike[str], tag: RobotTag, paper: str = "A4", dpi: float = 300.0) -> Path:
    """Write the tag sheet as a true-scale PDF (or PNG when ``path`` ends in .png)."""
    p = Path(path)
    page, size = render_tag_sheet(tag, paper, dpi)
    if p.suffix.lower() == ".png":
        from calibration.printing import write_png

        write_png(p, page, dpi)
    elif p.suffix.lower() == ".pdf":
        write_pdf(p, page, size, f"Boardside robot tag {tag.id}", dpi)
    else:
        raise BoardSpecError(f"tag sheet must be .pdf or .png, got {str(path)!r}")
    return p
