"""Board pose benchmark (issue 9, locate stage): for every rendered board scene (``scene_NNN.jpg`` +
``scene_NNN.json``, as under fixtures/boards/<game>/), runs :func:`vision.board_locate.locate_board`
and compares the pose with the scene's truth camera:

* markers: the printed markers the truth says are visible (``fiducials_visible``), how many of them
  were found, and markers found that the truth does not list (should be none);
* pose error: the board's four outer corners and its grid's cell corners projected with the pose
  found and with the truth camera, in pixels (median and largest over the grid points);
* rejections (with the reason) and the locate time (CPU, ``time.process_time``, median).

By default the intrinsics come from each scene's truth (a user with a calibration file);
``--self-calibrate`` estimates them from the markers.  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np

from benchmarks.board_vision import GAMES, truth_camera
from calibration.boards import BoardSpec
from calibration.camera import read_image
from vision.board_locate import locate_board
from vision.locate import ImageRejectedError


def grid_points(spec: BoardSpec) -> np.ndarray:
    """Every cell corner of the board's grid (z = 0), board mm."""
    xs = np.arange(spec.cols + 1) * spec.cell_mm
    ys = np.arange(spec.rows + 1) * spec.cell_mm
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel(), np.zeros(gx.size)])


def truth_project(doc: dict[str, Any], pts: np.ndarray) -> np.ndarray:
    c = doc["camera"]
    rvec, _ = cv2.Rodrigues(np.array(c["R"], np.float64))
    px, _ = cv2.projectPoints(pts.reshape(-1, 1, 3), rvec, np.array(c["t"], np.float64),
                              np.array(c["K"], np.float64), np.array(c["dist"], np.float64))
    return np.asarray(px, np.float64).reshape(-1, 2)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fixtures", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "boards"))
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--self-calibrate", action="store_true")
    ap.add_argument("--verbose", action="store_true", help="one line per scene")
    args = ap.parse_args()
    root = Path(args.fixtures)
    out: dict[str, Any] = {"intrinsics": "self-estimated" if args.self_calibrate else "calibration (scene truth)"}
    for game in [g for g in args.games.split(",") if g]:
        scenes = sorted((root / game).glob("scene_*.json"))
        if not scenes:
            continue
        visible = found = extra = rejected = 0
        med_err: list[float] = []
        max_err: list[float] = []
        cpu: list[float] = []
        for sj in scenes:
            doc = json.loads(sj.read_text())
            img = read_image(sj.with_suffix(".jpg"))
            spec = BoardSpec.from_json(doc["board"])
            cam = None if args.self_calibrate else truth_camera(doc)
            vis = set(doc.get("fiducials_visible", []))
            visible += len(vis)
            t0 = time.process_time()
            try:
                pose = locate_board(img, spec, cam, name=sj.stem)
            except ImageRejectedError as exc:
                cpu.append(time.process_time() - t0)
                rejected += 1
                print(f"{game} {sj.stem}: REJECTED ({len(vis)} visible): {exc}", file=sys.stderr)
                continue
            cpu.append(time.process_time() - t0)
            seen = set(pose.markers_seen) | set(pose.markers_dropped)
            found += len(seen & vis)
            extra += len(seen - vis)
            pts = grid_points(spec)
            tp = truth_project(doc, pts)
            h, w = img.shape[:2]
            inside = (tp[:, 0] >= 0) & (tp[:, 0] < w) & (tp[:, 1] >= 0) & (tp[:, 1] < h)
            err = np.linalg.norm(pose.project(pts)[inside] - tp[inside], axis=1)
            med_err.append(float(np.median(err)) if len(err) else 0.0)
            max_err.append(float(err.max()) if len(err) else 0.0)
            if args.verbose or max_err[-1] > 3.0:
                print(f"{game} {sj.stem}: markers {len(seen & vis)}/{len(vis)} (+{len(seen - vis)}), dropped "
                      f"{list(pose.markers_dropped)}, rms {pose.rms_px:.2f}, grid error median {med_err[-1]:.2f} "
                      f"max {max_err[-1]:.2f} px, blur {doc.get('sensor', {}).get('motion_blur_px')}, "
                      f"light {doc.get('light')}", file=sys.stderr)
        out[game] = {
            "scenes": len(scenes), "rejected": rejected, "markers_visible": visible, "markers_found": found,
            "markers_not_visible_found": extra,
            "grid_error_px_median": round(statistics.median(med_err), 2) if med_err else None,
            "grid_error_px_max_worst": round(max(max_err), 2) if max_err else None,
            "scenes_max_error_over_3px": sum(e > 3.0 for e in max_err),
            "scenes_max_error_over_8px": sum(e > 8.0 for e in max_err),
            "locate_cpu_ms_median": round(1000 * statistics.median(cpu), 1) if cpu else None,
        }
        print(game, json.dumps(out[game]), file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
