"""benchmarks/gridopolis_slit_room.py (session 15): the per-pixel ray-caster of a Gridopolis scene's truth geometry
agrees with the renderer's own pixel counts, and a site under the next level shows a pawn only through the slit."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from benchmarks.gridopolis_slit_room import site_room

FIX = Path(__file__).resolve().parents[2] / "fixtures" / "boards" / "gridopolis"


def test_ray_cast_pixels_follow_the_renders_pixel_counts() -> None:
    ours, theirs = [], []
    for name in ("scene_000", "scene_001", "scene_002"):
        doc = json.loads((FIX / f"{name}.json").read_text())
        for c in doc["cells"]:
            r = site_room(doc, (c["x"], c["y"], c["level"]))
            assert r is not None
            kind = {"pawn": "pe", "king": "pe", "blocker": "be"}[c["piece"]]
            ours.append(r[kind])
            theirs.append(c["pixels"])
    a, b = np.array(ours, float), np.array(theirs, float)
    assert len(a) >= 10
    assert float(np.corrcoef(a, b)[0, 1]) > 0.95
    big = b > 300  # the simplified marker is a little larger than the rendered rounded one, never much smaller
    assert np.all(a[big] > 0.7 * b[big]) and np.all(a[big] < 1.5 * b[big])


def test_an_empty_board_shows_no_slit() -> None:
    doc = json.loads((FIX / "scene_000.json").read_text())
    key = tuple(doc["state"]["pads"][0])
    doc["state"] = {**doc["state"], "pads": [list(key)], "posts": [], "blockers": [], "markers": []}
    r = site_room(doc, (int(key[0]), int(key[1]), int(key[2])))
    assert r is not None and r["pe"] == r["pe_alone"] > 0  # nothing above: all of a pawn there would be seen
