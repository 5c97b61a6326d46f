"""benchmarks/ctrl_history_failures.py (session 16): each failing reading with history lands in one cause class."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks import ctrl_history_failures as hf
from benchmarks.ctrl_scenes import load_scene, scene_dirs
from engine.ctrl import State
from engine.ctrl.record import turns_back_chain

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def _played_scene() -> tuple[State, State, int]:
    for d in scene_dirs(FIXTURES):
        truth = load_scene(d, with_camera=False, views=()).truth
        chain = turns_back_chain(truth, 1)
        if len(chain) > 1 and truth.flags:
            return truth, chain[-1], len(chain) - 1
    raise AssertionError("no fixture scene with a turn to take back")


def _record(state: State, turns: int, trusted: bool, exact: bool, flags_wrong: list[str],
            errors: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"figures": {"state_exact": exact, "trusted": trusted, "wrong_sides": [], "silent_sides": [],
                        "flags_wrong": flags_wrong},
            "problems": [f"{code}|somewhere|error" for code in errors],
            "state_blocks": {",".join(map(str, c)): v for c, v in state.blocks.items()},
            "state_flags": {k: str(v) for k, v in state.flags.items()}, "turns": ["t"] * turns}


def test_classes() -> None:
    truth, prev, n = _played_scene()
    shown = {c: 10_000 for c in truth.colors}
    blocks_shown = {c: 10_000 for c in truth.blocks}
    assert hf.classify_reading(_record(truth, n, True, True, []), truth, prev, n, shown, blocks_shown)[0] == "ok"
    assert hf.classify_reading(_record(truth, n, False, True, [], ("flag-ambiguous",)), truth, prev, n, shown,
                               blocks_shown)[0] == "trust-withheld:flag-ambiguous"
    colour = next(iter(truth.flags))
    no_flag = replace(truth, flags={k: v for k, v in truth.flags.items() if k != colour})
    cls, kinds, _ = hf.classify_reading(_record(no_flag, n, False, False, [colour]), truth, prev, n, shown,
                                        blocks_shown)
    assert (cls, kinds) == ("flag:not-found", ["not-found"])
    cls, kinds, _ = hf.classify_reading(_record(no_flag, n, False, False, [colour]), truth, prev, n,
                                        {**shown, colour: 10}, blocks_shown)
    assert (cls, kinds) == ("flag:hidden", ["hidden"])
    # the previous state's blocks read with no turn: the turn's blocks missing
    cls, _, _ = hf.classify_reading(_record(prev, 0, False, False, []), truth, prev, n, shown, blocks_shown)
    assert cls == "turn-count:missing-turn"
    cls, _, _ = hf.classify_reading(_record(prev, 0, False, False, []), truth, prev, n, shown, {})
    assert cls == "turn-count:hidden-turn"
    assert hf.classify_reading({"error": "blurred"}, truth, prev, n, shown, blocks_shown)[0] == "rejected"


def test_rendered_pixels_reads_the_visibility_records() -> None:
    d = scene_dirs(FIXTURES)[0]
    flags, blocks = hf.rendered_pixels(d, ["px", "top"])
    assert blocks and all(v >= 0 for v in blocks.values())
    assert all(isinstance(k, str) for k in flags)
