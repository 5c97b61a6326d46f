"""Switching the CTRL reading's special-case rules off, one at a time, on many scenes (issue 5; docs/vision.md,
"Session 11: the few-case rules measured on every set").

For every scene under each ``--sets`` folder (``scene_*`` with a ``scene.json``, the layout of fixtures/ctrl), and
for each mode (``free``; ``one``: the state one turn back; ``round``: a round back, as
``benchmarks/ctrl_vision.py --previous [--turns-back round]``, turns not given), reads the pictures with the code
as it is (``base``) and once more with each rule switched off (``VARIANTS``: module constants patched for that
reading only), and writes one JSON line per reading: the figures of ``ctrl_vision.py`` (state exact, sides
exact, trusted, wrong and silently wrong sides, ...) and a digest of what was read (blocks, flags, problems,
sides reported uncertain) so that readings that changed can be listed.

The reconstruction (classify + trace + block search) does not depend on any of the rules measured; it is
computed once per scene and mode and deep-copied for each variant (``--no-cache``: recomputed every time).  A
rule listed for one mode only is run in that mode only (``--variants`` picks some).

    python benchmarks/ctrl_ablate.py --sets fixtures/ctrl,/tmp/held/ctrl --modes free --out /tmp/a.jsonl
    python benchmarks/ctrl_ablate.py --summary /tmp/a.jsonl [/tmp/b.jsonl ...]

``--follow DIR`` follows each game under DIR (``benchmarks/ctrl_follow.py``'s player, flags deferred as ``follow
turn`` does) with each rule of the history modes switched off (and ``rivals_agree``, which only following uses),
turns known (``--any-turns``: not known); one JSON line per game and variant.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import importlib
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import vision.pipeline as pipeline_mod
from benchmarks.ctrl_scenes import compare_reading, load_scene, scene_dirs
from engine.ctrl import State
from engine.ctrl.record import turns_back_chain

Patch = tuple[str, str, Any]  # module, attribute, value while the rule is off

# rule -> (modes it acts in, the patches that switch it off)
VARIANTS: dict[str, tuple[tuple[str, ...], tuple[Patch, ...]]] = {
    # free reading (vision/free_rules.py, vision/opening.py)
    "drop_pale_mat_blocks": (("free",), (("vision.free_rules", "DROP_PALE_MAT_BLOCKS", False),)),
    "pale_free_rules": (("free",), (("vision.pipeline", "PALE_FREE_RULES", False),)),
    "pale_free_flags": (("free",), (("vision.pipeline", "PALE_FREE_FLAGS", False),)),
    "lower_blocks": (("free",), (("vision.free_rules", "LOWER_BLOCKS", False),)),
    "free_same_cell_pole_moves": (("free",), (("vision.pipeline", "FREE_SAME_CELL_POLE_MOVES", False),)),
    "check_ground": (("free",), (("vision.opening", "CHECK_GROUND", False),)),
    "hidden_move_doubts": (("free",), (("vision.free_rules", "HIDDEN_MOVE_NEIGHBOURS", ""),)),
    "depth_tie_doubts": (("free",), (("vision.free_rules", "DEPTH_TIE_RAYS", 0),)),
    "fine_blocks": (("free",), (("vision.fine_rays", "FINE_BLOCKS", False),)),
    "one_picture_block_check": (("free",), (("vision.pipeline", "ONE_PICTURE_BLOCK_CHECK", False),)),
    # both
    "pole_overrules": (("free", "one", "round"), (("vision.pipeline", "POLE_OVERRULES", False),)),
    "same_cell_pole_decides": (("one", "round"), (("vision.flag_margin", "SAME_CELL_POLE_DECIDES", False),)),
    # with history (vision/pipeline.py, vision/turn_check.py)
    "faint_turn_check": (("one", "round"), (("vision.pipeline", "FAINT_TURN_CHECK", False),)),
    "faint_turn_cap_40": (("one", "round"), (("vision.turn_check", "FAINT_TURN_MAX_CHROMA", float("inf")),)),
    "not_legal_pale_chroma": (("one", "round"), (("vision.pipeline", "NOT_LEGAL_PALE_CHROMA", 0.0),)),
    "history_flag_keep_off": (("one", "round"), (("vision.pipeline", "HISTORY_FLAG_KEEP_OFF", False),)),
    "weak_tail_sides": (("one", "round"), (("vision.pipeline", "WEAK_TAIL_SIDES", False),)),
    "weak_tie_break": (("one", "round"), (("vision.pipeline", "WEAK_TIE_BREAK", False),)),
    "shadow_only_flag_check": (("one", "round"), (("vision.pipeline", "SHADOW_ONLY_FLAG_CHECK", False),)),
    "ground_flag_rays_20": (("one", "round"), (("vision.pipeline", "HISTORY_MIN_GROUND_FLAG_RAYS", 0),)),
    "same_cell_pole_moves": (("one", "round"), (("vision.pipeline", "SAME_CELL_POLE_MOVES", False),)),
    "no_turn_check": (("one", "round"), (("vision.pipeline", "NO_TURN_CHECK", False),)),
    "one_picture_turn": (("one", "round"), (("vision.pipeline", "ONE_PICTURE_TURN_GAIN", 0),)),
    # following a game only (vision/flag_recheck.py)
    "rivals_agree": (("follow",), (("vision.flag_recheck", "RIVALS_AGREE", False),)),
}


@contextmanager
def patched(patches: tuple[Patch, ...]) -> Iterator[None]:
    """The module constants set for the duration of the block, restored after."""
    saved = []
    for mod_name, attr, value in patches:
        mod = importlib.import_module(mod_name)
        if not hasattr(mod, attr):
            raise AttributeError(f"{mod_name} has no switch {attr!r}")
        saved.append((mod, attr, getattr(mod, attr)))
        setattr(mod, attr, value)
    try:
        yield
    finally:
        for mod, attr, value in reversed(saved):
            setattr(mod, attr, value)


_CACHE: dict[str, Any] = {}
_reconstruct = getattr(pipeline_mod, "reconstruct")  # noqa: B009


def _evidence_key(evidence: Any, cfg: Any) -> str:
    h = hashlib.blake2b(digest_size=16)
    h.update(repr(cfg).encode())
    for e in evidence:
        for arr in (e.labels, e.weak, e.saturation):  # every 4th pixel: the key only tells one scene's inputs apart
            h.update(b"-" if arr is None else arr[::4, ::4].tobytes())
        cam = e.camera
        for arr in (cam.K, cam.dist, cam.rvec, cam.tvec):
            h.update(arr.tobytes())
    return h.hexdigest()


def _cached_reconstruct(evidence: Any, cfg: Any) -> Any:
    """``vision.reconstruct.reconstruct``, remembered by its input (the pipeline changes what it returns)."""
    key = _evidence_key(evidence, cfg)
    if key not in _CACHE:
        _CACHE[key] = _reconstruct(evidence, cfg)
    return copy.deepcopy(_CACHE[key])


_locate = getattr(pipeline_mod, "locate")  # noqa: B009


def _cached_locate(grey: Any, name: str, spec: Any, camera: Any) -> Any:
    """``vision.locate.locate``, remembered by the picture (a grey image of one scene)."""
    key = "locate:" + name + hashlib.blake2b(grey[::4, ::4].tobytes(), digest_size=16).hexdigest()
    if key not in _CACHE:
        _CACHE[key] = _locate(grey, name, spec, camera)
    return _CACHE[key]  # the pose is not changed by the pipeline


def _digest(res: Any) -> str:
    st = res.state
    doc = {"blocks": sorted((list(c), v) for c, v in st.blocks.items()), "flags": sorted(
        (k, str(v)) for k, v in st.flags.items()), "problems": sorted(
        f"{p.code}|{p.where}|{p.severity}" for p in res.problems), "uncertain": sorted(res.uncertain_sides)}
    return hashlib.blake2b(json.dumps(doc).encode(), digest_size=8).hexdigest()


def _row(truth: State, res: Any) -> dict[str, Any]:
    cmp = compare_reading(res.state, truth, res.uncertain_sides)
    return {"wrong_cells": len(cmp.wrong_cells), "state_exact": cmp.state_exact, "sides_exact": cmp.sides_exact,
            "flags_right": len(truth.colors) - len(cmp.flags_wrong),
            "winner_right": cmp.winner_right, "trusted": res.trusted,
            "wrong_sides": len(cmp.wrong_sides), "silent": len(cmp.silent_sides),
            "flagged_sides": len(res.uncertain_sides), "digest": _digest(res)}


def run(args: argparse.Namespace) -> None:
    from vision.pipeline import score_images
    if not args.no_cache:
        setattr(pipeline_mod, "reconstruct", _cached_reconstruct)  # noqa: B010 - measuring, on purpose
        setattr(pipeline_mod, "locate", _cached_locate)  # noqa: B010
    names = [v for v in (args.variants.split(",") if args.variants else VARIANTS) if v]
    for v in names:
        if v not in VARIANTS:
            sys.exit(f"unknown variant {v!r}; known: {', '.join(VARIANTS)}")
    modes = args.modes.split(",")
    done: set[tuple[str, str, str, str]] = set()
    out = Path(args.out)
    if out.exists():  # resume
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["set"], r["scene"], r["mode"], r["variant"]))
    with out.open("a") as fh:
        for root in args.sets.split(","):
            scenes = scene_dirs(root)
            for sc in scenes:
                todo = [(m, v) for m in modes for v in ["base", *names]
                        if (v == "base" or m in VARIANTS[v][0]) and (root, sc.name, m, v) not in done]
                if not todo:
                    continue
                scene = load_scene(sc)
                _CACHE.clear()
                for mode, variant in todo:
                    prev = None
                    if mode != "free":
                        back = len(scene.truth.colors) if mode == "round" else 1
                        chain = turns_back_chain(scene.truth, back)
                        prev = None if chain[-1] is scene.truth else chain[-1]
                    patches = () if variant == "base" else VARIANTS[variant][1]
                    try:
                        with patched(patches):
                            res = score_images(scene.pics, scene.spec, scene.camera, prev)
                        row = _row(scene.truth, res)
                    except Exception as exc:  # a rejected scene counts as wrong
                        row = {"error": f"{type(exc).__name__}: {exc}"[:200]}
                    row = {"set": root, "scene": sc.name, "mode": mode, "variant": variant, **row}
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()


def follow(args: argparse.Namespace) -> None:
    from benchmarks.ctrl_follow import follow_game
    setattr(pipeline_mod, "reconstruct", _cached_reconstruct)  # noqa: B010 - measuring, on purpose
    setattr(pipeline_mod, "locate", _cached_locate)  # noqa: B010
    names = [v for v in (args.variants.split(",") if args.variants else VARIANTS) if v]
    names = [v for v in names if {"one", "round", "follow"} & set(VARIANTS[v][0])]
    out = Path(args.out)
    done = {(r["game"], r["known"], r["variant"]) for r in map(json.loads, out.read_text().splitlines())} \
        if out.exists() else set()
    games = sorted(d for d in Path(args.follow).iterdir() if (d / "game.json").exists())
    with out.open("a") as fh:
        for g in games:
            _CACHE.clear()
            for known in [not args.any_turns]:
                for variant in ["base", *names]:
                    if (g.name, known, variant) in done:
                        continue
                    with patched(() if variant == "base" else VARIANTS[variant][1]):
                        r = follow_game(g, known, "all", False)
                    later = [x for x in r["readings"] if x["turns"] > 0]
                    row = {"game": g.name, "known": known, "variant": variant, "readings": len(later),
                           "trusted": sum(x["trusted"] for x in later),
                           "trusted_recorded_wrong": sum(x["trusted"] and x["recorded_wrong_here"] for x in later),
                           "read_right": sum(x["right"] for x in later),
                           "typed": sum(x["typed"] for x in later),
                           "questions": sum(x.get("questions", 0) for x in later),
                           "positions_recorded_wrong": len(r["positions_recorded_wrong"]),
                           "final_sheet_right": int(bool(r["final_sheet_right"])),
                           "per_reading": [f"{int(x['trusted'])}{int(x['right'])}{x.get('questions', 0)}"
                                           for x in later]}
                    fh.write(json.dumps(row) + "\n")
                    fh.flush()
            _CACHE.clear()


FFIGS = ("trusted", "trusted_recorded_wrong", "read_right", "typed", "questions", "positions_recorded_wrong",
         "final_sheet_right")


def follow_summary(rows: list[dict[str, Any]]) -> None:
    base = {(r["game"], r["known"]): r for r in rows if r["variant"] == "base"}
    for known in (True, False):
        b = [r for r in base.values() if r["known"] == known]
        if not b:
            continue
        tag = "follow/known" if known else "follow/any"
        print(f"base/{tag}", json.dumps({"readings": sum(r["readings"] for r in b),
                                          **{k: sum(r[k] for r in b) for k in FFIGS}}))
        for v in sorted({r["variant"] for r in rows} - {"base"}):
            vr = [r for r in rows if r["variant"] == v and r["known"] == known and (r["game"], known) in base]
            if not vr:
                continue
            diff = {k: sum(r[k] for r in vr) - sum(base[(r["game"], known)][k] for r in vr) for k in FFIGS}
            changed = [f"{r['game']}/{i}" for r in vr for i, (a, c) in enumerate(
                zip(r["per_reading"], base[(r["game"], known)]["per_reading"], strict=False)) if a != c]
            print(f"{v}/{tag}", json.dumps({"games": len(vr), "off_minus_on": {k: d for k, d in diff.items() if d},
                                            "changed_readings": changed}))


FIGS = ("state_exact", "sides_exact", "winner_right", "trusted", "trusted_wrong", "wrong_sides", "silent",
        "wrong_cells", "flags_right", "flagged_sides")


def _figures(rows: list[dict[str, Any]]) -> dict[str, int]:
    f = dict.fromkeys(FIGS, 0)
    for r in rows:
        if "error" in r:
            continue
        for k in FIGS:
            if k == "trusted_wrong":
                f[k] += int(r["trusted"] and not r["sides_exact"])
            else:
                f[k] += int(r[k])
    return f


def summary(files: list[str]) -> None:
    rows = [json.loads(line) for fn in files for line in Path(fn).read_text().splitlines() if line.strip()]
    follow_summary([r for r in rows if "game" in r])
    rows = [r for r in rows if "game" not in r]
    base = {(r["set"], r["scene"], r["mode"]): r for r in rows if r["variant"] == "base"}
    variants = sorted({r["variant"] for r in rows} - {"base"})
    out: dict[str, Any] = {}
    for mode in ("free", "one", "round"):
        mrows = [r for r in base.values() if r["mode"] == mode]
        if mrows:
            out[f"base/{mode}"] = {"readings": len(mrows), **_figures(mrows)}
    for v in variants:
        for mode in ("free", "one", "round"):
            vrows = [r for r in rows if r["variant"] == v and r["mode"] == mode]
            if not vrows:
                continue
            brows = [base[(r["set"], r["scene"], mode)] for r in vrows if (r["set"], r["scene"], mode) in base]
            fb, fv = _figures(brows), _figures(vrows)
            changed = [f"{Path(r['set']).parent.name}/{Path(r['set']).name}/{r['scene']}" for r in vrows
                       if (r["set"], r["scene"], mode) in base
                       and r.get("digest") != base[(r["set"], r["scene"], mode)].get("digest")]
            out[f"{v}/{mode}"] = {"readings": len(vrows), "changed": len(changed),
                                  "off_minus_on": {k: fv[k] - fb[k] for k in FIGS if fv[k] != fb[k]},
                                  "changed_readings": changed}
    for k, v in out.items():
        print(k, json.dumps(v))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=str(Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"),
                    help="comma-separated folders of scenes")
    ap.add_argument("--modes", default="free,one,round")
    ap.add_argument("--variants", default="", help="comma-separated rules to switch off (default: all)")
    ap.add_argument("--out", help="JSON lines written here (appended; readings already there are skipped)")
    ap.add_argument("--no-cache", action="store_true", help="reconstruct again for every variant")
    ap.add_argument("--summary", nargs="*", help="summarise these JSON-lines files instead of reading")
    ap.add_argument("--follow", help="follow the games under this folder instead (see above)")
    ap.add_argument("--any-turns", action="store_true", help="with --follow: the turns not known (as 'follow start "
                    "--every any')")
    args = ap.parse_args()
    if args.summary:
        summary(args.summary)
    elif args.follow and args.out:
        follow(args)
    elif args.out:
        run(args)
    else:
        sys.exit("give --out FILE (to read) or --summary FILE ...")


if __name__ == "__main__":
    main()
