"""Session 16, Captura la Bandera: ivory cubes read empty (docs/boards_vision.md, "Session 16: Bandera cubes read
empty").  Rendered pictures (SIMULATED photographs, development renders committed in tests/boardread/data/bandera_dev/,
README there), each read with the rule on and off; each test fails with the rule off in ``config_for``.  A cube stands
on its square and has a socket in the middle of each face (docs/rules/bandera.md, section 2)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from tests.boardread.test_board_round7_bandera import _read
from vision.board_classify import config_for


@pytest.mark.parametrize(("name", "key"), [("s16_fv2_003", (5, 4)), ("s16_b4_008", (0, 3))])
def test_an_ivory_cube_whose_face_hides_a_stack_behind_it_is_read_by_its_sockets(name: str, key: tuple[int, int]
                                                                                   ) -> None:
    """An ivory cube on the paper reads empty by its probes; its sockets read it.  The rays through the socket points
    on its faces went on past the face to the board, through the stack standing behind it, so the faces counted as
    hidden and too few sockets showed: a cube's face hides what stands behind it (``socket_face_to_point``)."""
    cfg = config_for("bandera")
    assert cfg.socket_face_to_point
    on = _read(name)
    assert (on[key].kind, on[key].cubes) == ("cube", 1), on[key]
    off = _read(name, replace(cfg, socket_face_to_point=False))
    assert off[key].cubes == 0, off[key]
