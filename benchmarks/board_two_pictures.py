"""Reading a board from two pictures of the same table (issue 9): does a second picture settle what the
first declines, and what does it cost?

``--second DIR`` holds another picture of each table of ``--first`` (same scene names), rendered with
``boardside fixtures render-boards --view 2 --root DIR`` (same pieces, light and camera device; the camera
and any hand elsewhere; SIMULATED photographs).  Each table is read from the first picture alone, the second
alone, and both together (``vision.board_pipeline.read_board``: per site, :func:`vision.board_pipeline.merge_readings`;
a site the two pictures read differently is reported ``pictures-disagree``), and scored as
``benchmarks/board_vision.py`` scores one picture: wrong cells, visible pieces declined (a declined site
counts only where a picture used shows a piece there), boards exact, legal tables called wrong.  For the
sites the two pictures read differently: how often the kept reading was the right one, and how often the site
was declined.  Also (session 18) the wrong cells the reader calls sure (``silent_wrong``, the judgement of
:mod:`vision.board_sureness`) and every site declined, pieces or not (``declined_sites``).  ``--fuse`` switches on
session 18's fusion of the pictures' readings (:class:`vision.board_pipeline.FuseConfig`: ``view``, ``sureness``,
``abstain``, comma-separated; ``off`` for none; default: the reader's default).  Last line: one JSON object.

    boardside fixtures render-boards --view 2 --root /tmp/second
    python benchmarks/board_two_pictures.py --second /tmp/second
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.board_vision import reading_label, truth_camera, truth_labels
from calibration.boards import BoardSpec
from calibration.camera import read_image
from engine.quirky import builtin_ids, builtin_scenario, parse_scenario
from vision.board_classify import DECLINED_KINDS
from vision.board_pipeline import FUSE, FuseConfig, read_board
from vision.board_reconstruct import ReconstructOptions
from vision.locate import ImageRejectedError

GAMES = ("bandera", "gridopolis", "quirky")
DECLINED = DECLINED_KINDS  # occluded, unseen, and (Quirky) the robot's own cell (session 15)


def _options(game: str, doc: dict[str, Any], spec: BoardSpec, root: Path) -> ReconstructOptions:
    if game != "quirky":
        return ReconstructOptions()
    ref = doc.get("scenario") or spec.name.split(":", 1)[1]
    return ReconstructOptions(scenario=builtin_scenario(ref) if ref in builtin_ids() else
                              parse_scenario((root / ref).read_text(encoding="utf-8"), ref))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--first", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "boards"))
    ap.add_argument("--second", required=True, help="the second pictures (render-boards --view 2 --root DIR)")
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--fuse", default=None, help="session 18's fusion switches: view,sureness,abstain or off "
                    "(default: the reader's default)")
    ap.add_argument("--modes", default="first,second,both", help="the readings to make (comma-separated)")
    args = ap.parse_args()
    fuse = FUSE if args.fuse is None else FuseConfig(**{k: True for k in args.fuse.split(",") if k and k != "off"})
    first, second = Path(args.first), Path(args.second)
    out: dict[str, Any] = {"simulated": "rendered photographs", "fuse": str(fuse), "per_game": {}}
    for game in args.games.split(","):
        modes = {m: {"scenes": 0, "rejected": 0, "cell_errors": 0, "declined_visible_pieces": 0, "boards_exact": 0,
                     "legal_tables_called_wrong": 0, "silent_wrong": 0, "declined_sites": 0}
                 for m in ("first", "second", "both")}
        disagree = {"sites": 0, "kept_right": 0, "declined": 0, "kept_wrong_other_right": 0, "both_wrong": 0}
        pairs = [(a, second / game / a.name) for a in sorted((first / game).glob("scene_*.json"))]
        pairs = [(a, b) for a, b in pairs if b.exists()]
        for sa, sb in pairs:
            da, db = json.loads(sa.read_text()), json.loads(sb.read_text())
            ia, ib = read_image(sa.with_suffix(".jpg")), read_image(sb.with_suffix(".jpg"))
            spec = BoardSpec.from_json(da["board"])
            opt = _options(game, da, spec, first)
            labels, hidden_a = truth_labels(da)
            _, hidden_b = truth_labels(db)
            runs = (("first", [(sa.name, ia)], hidden_a), ("second", [(sb.name, ib)], hidden_b),
                    ("both", [("first", ia), ("second", ib)], hidden_a & hidden_b))
            for mode, imgs, hidden in runs:
                if mode not in args.modes.split(","):
                    continue
                g = modes[mode]
                g["scenes"] += 1
                try:
                    res = read_board(imgs, game, spec=spec, camera=truth_camera(da), options=opt, fuse_config=fuse)
                except ImageRejectedError:
                    g["rejected"] += 1
                    g["cell_errors"] += len(labels)
                    continue
                wrong = 0
                doubts = res.doubts if len(res.doubts) == len(res.cells) else [None] * len(res.cells)
                for cr, dbt in zip(res.cells, doubts, strict=True):
                    key = cr.key if game == "gridopolis" else cr.key[:2]
                    want, got = labels.get(key, "empty"), reading_label(game, cr)
                    if got in DECLINED:
                        g["declined_sites"] += got != "robot"
                        if want != "empty" and key not in hidden:
                            g["declined_visible_pieces"] += 1
                            wrong += 1
                    elif got != want:
                        g["cell_errors"] += 1
                        g["silent_wrong"] += dbt is not None and dbt.sure
                        wrong += 1
                read = {cr.key if game == "gridopolis" else cr.key[:2] for cr in res.cells}
                missing = [k for k in labels if k not in read]  # pieces on pads no picture found
                g["cell_errors"] += len(missing)
                g["boards_exact"] += wrong + len(missing) == 0
                if not da.get("breaks_rules"):
                    g["legal_tables_called_wrong"] += not res.reconstruction.trusted
                if mode == "both" and len(res.images) == 2 and len(res.images[0].cells) == len(res.images[1].cells):
                    for x, y, kept in zip(res.images[0].cells, res.images[1].cells, res.cells, strict=True):
                        lx, ly = reading_label(game, x), reading_label(game, y)
                        if lx in DECLINED or ly in DECLINED or lx == ly:
                            continue
                        want = labels.get(x.key if game == "gridopolis" else x.key[:2], "empty")
                        disagree["sites"] += 1
                        lk = reading_label(game, kept)
                        disagree["kept_right" if lk == want else "declined" if lk in DECLINED else
                                 "kept_wrong_other_right" if want in (lx, ly) else "both_wrong"] += 1
        out["per_game"][game] = modes | {"pictures_disagree": disagree}
        print(game, json.dumps(out["per_game"][game]), flush=True)
    for mode in ("first", "second", "both"):
        out[mode] = {k: sum(g[mode][k] for g in out["per_game"].values()) for k in
                     ("scenes", "rejected", "cell_errors", "declined_visible_pieces", "boards_exact",
                      "legal_tables_called_wrong", "silent_wrong", "declined_sites")}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
