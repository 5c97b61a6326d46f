"""Small scenarios written inline for hand-worked examples."""

from __future__ import annotations

from engine.motion import Motion
from engine.quirky import Card, Scenario, Table, parse_program, parse_scenario, resolve_card, resolve_program


def scenario(
    board: str,
    robot: str = "gizmo",
    facing: str = "N",
    walls: str = "",
    tokens: str = "",
    objective: str = "reach = [0, 0]",
    extra: str = "",
) -> Scenario:
    rows = "\n".join(r.strip() for r in board.strip().splitlines())
    text = f'''id = "test"
title = "Test"
robot = "{robot}"
{extra}
[board]
facing = "{facing}"
walls = [{walls}]
map = """
{rows}
"""

[battery]
track = 3
yellow = 2
green = 3
{tokens}
[objective]
{objective}
'''
    return parse_scenario(text, "test.toml")


def motions(scn: Scenario, program: str, table: Table | None = None) -> list[str]:
    res = resolve_program(scn, table or Table.initial(scn), parse_program(program))
    return [str(m) for m in res.motions]


def card(
    scn: Scenario, code: str, table: Table | None = None, choice: str | None = None
) -> tuple[list[str], Table]:
    tr = resolve_card(scn, table or Table.initial(scn), Card.parse(code), choice=choice)
    return [str(m) for m in tr.motions], tr.after


def m(text: str) -> list[str]:
    """Normalise a space-separated motion list (checks every entry parses)."""
    return [str(Motion.parse(t)) for t in text.split()]
