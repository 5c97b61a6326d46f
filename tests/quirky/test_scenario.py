"""The scenario format and its validator: every error names a line and a column."""

from __future__ import annotations

import pytest

from engine.quirky import ScenarioError, builtin_ids, builtin_scenario, builtin_scenarios, parse_scenario
from engine.quirky.scenario import ROBOTS, builtin_text

GOOD = '''id = "mini"
title = "Mini"
robot = "rover"

[board]
facing = "E"
walls = ["0,0,N"]
map = """
.#.
Q.L
"""

[battery]
track = 4
yellow = 2
green = 3

[deck]
add = { PK = 1, DR = 1 }

[[tokens]]
id = "ball"
at = [2, 1]

[objective]
deliver = { ball = [0, 1] }
'''


def err(text: str) -> ScenarioError:
    with pytest.raises(ScenarioError) as exc:
        parse_scenario(text, "mini.toml")
    return exc.value


def test_good_scenario_parses() -> None:
    scn = parse_scenario(GOOD, "mini.toml")
    assert scn.board.width == 3 and scn.board.height == 2
    assert scn.board.start.x == 0 and scn.board.start.y == 0 and scn.board.start.heading.name == "E"
    assert (1, 1) in scn.board.obstacles and scn.board.spins == {(2, 0): "L"}
    assert scn.board.barrier((0, 0), (0, 1)) and not scn.board.barrier((0, 0), (1, 0))
    assert scn.board.barrier((2, 0), (3, 0))  # the edge
    assert sum(scn.deck.values()) == 22 and scn.hands == {2: 8, 3: 6, 4: 5}
    assert scn.section(4) == "green" and scn.section(2) == "yellow" and scn.section(1) == "red"


def test_toml_syntax_error_has_line_and_column() -> None:
    e = err(GOOD.replace("track = 4", "track = = 4"))
    assert (e.line, e.column) == (14, 9)
    assert "mini.toml, line 14, column 9" in str(e)


@pytest.mark.parametrize(
    ("old", "new", "line", "column", "words"),
    [
        ('robot = "rover"', 'robot = "robbie"', 3, 1, "unknown robot 'robbie'"),
        ("Q.L", "Q.X", 10, 3, "unknown map character 'X'"),
        ("Q.L", "Q.L.", 10, 1, "map row 2 has 4 spaces"),
        ("Q.L", "..L", 8, 1, "no Q space"),
        ('walls = ["0,0,N"]', 'walls = ["0,0,S"]', 7, 10, "wall '0,0,S' is not between two spaces"),
        ('walls = ["0,0,N"]', 'walls = ["0,0"]', 7, 10, "wall must be 'x,y,SIDE'"),
        ('facing = "E"', 'facing = "NE"', 6, 1, "facing must be one of"),
        ("yellow = 2", "yellow = 5", 15, 1, "yellow <= green"),
        ("at = [2, 1]", "at = [7, 1]", 23, 1, "token 'ball' must be at [x, y]"),
        ("PK = 1, DR = 1", "PK = 1, ZZ = 1", 19, 17, "unknown card 'ZZ'"),
        ("ball = [0, 1]", "bal = [0, 1]", 26, 13, "deliver names 'bal'"),
        ("[objective]", "[objective]\ncolour = 1", 26, 1, "unknown key 'colour'"),
        ('title = "Mini"', "title = 3", 2, 1, "title must be str"),
        ('id = "mini"', 'id = "Mini Map"', 1, 1, "id must be lower-case"),
    ],
)
def test_semantic_errors_name_line_and_column(old: str, new: str, line: int, column: int, words: str) -> None:
    assert old in GOOD
    e = err(GOOD.replace(old, new, 1))
    assert words in e.reason
    assert (e.line, e.column) == (line, column), str(e)


def test_deck_too_small_for_hands() -> None:
    e = err(GOOD.replace("[deck]", '[hands]\n"4" = 9\n\n[deck]'))
    assert "36 cards" in e.reason and e.line == 19


def test_shipped_scenarios_two_per_robot_easy_to_hard() -> None:
    scns = builtin_scenarios()
    assert len(scns) >= 8
    for robot in ROBOTS:
        mine = [s for s in scns if s.robot == robot]
        assert len(mine) >= 2
        assert min(s.difficulty for s in mine) < max(s.difficulty for s in mine)
    assert builtin_ids()[0] == "dust-bunnies"
    # every shipped file parses with its own text (no hidden defaults)
    for sid in builtin_ids():
        assert parse_scenario(builtin_text(sid), sid).id == sid


def test_unknown_builtin_scenario() -> None:
    with pytest.raises(ScenarioError, match="unknown scenario 'nope'"):
        builtin_scenario("nope")
