"""A picture of the CTRL play mat given as a board is named as such (issue 9: "wrong game's board
rejected with the reason"), never located as a board.

The mat's markers come from another ArUco dictionary (DICT_5X5_250) than the boards' (DICT_4X4_250), but
read with a bit wrong by the pose's second look (session 7) a few of its patterns passed for board
markers that fit one plane: fixture ctrl scene_013/my.jpg was located as a Gridopolis board and
scene_016/mx.jpg as a Bandera board."""

from __future__ import annotations

from pathlib import Path

import pytest

from calibration.boards import board_spec
from calibration.camera import read_image
from vision.board_locate import WrongBoardError, locate_board

CTRL = Path(__file__).resolve().parents[2] / "fixtures" / "ctrl"


@pytest.mark.parametrize(("view", "game"), [
    ("scene_013/my.jpg", "gridopolis"),  # located as a board (markers 31, 32 rescued) before
    ("scene_016/mx.jpg", "bandera"),  # located as a board (markers 5, 10, 12 rescued) before
    ("scene_020/py.jpg", "bandera"),  # "markers do not fit one flat board" before
    ("scene_013/top.jpg", "quirky"),  # "too little of the board is visible (marker 73 only)" before
])
def test_the_ctrl_mat_is_named_not_read_as_a_board(view: str, game: str) -> None:
    spec = board_spec(game, scenario="first-dance") if game == "quirky" else board_spec(game)
    with pytest.raises(WrongBoardError, match=r"shows the CTRL play mat \(\d+ of its DICT_5X5_250 markers\), "
                                              rf"not the {game} board") as exc:
        locate_board(read_image(CTRL / view), spec, None, name=view)
    assert repr(view) in str(exc.value)
