"""Captura la Bandera: how well a thin line above a two-cube stack tells a royal tower from a plain one
(docs/boards_vision.md, "Session 17: edge-on banners").  A measurement, not part of the reader.

A royal tower is two cubes with the flag on top (docs/rules/bandera.md, section 3): a grey pole with a thin
banner.  Seen from the side the pole, and a banner seen edge-on, are thin vertical lines: their picture is
the projection of a vertical segment standing on the tower's top.  Where on the top the pole stands is not
known, so every place on a grid over the top square is tried; at each one the segment from the top up to
the banner's height is projected and, at each height, the picture's CIELAB there is compared with the
picture a little to either side (``width_mm``, horizontally across the line of sight): the smaller of the
two distances is the ridge response (a wide body or an edge gives none: one side matches the centre).  A
place's score is a low percentile of the ridge along the segment (most of the segment must be a line); the
stack's score is the best place's.

usage: python benchmarks/bandera_pole_lines.py --fixtures DIR [--fixtures DIR ...]
(each DIR laid out as fixtures/boards: ``DIR/bandera/scene_NNN.{jpg,json}``).  Reads every scene (camera from
the scene truth), scores every stack that is two cubes in the truth or in the reading, and prints the AUC
of royal towers against plain two-cube towers, over all of them and over the royal towers the reader does not
read as royal; the last line is a JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.board_locate import BoardPose

F64 = npt.NDArray[np.float64]
F32 = npt.NDArray[np.float32]


@dataclass(frozen=True)
class PoleLine:
    """The best thin vertical line found over a stack's top: its score (CIELAB distance) and place (mm from
    the top's centre)."""

    score: float
    at_mm: tuple[float, float]


def lab_image(bgr: npt.NDArray[np.uint8]) -> F32:
    """A picture (BGR, 8 bit) as CIELAB (L 0-100), unblurred: a pole is 2-5 pixels wide."""
    if bgr.ndim != 3 or bgr.shape[2] != 3 or bgr.dtype != np.uint8:
        raise ValueError(f"expected an 8-bit BGR picture, got shape {bgr.shape!r} dtype {bgr.dtype!r}")
    return np.asarray(cv2.cvtColor(bgr.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB), np.float32)


def pole_line(lab: F32, pose: BoardPose, x_mm: float, y_mm: float, top_mm: float, *, half_mm: float = 10.0,
              step_mm: float = 1.0, heights_mm: tuple[float, float] = (2.0, 27.0), width_mm: float = 2.0,
              percentile: float = 30.0) -> PoleLine:
    """The thin-line score of the stack whose top's centre is at (``x_mm``, ``y_mm``, ``top_mm``): vertical
    segments from ``heights_mm[0]`` to ``heights_mm[1]`` above the top, standing on a grid (``step_mm``) over
    the top square (``half_mm`` either way)."""
    if half_mm < 0 or step_mm <= 0 or width_mm <= 0 or not heights_mm[0] < heights_mm[1]:
        raise ValueError(f"bad line search: half_mm={half_mm!r} step_mm={step_mm!r} width_mm={width_mm!r} "
                         f"heights_mm={heights_mm!r}")
    cam = pose.camera_position
    d = np.array([x_mm - cam[0], y_mm - cam[1]], np.float64)
    n = float(np.hypot(d[0], d[1]))
    perp = np.array([-d[1], d[0]]) / n if n > 1e-6 else np.array([1.0, 0.0])
    g = np.arange(-half_mm, half_mm + step_mm / 2, step_mm)
    qx, qy = (m.ravel() for m in np.meshgrid(g, g))
    zs = top_mm + np.arange(heights_mm[0], heights_mm[1] + 0.5, 1.0)
    n_q, n_h = len(qx), len(zs)
    pts = np.stack([np.repeat(x_mm + qx, n_h), np.repeat(y_mm + qy, n_h), np.tile(zs, n_q)], axis=1)
    samples = []
    for off in (0.0, width_mm, -width_mm):
        p = pts.copy()
        p[:, 0] += off * perp[0]
        p[:, 1] += off * perp[1]
        uv = pose.project(p).astype(np.float32).reshape(n_q, n_h, 2)
        samples.append(cv2.remap(lab, uv[..., 0], uv[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
    centre, left, right = samples
    ridge = np.minimum(np.linalg.norm(centre - left, axis=-1), np.linalg.norm(centre - right, axis=-1))
    per_place = np.percentile(ridge, percentile, axis=1)
    j = int(per_place.argmax())
    return PoleLine(float(per_place[j]), (float(qx[j]), float(qy[j])))


def auc(pos: list[float], neg: list[float]) -> float:
    """The chance that a positive scores above a negative (ties half)."""
    if not pos or not neg:
        return float("nan")
    a, b = np.asarray(pos)[:, None], np.asarray(neg)[None, :]
    return float((a > b).mean() + 0.5 * (a == b).mean())


def _scene(path: Path) -> dict[str, Any]:
    from benchmarks.board_vision import reading_label, truth_camera, truth_labels
    from calibration.boards import BoardSpec
    from calibration.camera import read_image
    from vision.board_pipeline import read_board, sites_for
    from vision.board_reconstruct import ReconstructOptions
    from vision.locate import ImageRejectedError

    doc = json.loads(path.read_text())
    img = read_image(str(path.with_suffix(".jpg")))
    spec = BoardSpec.from_json(doc["board"])
    labels, _hidden = truth_labels(doc)
    try:
        res = read_board([("s", img)], "bandera", spec=spec, camera=truth_camera(doc), options=ReconstructOptions())
    except ImageRejectedError as e:
        return {"path": str(path), "rejected": str(e)}
    got = {tuple(int(v) for v in c.key[:2]): reading_label("bandera", c) for c in res.cells}
    pose = res.images[0].pose
    t0 = time.process_time()
    lab = lab_image(img)
    stacks = []
    for s in sites_for(spec)[0]:
        k = (int(s.key[0]), int(s.key[1]))
        w, g = labels.get(k, "empty"), got.get(k, "empty")
        if not (w.startswith(("royal", "tower2")) or g.startswith(("royal", "tower2"))):
            continue
        line = pole_line(lab, pose, s.x_mm, s.y_mm, s.floor_mm + 44.0)
        stacks.append({"k": list(k), "want": w, "got": g, "score": line.score, "at": list(line.at_mm)})
    cpu = time.process_time() - t0
    return {"path": str(path), "stacks": stacks, "cpu": cpu}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", action="append", required=True, help="a folder laid out as fixtures/boards")
    ap.add_argument("--save", help="write every stack's score here (JSON)")
    args = ap.parse_args(argv)
    scenes = []
    for d in args.fixtures:
        paths = sorted((Path(d) / "bandera").glob("scene_*.json"))
        if not paths:
            raise SystemExit(f"no Bandera scenes under {d!r}")
        scenes += [_scene(p) for p in paths]
    stacks = [s for r in scenes for s in r.get("stacks", [])]
    royal = [s["score"] for s in stacks if s["want"].startswith("royal")]
    plain = [s["score"] for s in stacks if s["want"].startswith("tower2")]
    missed = [s["score"] for s in stacks if s["want"].startswith("royal") and not s["got"].startswith("royal")]
    cpu = [r["cpu"] for r in scenes if "cpu" in r]
    out = {"scenes": len(scenes), "royal": len(royal), "plain": len(plain), "royal_missed": len(missed),
           "auc": round(auc(royal, plain), 3), "auc_missed": round(auc(missed, plain), 3),
           "royal_median": round(float(np.median(royal)), 2) if royal else None,
           "plain_median": round(float(np.median(plain)), 2) if plain else None,
           "cpu_ms_per_scene_median": round(1000 * float(np.median(cpu)), 1) if cpu else None}
    print(f"royal towers {len(royal)}, plain two-cube towers {len(plain)}: AUC {out['auc']}; "
          f"royal towers not read royal ({len(missed)}) against plain ones: AUC {out['auc_missed']}")
    if args.save:
        Path(args.save).write_text(json.dumps(scenes))
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
