"""Property tests: every motion trace is kinematically consistent (what the hardware layer relies on)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.motion import Heading, Motion, MotionKind, Pose
from engine.quirky import Card, Table, builtin_scenarios, resolve_program

SCENARIOS = builtin_scenarios()
CODES = ["F1", "F2", "F3", "B1", "RL", "RR", "U", "J2", "J3", "MN", "RN", "PK", "DR", "SW"]


def step(pose: Pose, m: Motion) -> Pose:
    """Where a robot toy ends after one primitive, computed from the previous pose alone."""
    h = pose.heading
    k = m.kind
    if k is MotionKind.FORWARD:
        return Pose(pose.x + h.dx, pose.y + h.dy, h)
    if k is MotionKind.BACKWARD:
        return Pose(pose.x - h.dx, pose.y - h.dy, h)
    if k is MotionKind.TURN_LEFT:
        return Pose(pose.x, pose.y, h.left())
    if k is MotionKind.TURN_RIGHT:
        return Pose(pose.x, pose.y, h.right())
    if k is MotionKind.SLIDE:
        d = Heading[m.arg]
        return Pose(pose.x + d.dx, pose.y + d.dy, h)
    if k is MotionKind.JUMP:
        n = int(m.arg)
        return Pose(pose.x + h.dx * n, pose.y + h.dy * n, h)
    return pose  # bumps, pick-ups and drops leave the pose unchanged


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(SCENARIOS),
    st.lists(st.sampled_from(CODES), min_size=1, max_size=18),
)
def test_every_trace_is_kinematically_consistent(scn, codes: list[str]) -> None:  # type: ignore[no-untyped-def]
    table = Table.initial(scn)
    res = resolve_program(scn, table, [Card(c) for c in codes])
    pose = table.pose
    for m in res.motions:
        assert step(pose, m) == m.expected, (codes, str(m))
        pose = m.expected
        assert scn.board.on_board((pose.x, pose.y)) and (pose.x, pose.y) not in scn.board.obstacles
        assert Motion.parse(str(m)) == m
    assert pose == res.final.pose
    # per-card traces chain: each card starts where the previous one ended
    for a, b in zip(res.cards, res.cards[1:], strict=False):
        assert a.after == b.before
    # nothing is lost: every token is somewhere exactly once
    for t in res.final.tokens:
        assert (t.at is None) == res.final.is_held(t.id)
    assert res.outcome in ("won", "lost", "continue")
    if res.outcome != "continue":
        assert res.cards[-1].outcome == res.outcome
