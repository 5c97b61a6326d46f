"""Benchmark of the fixture renderer: time and CPU time for one 1280x720 CTRL view at the recorded
settings, per stage, plus the recorded sets' per-view wall times.  Last line: one JSON object.

    python benchmarks/fixtures_render.py [--spp 6] [--supersample 0.75]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

ROOT = Path(__file__).resolve().parents[1] / "fixtures"


def recorded_times() -> dict[str, float]:
    out: dict[str, float] = {}
    for manifest in sorted(ROOT.glob("*/manifest.json")):
        m = json.loads(manifest.read_text())
        t = [v["render_seconds"] for s in m["scenes"] for v in s["views"] if "render_seconds" in v]
        if t:
            out[f"{m['set']}_median_view_wall_s"] = round(statistics.median(t), 2)
            out[f"{m['set']}_views"] = len(t)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--spp", type=int, default=6)
    ap.add_argument("--supersample", type=float, default=0.75)
    args = ap.parse_args()
    from boardside.fixtures_render.mitsuba_backend import renderer_available

    figures: dict[str, object] = {"benchmark": "fixtures_render", **recorded_times()}
    ok, why = renderer_available()
    if not ok:
        figures["skipped"] = why
        print(json.dumps(figures))
        return
    import numpy as np

    from boardside.fixtures_render import sets as F
    from boardside.fixtures_render.mitsuba_backend import render
    from boardside.fixtures_render.sensor import SensorEffects, develop, encode_jpeg

    sdef = F.SETS["ctrl"]
    plan = F.plan_scene(sdef, 7, F.recorded_state(ROOT, sdef, 7))
    mat = F.mat_texture()
    t0, c0 = time.perf_counter(), time.process_time()
    spec = F.build_spec(plan, mat)
    centre, radius = F.battlefield_extent(plan.state, 22.0)
    cam, _pose = F.view_pose(plan.device, "+x", centre, radius, np.random.default_rng(0))
    t1, c1 = time.perf_counter(), time.process_time()
    res = render(spec, cam, spp=args.spp, seed=1, supersample=args.supersample)
    t2, c2 = time.perf_counter(), time.process_time()
    rng = np.random.default_rng(0)
    fx = SensorEffects.sample(rng, False)
    jpeg = encode_jpeg(develop(res.linear, fx, rng), fx.jpeg_quality)
    t3, c3 = time.perf_counter(), time.process_time()
    figures.update({
        "spp": args.spp,
        "supersample": args.supersample,
        "source_px": [res.source.width, res.source.height],
        "scene_build_wall_s": round(t1 - t0, 2),
        "render_wall_s": round(t2 - t1, 2),
        "render_cpu_s": round(c2 - c1, 2),
        "sensor_jpeg_wall_s": round(t3 - t2, 2),
        "total_wall_s": round(t3 - t0, 2),
        "total_cpu_s": round(c3 - c0, 2),
        "jpeg_kb": round(len(jpeg) / 1024, 1),
    })
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
