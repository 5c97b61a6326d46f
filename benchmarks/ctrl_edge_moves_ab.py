"""The free reading with ``free_rules.EDGE_MOVES`` off and on, scene by scene (issue 5; docs/vision.md, "Session 17:
blocks one cell off").

Each scene under each root is read twice in one process (switch off, then on; truth intrinsics, no history) and
compared with the truth as ``benchmarks/ctrl_vision.py`` counts it: state exact, every side exact, winner, trusted,
wrong sides, silent wrong sides, wrong cells, the sides reported uncertain, CPU seconds (``time.process_time``), and
the rule's ``edge-moved`` notes.  One JSON line per scene is appended to ``--out``; the last line printed is a
summary (off / on).

    python benchmarks/ctrl_edge_moves_ab.py --views five --out /tmp/ab5.jsonl --fixtures /tmp/held13/ctrl ...

SIMULATED data only (the renderer's truth).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.free_rules as free_rules
from benchmarks.ctrl_scenes import parse_views, scene_dirs
from benchmarks.ctrl_switch_ab import _figures
from benchmarks.ctrl_switch_ab import read_both as read_switch_both


def read_both(scene_dir: Path, views: tuple[str, ...]) -> dict[str, Any]:
    """One scene read with the rule off and on (``ctrl_switch_ab.read_both`` with ``EDGE_MOVES`` set to True): the
    figures of each, plus the rule's ``edge-moved`` notes (``error`` when the pictures are rejected)."""
    rec = read_switch_both(scene_dir, views, free_rules, "EDGE_MOVES", True)
    for key in ("off", "on"):
        if key in rec:
            rec[key]["moves"] = [p for p in rec[key]["problems"] if p.startswith("edge-moved@")]
    return rec


def summary(recs: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in recs if "on" in r]
    out: dict[str, Any] = {"readings": len(ok), "rejected": len(recs) - len(ok)}
    for k in ("off", "on"):
        out[k] = _figures([r[k] for r in ok])
    out["moves"] = sum(len(r["on"]["moves"]) for r in ok)
    out["readings_changed"] = sum(r["on"]["blocks"] != r["off"]["blocks"] for r in ok)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fixtures", nargs="+", required=True)
    ap.add_argument("--views", default="five")
    ap.add_argument("--out", required=True, help="append one JSON line per scene here")
    args = ap.parse_args()
    views = parse_views(args.views)
    recs: list[dict[str, Any]] = []
    with open(args.out, "a") as fh:
        for root in args.fixtures:
            for sc in scene_dirs(root):
                rec = read_both(sc, views)
                recs.append(rec)
                fh.write(json.dumps(rec) + "\n")
                fh.flush()
    print(json.dumps(summary(recs)))


if __name__ == "__main__":
    main()
