"""benchmarks/ctrl_scenes.py: which pictures of a scene the CTRL benchmarks read (``--views``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchmarks.ctrl_scenes import LOW_VIEWS, VIEWS, load_scene, parse_views

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "ctrl"


def test_view_words_expand_in_order_without_repeats() -> None:
    assert parse_views("five") == VIEWS
    assert parse_views("all") == VIEWS + LOW_VIEWS
    assert parse_views("px,top,px_low,px") == ("px", "top", "px_low")
    assert parse_views("five,low") == VIEWS + LOW_VIEWS


def test_an_unknown_view_is_named() -> None:
    with pytest.raises(ValueError, match="'side'"):
        parse_views("px,side")


def test_the_views_read_are_those_asked_for_and_present(tmp_path: Path) -> None:
    scene = load_scene(FIXTURES / "scene_000", views=parse_views("all"))
    assert [name.split("/")[1] for name, _ in scene.pics] == [f"{v}.jpg" for v in VIEWS + LOW_VIEWS]
    assert len(load_scene(FIXTURES / "scene_000").pics) == 5  # the default: the five a player takes
    assert len(load_scene(FIXTURES / "scene_000", views=("px", "top")).pics) == 2
    # a scene without low pictures reads its five
    for f in (FIXTURES / "scene_000").glob("*"):
        if "_low" not in f.name:
            (tmp_path / f.name).write_bytes(f.read_bytes())
    assert len(load_scene(tmp_path, views=parse_views("all")).pics) == 5
