"""Which further picture ``score-images`` asks for when no picture shows a cell (issue 5 item 3)."""

from __future__ import annotations

from vision.pipeline import _suggest_view, where_to_take


def test_an_open_side_is_named_with_how_to_hold_the_camera() -> None:
    # a cell with a block above it and beside it on +x, open toward -x
    occupied = {(1, 0, 1), (2, 0, 0), (1, 0, -1)}
    hint = _suggest_view((1, 0, 0), occupied)
    assert "side -x" in hint and "low down" in hint and "mat's near edge" in hint


def test_a_cell_open_only_upward_asks_for_a_picture_from_above() -> None:
    occupied = {(0, 0, 0), (2, 0, 0), (1, 1, 0), (1, -1, 0)}
    assert _suggest_view((1, 0, 0), occupied) == f"a picture taken {where_to_take('top')} would show it"


def test_a_cell_closed_on_every_side_cannot_be_shown() -> None:
    occupied = {(2, 0, 0), (0, 0, 0), (1, 1, 0), (1, -1, 0), (1, 0, 1)}
    assert "no picture can show it" in _suggest_view((1, 0, 0), occupied)
