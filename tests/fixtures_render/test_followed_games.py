"""``boardside.fixtures_render.followed.play_game``: the followed games' truth (rendering itself needs
the optional renderer and is exercised by ``boardside fixtures render-followed``)."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from boardside.fixtures_render.followed import play_game


@pytest.mark.parametrize(("players", "every"), [(4, 0), (3, 1), (2, 0), (4, 3)])
def test_a_followed_game_is_photographed_at_the_set_up_every_step_and_at_the_end(players: int, every: int) -> None:
    record, shots = play_game(players, random.Random(players * 10 + every), every)
    states = list(record.states())  # every turn legal
    assert states[-1].is_terminal() and shots[0] == 0 and shots[-1] == len(record.turns)
    step = every or len(states[0].colors)
    assert all(b - a == step for a, b in itertools.pairwise(shots[:-1]))
    assert 0 < shots[-1] - shots[-2] <= step
    # the same seed gives the same game
    again, shots2 = play_game(players, random.Random(players * 10 + every), every)
    assert again.turns == record.turns and shots2 == shots


def test_low_views_add_four_pictures_and_leave_the_five_as_planned() -> None:
    """``render-followed --low-views``: every position also pictures the four low views; the five usual
    pictures keep their plan (light, look, camera, sensor, render seed), so they render byte for byte
    as without the option (session 12: checked on a real render too, docs/vision.md)."""
    from boardside.fixtures_render.followed import position_plans
    from boardside.fixtures_render.sets import LOW_VIEWS, SIDES, _view_setup, mat_texture

    mat_spec = mat_texture()[0]
    record, shots = play_game(3, random.Random(7), 0)
    states = list(record.states())
    five = position_plans("g", 2026112949, 3, shots, states)
    nine = position_plans("g", 2026112949, 3, shots, states, low_views=True)
    assert len(five) == len(nine) == len(shots)
    for a, b in zip(five, nine, strict=True):
        assert a.views == list(SIDES) and b.views == list(SIDES) + list(LOW_VIEWS)
        assert dataclasses.replace(b, views=a.views) == a
        for view in a.views:
            ca, pa, fa, sa, _ = _view_setup(a, view, mat_spec)
            cb, pb, fb, sb, _ = _view_setup(b, view, mat_spec)
            assert (ca.to_json(), pa, fa, sa) == (cb.to_json(), pb, fb, sb)
        # the low cameras really are low, and each side's low picture looks at its side
        for view in LOW_VIEWS:
            _, pose, *_ = _view_setup(b, view, mat_spec)
            assert 12.0 <= pose["elevation_deg"] <= 20.0
    # the positions differ in their state only (same table, light and device all game long)
    assert all(p.device == five[0].device and p.look == five[0].look for p in five)


def test_a_resumed_render_keeps_the_games_seed_and_low_views_complete_it(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """``render-followed`` resumes: views already written are kept.  A game rendered with five pictures
    is completed with ``--low-views`` by the four low pictures only, and a resumed render keeps the
    recorded seed whatever ``--seed`` says (it used the new one, mixing two looks in one game)."""
    from boardside.fixtures_render import followed
    from boardside.fixtures_render.sets import LOW_VIEWS, SIDES

    rendered: list[tuple[int, int, str]] = []

    def fake_render(plan: Any, view: str, spec: Any, mat: Any, settings: Any, root: Path) -> dict[str, Any]:
        jpg, js = followed.view_path(root, plan, view)
        jpg.write_bytes(b"jpeg")
        js.write_text("{}")
        rendered.append((plan.seed, plan.index, view))
        return {}

    monkeypatch.setattr(followed, "render_view", fake_render)
    monkeypatch.setattr(followed, "build_spec", lambda plan, mat: None)
    n = followed.render_followed(tmp_path, "g", 2026112948, players=2, every=0)
    positions = len(json.loads((tmp_path / "g" / "game.json").read_text())["shots"])
    assert n == 5 * positions and {v for _, _, v in rendered} == set(SIDES)
    rendered.clear()
    (tmp_path / "g" / "scene_001" / "px.jpg").unlink()
    n = followed.render_followed(tmp_path, "g", 1, players=4, every=1, low_views=True)
    assert n == 4 * positions + 1
    assert sorted(v for _, k, v in rendered if k == 1) == sorted(["+x", *LOW_VIEWS])
    assert {s for s, _, _ in rendered} == {2026112948}
