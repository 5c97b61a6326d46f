"""Followed CTRL games for the fixtures: one game's positions -- the set-up, then after every turn
or every round -- rendered with the same pieces, light, table, mat and camera device, each position
from new hand-held shots of the five sides (with ``low_views`` also each side again from low down,
as ``fixtures render ctrl --low-views`` does for single scenes).  SIMULATED photographs of a game followed with
``boardside ctrl follow`` (``benchmarks/ctrl_follow.py`` measures the following on them).

Layout: ``ROOT/NAME/game.json`` (the truth: the game record, and after how many turns each position
was photographed) and ``ROOT/NAME/scene_KKK/`` (position K, as a CTRL fixture scene: ``scene.json``
with the truth state and scores, five views -- or nine -- with their truth files).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from boardside.fixtures_render.ctrl_states import score_document
from boardside.fixtures_render.sets import (
    RenderSettings,
    ScenePlan,
    SetDef,
    _lights_clear_of_cameras,
    build_spec,
    mat_texture,
    plan_scene,
    render_view,
    scene_truth,
    view_path,
    with_low_views,
)
from boardside.io import write_text_atomic

GAME_FORMAT = 1


def play_game(players: int, rng: random.Random, every: int) -> tuple[Any, list[int]]:
    """A whole game of random legal turns (the CTRL engine's), and the turn counts after which it is
    photographed: 0 (the set-up), every ``every`` turns (0: once a round, one turn per colour), and
    at the end.  Returns the game record (``engine.ctrl.GameRecord``) and those counts."""
    from engine.ctrl import GameRecord, new_state
    from engine.ctrl.record import random_turn

    state = new_state(players=players)
    record = GameRecord(state)
    step = every or len(state.colors)
    shots = [0]
    while not state.is_terminal():
        turn, state = random_turn(state, rng)
        record.turns.append(turn)
        if len(record.turns) % step == 0 or state.is_terminal():
            shots.append(len(record.turns))
    return record, shots


def position_plans(name: str, seed: int, players: int, shots: list[int], states: list[Any],
                   low_views: bool = False) -> list[ScenePlan]:
    """The plan of each photographed position of a followed game (``states``: the game's states, one
    per turn played): the look, light, table and camera device of ``seed``, the state after
    ``shots[k]`` turns.  With ``low_views`` each plan also pictures the four low views
    (:func:`~boardside.fixtures_render.sets.with_low_views`), added after the lights were kept clear
    of the five usual cameras, so the five pictures are the same with or without them."""
    base = plan_scene(SetDef("ctrl", "ctrl", seed, 1), 0, states[0].to_json())
    plans = []
    for k, n in enumerate(shots):
        stage = "setup" if n == 0 else ("finished" if states[n].is_terminal() else "mid")
        plan = _lights_clear_of_cameras(replace(base, set_name=name, index=k, stage=stage, players=players,
                                                state=states[n].to_json()))
        plans.append(with_low_views(plan) if low_views else plan)
    return plans


def render_followed(
    root: Path,
    name: str,
    seed: int,
    players: int = 4,
    every: int = 0,
    settings: RenderSettings | None = None,
    on_view: Callable[[str, float], None] | None = None,
    low_views: bool = False,
) -> int:
    """Render (or finish rendering: views already written are kept) one followed game under
    ``root/name``; returns how many views were rendered.  The game and the look come from ``seed`` (a game
    already under ``root/name`` keeps its own seed and players).
    ``low_views``: also the four low pictures of every position (``px_low.jpg`` ...); the five usual
    pictures are unchanged by it, so a game rendered without them can be completed with them."""
    from engine.ctrl import GameRecord

    settings = settings or RenderSettings()
    game_dir = root / name
    game_dir.mkdir(parents=True, exist_ok=True)
    truth_path = game_dir / "game.json"
    if truth_path.exists():
        doc = json.loads(truth_path.read_text())
        record, shots = GameRecord.from_json(doc["record"]), [int(n) for n in doc["shots"]]
        # the recorded game's, whatever was asked now (a resumed render with another --seed once mixed looks)
        players, seed = int(doc["players"]), int(doc["seed"])
    else:
        record, shots = play_game(players, random.Random(seed), every)
        doc = {"format": GAME_FORMAT, "simulated": "rendered photographs of a random legal game",
               "seed": seed, "players": players, "every": every or "round", "shots": shots,
               "record": record.to_json()}
        _write(truth_path, doc)
    states = list(record.states())
    mat = mat_texture()
    done = 0
    for plan, n in zip(position_plans(name, seed, players, shots, states, low_views), shots, strict=True):
        truth = scene_truth(plan, mat[0])
        truth.update({"scores": score_document(plan.state), "turns_played": n})
        sj = game_dir / plan.scene_id / "scene.json"
        sj.parent.mkdir(parents=True, exist_ok=True)
        if not sj.exists():
            _write(sj, truth)
        spec = None
        for view in plan.views:
            jpg, js = view_path(root, plan, view)
            if jpg.exists() and js.exists():
                continue
            spec = spec or build_spec(plan, mat)
            t0 = time.perf_counter()
            render_view(plan, view, spec, mat, settings, root)
            done += 1
            if on_view:
                on_view(f"{name}/{plan.scene_id}/{jpg.name}", time.perf_counter() - t0)
    return done


def _write(path: Path, doc: dict[str, Any]) -> None:
    write_text_atomic(path, json.dumps(doc, indent=1) + "\n")


__all__ = ["play_game", "position_plans", "render_followed"]
