"""Live-overlay speed of ``boardside ctrl watch`` (issue 5, item 7: "live overlay >= 15 fps").

Builds SIMULATED hand-held videos at 1280x720 from the rendered fixture views
(``vision.simulated_video``: each view held 1 s at 10 fps with hand-held shake, joined by
transitions with motion blur, top first then round the mat) and times, per frame, what the
command does for a live picture: ``Watcher.feed`` (mat pose tracked from the previous frame,
steadiness, side, sharpness, capture) plus ``draw_overlay`` (lattice, side, "show ... next",
checklist).  Reading frames from a camera and putting them on screen are not included (no camera
or display here); decoding the Motion-JPEG file is timed separately.

Reported: overlay frames per second (frames / total time), the median and 95th-percentile frame
time, how many sides were captured right (against the view each held frame shows) and whether any
capture fell in a transition.  By default the camera intrinsics come from the fixture's truth (a
user with a calibration file); ``--self-calibrate`` lets the watcher estimate them.
``--low-views``: the walk also shows each side from low down after it (``top, px, px_low, py, ...``;
the ``*_low.jpg`` pictures from ``--low-fixtures``, default the same folder, e.g. renders made with
``boardside fixtures render ctrl --low-views``) and the watcher runs with ``low_views=True``: nine
captures expected per scene.  Frame times are wall-clock; the CPU time (``time.process_time``) median
is reported too (the machine is shared).  Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2

from boardside.fixtures_render.camera import truth_calibration
from calibration.camera import read_image
from calibration.mat import MatSpec
from vision.simulated_video import simulated_handheld_video, write_video
from vision.watch import WatchConfig, Watcher, draw_overlay

ORDER = ("top", "px", "py", "mx", "my")
WALK = ("top", "px", "px_low", "py", "py_low", "mx", "mx_low", "my", "my_low")


def _truth_side(d: Path, view: str) -> str:
    """The side a view shows: its truth file's, or (a low view) from its name: ``px_low`` -> ``+x low``."""
    if view.endswith("_low"):
        stem = view[:-4]
        return {"px": "+x", "mx": "-x", "py": "+y", "my": "-y"}[stem] + " low"
    return str(json.loads((d / f"{view}.json").read_text())["side"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--fixtures", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"))
    ap.add_argument("--scenes", default="scene_002,scene_003,scene_020",
                    help="comma-separated scene folders (default: three whose five views face five sides)")
    ap.add_argument("--self-calibrate", action="store_true")
    ap.add_argument("--low-views", action="store_true", help="also the four low views (ctrl watch --low-views)")
    ap.add_argument("--low-fixtures", default=None, help="folder with scene_NNN/*_low.jpg (default: --fixtures)")
    args = ap.parse_args()
    root = Path(args.fixtures)
    low_root = Path(args.low_fixtures) if args.low_fixtures else root
    views = WALK if args.low_views else ORDER
    times: list[float] = []
    cpu: list[float] = []
    decode: list[float] = []
    rows = []
    for name in args.scenes.split(","):
        d = root / name
        doc = json.loads((d / "scene.json").read_text())
        spec = MatSpec.from_json(doc["mat"])
        truth = {v: _truth_side(d, v) for v in views}
        cam = json.loads((d / "top.json").read_text())["camera"]
        calib = None if args.self_calibrate else truth_calibration(cam)
        stills = [(v, read_image((low_root / name if v.endswith("_low") else d) / f"{v}.jpg")) for v in views]
        video = simulated_handheld_video(stills, fps=10.0, lead_in_frames=3)
        h, w = video.frames[0].shape[:2]
        watcher = Watcher(spec, calib, WatchConfig.for_fps(video.fps, low_views=args.low_views))
        for frame in video.frames:
            t0, c0 = time.perf_counter(), time.process_time()
            status = watcher.feed(frame)
            draw_overlay(frame, status, watcher.config.steady_frames)
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        with tempfile.TemporaryDirectory() as tmp:
            path = write_video(Path(tmp) / "simulated.avi", video.frames, video.fps)
            cap = cv2.VideoCapture(str(path))
            while True:
                t0 = time.perf_counter()
                ok, _f = cap.read()
                if not ok:
                    break
                decode.append(time.perf_counter() - t0)
            cap.release()
        right = sum(1 for c in watcher.captures if video.labels[c.frame_index] is not None
                    and truth[str(video.labels[c.frame_index])] == c.side)
        in_transition = sum(1 for c in watcher.captures if video.labels[c.frame_index] is None)
        rows.append({"scene": name, "frames": len(video.frames), "size": f"{w}x{h}",
                     "captures": len(watcher.captures), "sides_right": right, "in_transition": in_transition,
                     "missing": watcher.missing})
        print(json.dumps(rows[-1]))
    ms = sorted(t * 1000 for t in times)
    figures = {
        "frames": len(times),
        "size": rows[0]["size"] if rows else None,
        "overlay_fps": round(len(times) / sum(times), 1),
        "frame_ms_median": round(statistics.median(ms), 2),
        "frame_ms_p95": round(ms[int(0.95 * (len(ms) - 1))], 2),
        "frame_ms_max": round(ms[-1], 2),
        "frame_cpu_ms_median": round(statistics.median(cpu) * 1000, 2),
        "mjpeg_decode_ms_median": round(statistics.median(decode) * 1000, 2) if decode else None,
        "scenes": len(rows),
        "sides_captured_right": sum(r["sides_right"] for r in rows),
        "sides_expected": len(views) * len(rows),
        "low_views": bool(args.low_views),
        "captures_in_transitions": sum(r["in_transition"] for r in rows),
        "calibration": "self (watcher)" if args.self_calibrate else "from truth intrinsics",
        "video": "SIMULATED hand-held video from rendered fixture views (10 fps)",
        "target_fps": 15,
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
